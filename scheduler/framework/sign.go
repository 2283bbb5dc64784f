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

package framework

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
)

// PodSignature identifies what a profile's plugins read of a pod: two pods
// with equal signatures are filtered and scored alike on the same nodes.
// A nil signature matches no other pod.
type PodSignature []byte

// SignFragment is one part of a pod's signature, under a key naming what
// of the pod it was read from.
type SignFragment struct {
	// Key names the part of the pod; plugins that read the same part use the same key.
	Key string
	// Value is what the plugin read, in a form that encodes to JSON.
	Value any
}

// Keys of the signature fragments, shared by the plugins that read the
// same part of a pod. They are kube-scheduler's, so that a signature
// names the same things in both.
const (
	SchedulerNameSignKey = "v1.Pod.Spec.SchedulerName"
	ImageNamesSignKey    = "v1.Pod.Spec.CanonicalImageNames()"
	LabelsSignKey        = "v1.Pod.Labels"
	NodeNameSignKey      = "v1.Pod.Spec.NodeName"
	NodeAffinitySignKey  = "v1.Pod.Spec.Affinity.NodeAffinity"
	NodeSelectorSignKey  = "v1.Pod.Spec.Affinity.NodeSelector"
	HostPortsSignKey     = "v1.Pod.Spec.HostPorts()"
	ResourcesSignKey     = "v1.Pod.Spec.ContainerRequestsAndOverheads()"
	TolerationsSignKey   = "v1.Pod.Spec.Tolerations"
	VolumesSignKey       = "v1.Pod.Spec.Volumes.NonSyntheticSources()"
	FeaturesSignKey      = "v1.Pod.Spec.RequiredFeatures()"
)

// SignPlugin is implemented by a PreFilter, Filter, PreScore or Score
// plugin that can say what it reads of a pod. A profile signs pods, and
// so batches them, only when each such plugin of it is a SignPlugin.
type SignPlugin interface {
	Plugin
	// SignPod returns the parts of the pod the plugin's decisions depend
	// on. A status other than success says the pod cannot be signed: it
	// then shares no results with any other pod.
	SignPod(ctx context.Context, pod *v1.Pod) ([]SignFragment, *Status)
}

// HostPortsSignature is the pod's host ports, of every container, sorted
// and without repeats.
func HostPortsSignature(pod *v1.Pod) []int32 {
	ports := []int32{}
	for _, list := range [][]v1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for i := range list {
			for _, p := range list[i].Ports {
				if p.HostPort != 0 {
					ports = append(ports, p.HostPort)
				}
			}
		}
	}
	slices.Sort(ports)
	return slices.Compact(ports)
}

// TolerationsSignature is the pod's tolerations ordered by key, then value.
func TolerationsSignature(pod *v1.Pod) []v1.Toleration {
	out := slices.Clone(pod.Spec.Tolerations)
	if out == nil {
		out = []v1.Toleration{}
	}
	slices.SortStableFunc(out, func(a, b v1.Toleration) int {
		if c := strings.Compare(a.Key, b.Key); c != 0 {
			return c
		}
		return strings.Compare(a.Value, b.Value)
	})
	return out
}

// VolumesSignature is the sources of the pod's volumes, sorted, leaving
// out ConfigMaps and Secrets: they never affect where a pod goes and
// differ from pod to pod.
func VolumesSignature(pod *v1.Pod) ([]string, error) {
	out := []string{}
	for i := range pod.Spec.Volumes {
		src := &pod.Spec.Volumes[i].VolumeSource
		if src.ConfigMap != nil || src.Secret != nil {
			continue
		}
		b, err := json.Marshal(src)
		if err != nil {
			return nil, err
		}
		out = append(out, string(b))
	}
	slices.Sort(out)
	return out, nil
}

// nodeAffinitySignature is a pod's node affinity, each term in an order
// of its own.
type nodeAffinitySignature struct {
	Required  []string
	Preferred []string
}

// termSignature is a node selector term with its requirements sorted.
type termSignature struct {
	MatchExpressions []string
	MatchFields      []string
}

// preferredSignature is a preferred scheduling term and its weight.
type preferredSignature struct {
	Weight     int32
	Preference termSignature
}

// NodeAffinitySignature is the pod's node affinity with its terms and
// their values in a canonical order; nil when the pod has none.
func NodeAffinitySignature(pod *v1.Pod) (any, error) {
	if pod.Spec.Affinity == nil || pod.Spec.Affinity.NodeAffinity == nil {
		return nil, nil
	}
	na := pod.Spec.Affinity.NodeAffinity
	out := nodeAffinitySignature{Required: []string{}, Preferred: []string{}}
	if req := na.RequiredDuringSchedulingIgnoredDuringExecution; req != nil {
		for i := range req.NodeSelectorTerms {
			s, err := encodeTerm(&req.NodeSelectorTerms[i])
			if err != nil {
				return nil, err
			}
			out.Required = append(out.Required, s)
		}
		slices.Sort(out.Required)
	}
	for i := range na.PreferredDuringSchedulingIgnoredDuringExecution {
		p := &na.PreferredDuringSchedulingIgnoredDuringExecution[i]
		t, err := termOf(&p.Preference)
		if err != nil {
			return nil, err
		}
		b, err := json.Marshal(preferredSignature{Weight: p.Weight, Preference: t})
		if err != nil {
			return nil, err
		}
		out.Preferred = append(out.Preferred, string(b))
	}
	slices.Sort(out.Preferred)
	return out, nil
}

// encodeTerm is a node selector term's signature, encoded.
func encodeTerm(t *v1.NodeSelectorTerm) (string, error) {
	s, err := termOf(t)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(s)
	return string(b), err
}

// termOf is a node selector term with its requirements, and their
// values, sorted.
func termOf(t *v1.NodeSelectorTerm) (termSignature, error) {
	exprs, err := requirements(t.MatchExpressions)
	if err != nil {
		return termSignature{}, err
	}
	fields, err := requirements(t.MatchFields)
	if err != nil {
		return termSignature{}, err
	}
	return termSignature{MatchExpressions: exprs, MatchFields: fields}, nil
}

// requirements encodes each requirement with its values sorted, and
// sorts them.
func requirements(reqs []v1.NodeSelectorRequirement) ([]string, error) {
	out := make([]string, 0, len(reqs))
	for i := range reqs {
		r := reqs[i]
		r.Values = slices.Clone(r.Values)
		slices.Sort(r.Values)
		b, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		out = append(out, string(b))
	}
	slices.Sort(out)
	return out, nil
}
