/*
Copyright 2026 The Berth Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package convert

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/berth-io/berth/api/v1alpha1"
)

// PodGroupTarget is what ConvertPodGroups writes Berth's PodGroups as.
type PodGroupTarget string

const (
	// ToNative writes Kubernetes' own scheduling.k8s.io/v1beta1 PodGroups:
	// the move to the native API.
	ToNative PodGroupTarget = "native"
	// ToBerth writes Berth's PodGroups again without their deprecated
	// fields (minMember becomes schedulingPolicy.gang.minCount).
	ToBerth PodGroupTarget = "berth"
)

// PodGroupResult is the outcome of converting Berth's PodGroups.
type PodGroupResult struct {
	// Objects are the converted PodGroups, in input order.
	Objects []any
	// Warnings say what did not carry over.
	Warnings []string
}

// IsBerthPodGroups reports whether data's first document is one of Berth's
// PodGroups (or a list of them).
func IsBerthPodGroups(data []byte) bool {
	docs, err := splitDocuments(data)
	if err != nil || len(docs) == 0 {
		return false
	}
	var head metav1.TypeMeta
	if err := yaml.Unmarshal(docs[0], &head); err != nil {
		return false
	}
	return head.APIVersion == v1alpha1.GroupVersion.String() && (head.Kind == "PodGroup" || head.Kind == "PodGroupList")
}

// ConvertPodGroups reads Berth's PodGroups (YAML documents, or a
// PodGroupList) and writes each as target says. Names, namespaces, labels
// and annotations carry over; status, UID and the other fields the
// apiserver sets do not. Pods that joined a group through the
// scheduling.berth.io/pod-group label join its native successor through
// spec.schedulingGroup.podGroupName instead, which their controller must set.
func ConvertPodGroups(data []byte, target PodGroupTarget) (*PodGroupResult, error) {
	if target != ToNative && target != ToBerth {
		return nil, fmt.Errorf("unknown target %q: want %q or %q", target, ToNative, ToBerth)
	}
	groups, err := decodePodGroups(data)
	if err != nil {
		return nil, err
	}
	res := &PodGroupResult{}
	timeouts := 0
	for i := range groups {
		pg := &groups[i]
		if pg.Spec.ScheduleTimeoutSeconds != nil {
			timeouts++
		}
		if target == ToNative {
			res.Objects = append(res.Objects, nativeOf(pg))
		} else {
			res.Objects = append(res.Objects, modernOf(pg))
		}
	}
	if timeouts > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d PodGroups set the deprecated scheduleTimeoutSeconds, which has no equivalent and was dropped: "+
			"their members wait at Permit for five minutes, as kube-scheduler's do", timeouts))
	}
	if target == ToNative && len(groups) > 0 {
		res.Warnings = append(res.Warnings, "pods join a scheduling.k8s.io PodGroup through spec.schedulingGroup.podGroupName (the apiserver keeps it only with its GenericWorkload gate on), "+
			"not through the "+v1alpha1.PodGroupLabel+" label: change the pod templates that set the label")
	}
	return res, nil
}

// decodePodGroups reads every PodGroup in data, strictly.
func decodePodGroups(data []byte) ([]v1alpha1.PodGroup, error) {
	docs, err := splitDocuments(data)
	if err != nil {
		return nil, err
	}
	var out []v1alpha1.PodGroup
	for i, doc := range docs {
		raw, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i+1, err)
		}
		var head metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &head); err != nil {
			return nil, fmt.Errorf("document %d: %w", i+1, err)
		}
		if head.APIVersion != v1alpha1.GroupVersion.String() {
			return nil, fmt.Errorf("document %d is %s %s, not a %s PodGroup", i+1, head.APIVersion, head.Kind, v1alpha1.GroupVersion)
		}
		switch head.Kind {
		case "PodGroup":
			var pg v1alpha1.PodGroup
			if err := strictJSON(raw, &pg); err != nil {
				return nil, fmt.Errorf("document %d: %w", i+1, err)
			}
			out = append(out, pg)
		case "PodGroupList":
			var list v1alpha1.PodGroupList
			if err := strictJSON(raw, &list); err != nil {
				return nil, fmt.Errorf("document %d: %w", i+1, err)
			}
			out = append(out, list.Items...)
		default:
			return nil, fmt.Errorf("document %d is a %s, not a PodGroup", i+1, head.Kind)
		}
	}
	for i := range out {
		if out[i].Spec.SchedulingPolicy == nil && out[i].Spec.MinMember < 1 {
			return nil, fmt.Errorf("PodGroup %s has neither schedulingPolicy nor minMember", out[i].Name)
		}
	}
	return out, nil
}

// strictJSON decodes raw into out, refusing unknown and duplicate fields.
func strictJSON(raw []byte, out any) error {
	strict, err := sigsjson.UnmarshalStrict(raw, out)
	if err != nil {
		return err
	}
	if len(strict) > 0 {
		return errors.Join(strict...)
	}
	return nil
}

// splitDocuments splits a YAML stream into its non-empty documents.
func splitDocuments(data []byte) ([][]byte, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var docs [][]byte
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading the YAML stream: %w", err)
		}
		if len(bytes.TrimSpace(doc)) > 0 && strings.TrimSpace(string(doc)) != "---" {
			docs = append(docs, doc)
		}
	}
}

// objectMeta keeps what a user wrote of an object's metadata.
func objectMeta(in metav1.ObjectMeta) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: in.Name, Namespace: in.Namespace, Labels: in.Labels, Annotations: in.Annotations}
}

// nativeOf is the scheduling.k8s.io/v1beta1 PodGroup with pg's meaning.
func nativeOf(pg *v1alpha1.PodGroup) *schedulingv1beta1.PodGroup {
	return &schedulingv1beta1.PodGroup{
		TypeMeta:   metav1.TypeMeta{APIVersion: schedulingv1beta1.SchemeGroupVersion.String(), Kind: "PodGroup"},
		ObjectMeta: objectMeta(pg.ObjectMeta),
		Spec:       pg.Spec.Native(),
	}
}

// modernOf is pg without its deprecated fields.
func modernOf(pg *v1alpha1.PodGroup) *v1alpha1.PodGroup {
	out := &v1alpha1.PodGroup{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.GroupVersion.String(), Kind: "PodGroup"},
		ObjectMeta: objectMeta(pg.ObjectMeta),
		Spec:       *pg.Spec.DeepCopy(),
	}
	if out.Spec.SchedulingPolicy == nil {
		out.Spec.SchedulingPolicy = &v1alpha1.PodGroupSchedulingPolicy{Gang: &v1alpha1.GangSchedulingPolicy{MinCount: pg.Spec.MinCount()}}
	}
	out.Spec.MinMember = 0
	out.Spec.ScheduleTimeoutSeconds = nil
	return out
}

// WritePodGroups writes the converted PodGroups as YAML documents, without
// the empty creationTimestamp and status a Go object would add.
func WritePodGroups(w io.Writer, objects []any) error {
	for i, obj := range objects {
		raw, err := yaml.Marshal(obj)
		if err != nil {
			return fmt.Errorf("encoding PodGroup %d: %w", i+1, err)
		}
		var doc map[string]any
		if err := yaml.Unmarshal(raw, &doc); err != nil {
			return fmt.Errorf("encoding PodGroup %d: %w", i+1, err)
		}
		delete(doc, "status")
		if md, ok := doc["metadata"].(map[string]any); ok {
			delete(md, "creationTimestamp")
		}
		out, err := yaml.Marshal(doc)
		if err != nil {
			return fmt.Errorf("encoding PodGroup %d: %w", i+1, err)
		}
		if i > 0 {
			if _, err := io.WriteString(w, "---\n"); err != nil {
				return fmt.Errorf("writing PodGroup %d: %w", i+1, err)
			}
		}
		if _, err := w.Write(out); err != nil {
			return fmt.Errorf("writing PodGroup %d: %w", i+1, err)
		}
	}
	return nil
}
