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

package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiruntime "k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	ctrlfake "sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/internal/audit"
)

// auditCluster is what a fake cluster of the audit tests serves.
type auditCluster struct {
	objects []apiruntime.Object
	berth   []*v1alpha1.PodGroup
	// native serves scheduling.k8s.io/v1beta1 PodGroups; berth, Berth's.
	native, servesBerth bool
}

// fakeAuditClients serves the cluster through fake clients.
func fakeAuditClients(t *testing.T, c auditCluster) auditClientsFunc {
	t.Helper()
	return func(*auditFlags) (*auditClients, error) {
		kube := kubefake.NewClientset(c.objects...)
		if c.native {
			kube.Resources = append(kube.Resources, &metav1.APIResourceList{GroupVersion: schedulingv1beta1.SchemeGroupVersion.String(),
				APIResources: []metav1.APIResource{{Name: "podgroups", Namespaced: true, Kind: "PodGroup"}}})
		}
		if c.servesBerth {
			kube.Resources = append(kube.Resources, &metav1.APIResourceList{GroupVersion: v1alpha1.GroupVersion.String(),
				APIResources: []metav1.APIResource{{Name: "podgroups", Namespaced: true, Kind: "PodGroup"}}})
		}
		scheme := apiruntime.NewScheme()
		if err := v1alpha1.AddToScheme(scheme); err != nil {
			return nil, err
		}
		builder := ctrlfake.NewClientBuilder().WithScheme(scheme)
		for _, pg := range c.berth {
			builder = builder.WithObjects(pg)
		}
		return &auditClients{kube: kube, berth: builder.Build()}, nil
	}
}

// auditNode is a node of the zone with room for 4 cpus and 10 pods.
func auditNode(name, zone string) *v1.Node {
	alloc := v1.ResourceList{v1.ResourceCPU: resource.MustParse("4"), v1.ResourcePods: resource.MustParse("10")}
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1.LabelHostname: name, v1.LabelTopologyZone: zone}},
		Status:     v1.NodeStatus{Capacity: alloc, Allocatable: alloc},
	}
}

// webPod is a pod app=web of the namespace bound to the node, that will
// share no hostname with another app=web pod.
func webPod(namespace, name, node string) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: map[string]string{"app": "web"}},
		Spec: v1.PodSpec{NodeName: node, Containers: []v1.Container{{Name: "c"}}, Affinity: &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
				TopologyKey: v1.LabelHostname, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			}},
		}}},
	}
}

// gangMember is a pod of the scheduling.k8s.io PodGroup, bound to the node unless it is "".
func gangMember(name, group, node string) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "batch", Name: name},
		Spec:       v1.PodSpec{NodeName: node, Containers: []v1.Container{{Name: "c"}}, SchedulingGroup: &v1.PodSchedulingGroup{PodGroupName: &group}},
	}
}

func gang(name string, minCount int32) *schedulingv1beta1.PodGroup {
	return &schedulingv1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: "batch", Name: name},
		Spec: schedulingv1beta1.PodGroupSpec{SchedulingPolicy: schedulingv1beta1.PodGroupSchedulingPolicy{
			Gang: &schedulingv1beta1.GangSchedulingPolicy{MinCount: minCount},
		}},
	}
}

func namespace(name string) *v1.Namespace {
	return &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1.LabelMetadataName: name}}}
}

func TestAuditCommand(t *testing.T) {
	base := []apiruntime.Object{namespace("default"), namespace("batch"), auditNode("node-1", "a"), auditNode("node-2", "b")}
	clean := append(base[:len(base):len(base)],
		webPod("default", "web-1", "node-1"), webPod("default", "web-2", "node-2"),
		gangMember("g-1", "train", "node-1"), gangMember("g-2", "train", "node-2"))
	planted := append(base[:len(base):len(base)],
		webPod("default", "web-1", "node-1"), webPod("default", "web-2", "node-1"),
		gangMember("g-1", "train", "node-1"), gangMember("g-2", "train", ""))
	tests := []struct {
		name       string
		args       []string
		cluster    auditCluster
		wantCode   int
		wantStdout []string
		wantStderr string
	}{
		{name: "no violation", cluster: auditCluster{objects: append(clean, gang("train", 2)), native: true}, wantCode: 0,
			wantStdout: []string{"No violations: 4 bound pods on 2 nodes, 1 gang checked."}},
		{name: "planted violations", cluster: auditCluster{objects: append(planted, gang("train", 2)), native: true}, wantCode: 1,
			wantStdout: []string{
				"KIND      NAMESPACE/NAME  NODE    CONSTRAINT       MESSAGE",
				"PodGroup  batch/train     -       GangMinCount     1 of the gang's members is bound (on node-1), fewer than its minCount 2",
				"Pod       default/web-1   node-1  PodAntiAffinity  pod default/web-1 and default/web-2 share kubernetes.io/hostname=node-1 against web-1's required anti-affinity",
				"Pod       default/web-2   node-1  PodAntiAffinity  pod default/web-2 and default/web-1 share",
				"3 violations: 3 bound pods on 2 nodes, 1 gang checked.",
			}},
		{name: "one namespace", args: []string{"--namespace", "batch"}, cluster: auditCluster{objects: append(planted, gang("train", 2)), native: true}, wantCode: 1,
			wantStdout: []string{"batch/train", "1 violation: 1 bound pod in namespace batch on 2 nodes, 1 gang checked."}},
		{name: "a clean namespace", args: []string{"-n", "kube-system"}, cluster: auditCluster{objects: append(planted, gang("train", 2)), native: true}, wantCode: 0,
			wantStdout: []string{"No violations: 0 bound pods in namespace kube-system on 2 nodes, 0 gangs checked."}},
		{name: "PodGroups not served", cluster: auditCluster{objects: clean}, wantCode: 0,
			wantStdout: []string{"No violations: 4 bound pods on 2 nodes, 0 gangs checked."},
			wantStderr: "the apiserver does not serve scheduling.k8s.io/v1beta1 PodGroups: their gangs were not checked"},
		{name: "Berth's PodGroups", cluster: auditCluster{objects: append(base[:len(base):len(base)],
			&v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "batch", Name: "b-1", Labels: map[string]string{v1alpha1.PodGroupLabel: "legacy"}},
				Spec: v1.PodSpec{NodeName: "node-1", Containers: []v1.Container{{Name: "c"}}}}),
			berth: []*v1alpha1.PodGroup{{ObjectMeta: metav1.ObjectMeta{Namespace: "batch", Name: "legacy"}, Spec: v1alpha1.PodGroupSpec{
				SchedulingPolicy: &v1alpha1.PodGroupSchedulingPolicy{Gang: &v1alpha1.GangSchedulingPolicy{MinCount: 3}}}}},
			native: true, servesBerth: true}, wantCode: 1,
			wantStdout: []string{"PodGroup.scheduling.berth.io  batch/legacy"}},
		{name: "bad output", args: []string{"-o", "yaml"}, wantCode: 2, wantStderr: "-o must be table or json"},
		{name: "stray argument", args: []string{"pods"}, wantCode: 2, wantStderr: "Usage: berth audit"},
		{name: "help", args: []string{"-h"}, wantCode: 0, wantStderr: "Exit codes: 0 no violation, 1 violations found, 2 bad command line or cluster not read."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := stock(t).runAudit(context.Background(), tc.args, &stdout, &stderr, fakeAuditClients(t, tc.cluster))
			if code != tc.wantCode {
				t.Errorf("exit code %d, want %d; stdout:\n%s\nstderr:\n%s", code, tc.wantCode, stdout.String(), stderr.String())
			}
			for _, want := range tc.wantStdout {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
				}
			}
			if !strings.Contains(stderr.String(), tc.wantStderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.wantStderr, stderr.String())
			}
		})
	}
}

func TestAuditCommandJSON(t *testing.T) {
	objects := []apiruntime.Object{namespace("default"), auditNode("node-1", "a"),
		webPod("default", "web-1", "node-1"), webPod("default", "web-2", "node-1")}
	var stdout, stderr bytes.Buffer
	code := stock(t).runAudit(context.Background(), []string{"-o", "json"}, &stdout, &stderr, fakeAuditClients(t, auditCluster{objects: objects, native: true}))
	if code != 1 {
		t.Fatalf("exit code %d, want 1: %s", code, stderr.String())
	}
	var r auditReport
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatalf("decoding %s: %v", stdout.String(), err)
	}
	if r.Nodes != 1 || r.BoundPods != 2 || len(r.Violations) != 2 || r.Violations[0].Constraint != audit.PodAntiAffinity || r.Violations[0].Name != "web-1" {
		t.Errorf("report %+v, want web-1's and web-2's anti-affinity on 1 node", r)
	}
	if !strings.Contains(stdout.String(), `"constraint": "PodAntiAffinity"`) {
		t.Errorf("the JSON does not name the constraint as PodAntiAffinity:\n%s", stdout.String())
	}
}

func TestAuditCommandErrors(t *testing.T) {
	failing := func(*auditFlags) (*auditClients, error) { return nil, errors.New("no kubeconfig") }
	var stdout, stderr bytes.Buffer
	if code := stock(t).runAudit(context.Background(), nil, &stdout, &stderr, failing); code != 2 {
		t.Errorf("exit code %d, want 2", code)
	}
	if !strings.Contains(stderr.String(), "berth audit: no kubeconfig") {
		t.Errorf("stderr %q does not say why", stderr.String())
	}

	// berth audit is wired into Run, with the kubeconfig's clients.
	stdout.Reset()
	stderr.Reset()
	if code := stock(t).Run(t.Context(), []string{"audit", "--kubeconfig", "testdata/none.kubeconfig"}, nil, &stdout, &stderr); code != 2 {
		t.Errorf("berth audit with a missing kubeconfig: exit code %d, want 2", code)
	}
	if !strings.Contains(stderr.String(), "berth audit: loading the kubeconfig") {
		t.Errorf("stderr %q does not say the kubeconfig could not be loaded", stderr.String())
	}
}

// TestAuditDocsListEveryFlag keeps docs/audit.md's flags table complete.
func TestAuditDocsListEveryFlag(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/audit.md")
	if err != nil {
		t.Fatal(err)
	}
	auditFlagSet(&auditFlags{}, io.Discard).VisitAll(func(f *flag.Flag) {
		dashes := "--"
		if len(f.Name) == 1 {
			dashes = "-"
		}
		if !strings.Contains(string(doc), "`"+dashes+f.Name) {
			t.Errorf("docs/audit.md does not list %s%s", dashes, f.Name)
		}
	})
}
