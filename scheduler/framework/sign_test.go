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
	"encoding/json"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
)

// encode is the JSON a signature fragment's value becomes.
func encode(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func signPod(spec v1.PodSpec) *v1.Pod { return &v1.Pod{Spec: spec} }

func TestHostPortsSignature(t *testing.T) {
	ports := func(hostPorts ...int32) []v1.ContainerPort {
		out := make([]v1.ContainerPort, len(hostPorts))
		for i, p := range hostPorts {
			out[i] = v1.ContainerPort{ContainerPort: 8080, HostPort: p}
		}
		return out
	}
	tests := []struct {
		name string
		pod  *v1.Pod
		want []int32
	}{
		{name: "no containers", pod: signPod(v1.PodSpec{}), want: []int32{}},
		{name: "container ports only", pod: signPod(v1.PodSpec{Containers: []v1.Container{{Ports: ports(0, 0)}}}), want: []int32{}},
		{name: "sorted", pod: signPod(v1.PodSpec{Containers: []v1.Container{{Ports: ports(443, 80)}}}), want: []int32{80, 443}},
		{name: "repeats dropped across containers", pod: signPod(v1.PodSpec{
			Containers:     []v1.Container{{Ports: ports(80, 443)}, {Ports: ports(80)}},
			InitContainers: []v1.Container{{Ports: ports(443, 53)}},
		}), want: []int32{53, 80, 443}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := HostPortsSignature(tt.pod)
			if !slices.Equal(got, tt.want) || got == nil {
				t.Errorf("HostPortsSignature = %#v, want %#v", got, tt.want)
			}
		})
	}
	// The same ports over another protocol are the same ports here.
	udp := signPod(v1.PodSpec{Containers: []v1.Container{{Ports: []v1.ContainerPort{{HostPort: 80, Protocol: v1.ProtocolUDP}}}}})
	tcp := signPod(v1.PodSpec{Containers: []v1.Container{{Ports: []v1.ContainerPort{{HostPort: 80, Protocol: v1.ProtocolTCP}}}}})
	if a, b := encode(t, HostPortsSignature(udp)), encode(t, HostPortsSignature(tcp)); a != b {
		t.Errorf("UDP signs %s, TCP %s", a, b)
	}
}

func TestTolerationsSignature(t *testing.T) {
	a := v1.Toleration{Key: "a", Operator: v1.TolerationOpEqual, Value: "1", Effect: v1.TaintEffectNoSchedule}
	a2 := v1.Toleration{Key: "a", Operator: v1.TolerationOpEqual, Value: "2", Effect: v1.TaintEffectNoSchedule}
	b := v1.Toleration{Key: "b", Operator: v1.TolerationOpExists}
	all := v1.Toleration{Operator: v1.TolerationOpExists}
	sign := func(tols ...v1.Toleration) string {
		return encode(t, TolerationsSignature(signPod(v1.PodSpec{Tolerations: tols})))
	}

	if got, want := sign(), "[]"; got != want {
		t.Errorf("no tolerations sign %s, want %s", got, want)
	}
	alike := [][2][]v1.Toleration{
		{{a, b}, {b, a}},
		{{b, a2, a, all}, {all, a, a2, b}},
	}
	for _, p := range alike {
		if x, y := sign(p[0]...), sign(p[1]...); x != y {
			t.Errorf("%v signs %s, %v %s: want them alike", p[0], x, p[1], y)
		}
	}
	apart := [][2][]v1.Toleration{
		{{a}, {a2}},
		{{a}, {a, b}},
		{{a}, {{Key: "a", Operator: v1.TolerationOpEqual, Value: "1", Effect: v1.TaintEffectNoExecute}}},
	}
	for _, p := range apart {
		if x, y := sign(p[0]...), sign(p[1]...); x == y {
			t.Errorf("%v and %v both sign %s: want them apart", p[0], p[1], x)
		}
	}
	if got := TolerationsSignature(signPod(v1.PodSpec{Tolerations: []v1.Toleration{b, a2, a}})); !slices.Equal(got, []v1.Toleration{a, a2, b}) {
		t.Errorf("TolerationsSignature = %v, want by key then value", got)
	}

	// The pod's own tolerations keep their order.
	pod := signPod(v1.PodSpec{Tolerations: []v1.Toleration{b, a}})
	TolerationsSignature(pod)
	if !slices.Equal(pod.Spec.Tolerations, []v1.Toleration{b, a}) {
		t.Errorf("the pod's tolerations were reordered: %v", pod.Spec.Tolerations)
	}
}

func TestVolumesSignature(t *testing.T) {
	secret := v1.Volume{Name: "token", VolumeSource: v1.VolumeSource{Secret: &v1.SecretVolumeSource{SecretName: "token"}}}
	configMap := v1.Volume{Name: "cfg", VolumeSource: v1.VolumeSource{ConfigMap: &v1.ConfigMapVolumeSource{LocalObjectReference: v1.LocalObjectReference{Name: "cfg"}}}}
	claim := func(volume, name string) v1.Volume {
		return v1.Volume{Name: volume, VolumeSource: v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: name}}}
	}
	scratch := v1.Volume{Name: "scratch", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}}
	sign := func(vols ...v1.Volume) string {
		t.Helper()
		got, err := VolumesSignature(signPod(v1.PodSpec{Volumes: vols}))
		if err != nil {
			t.Fatal(err)
		}
		return encode(t, got)
	}

	for _, vols := range [][]v1.Volume{nil, {secret}, {configMap, secret}} {
		if got := sign(vols...); got != "[]" {
			t.Errorf("%v signs %s, want []", vols, got)
		}
	}
	alike := [][2][]v1.Volume{
		{{claim("data", "a")}, {claim("data", "a"), secret, configMap}},
		{{claim("x", "a")}, {claim("y", "a")}},
		{{claim("data", "a"), claim("logs", "b"), scratch}, {scratch, claim("logs", "b"), configMap, claim("data", "a")}},
	}
	for _, p := range alike {
		if x, y := sign(p[0]...), sign(p[1]...); x != y {
			t.Errorf("signed %s and %s: want them alike", x, y)
		}
	}
	apart := [][2][]v1.Volume{
		{{claim("data", "a")}, {claim("data", "b")}},
		{{claim("data", "a")}, {claim("data", "a"), scratch}},
		{{secret}, {scratch}},
	}
	for _, p := range apart {
		if x, y := sign(p[0]...), sign(p[1]...); x == y {
			t.Errorf("both signed %s: want them apart", x)
		}
	}
}

func TestNodeAffinitySignature(t *testing.T) {
	req := func(key string, values ...string) v1.NodeSelectorRequirement {
		return v1.NodeSelectorRequirement{Key: key, Operator: v1.NodeSelectorOpIn, Values: values}
	}
	labels := func(reqs ...v1.NodeSelectorRequirement) v1.NodeSelectorTerm {
		return v1.NodeSelectorTerm{MatchExpressions: reqs}
	}
	fields := func(reqs ...v1.NodeSelectorRequirement) v1.NodeSelectorTerm {
		return v1.NodeSelectorTerm{MatchFields: reqs}
	}
	pref := func(w int32, term v1.NodeSelectorTerm) v1.PreferredSchedulingTerm {
		return v1.PreferredSchedulingTerm{Weight: w, Preference: term}
	}
	pod := func(required []v1.NodeSelectorTerm, preferred ...v1.PreferredSchedulingTerm) *v1.Pod {
		na := &v1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: preferred}
		if required != nil {
			na.RequiredDuringSchedulingIgnoredDuringExecution = &v1.NodeSelector{NodeSelectorTerms: required}
		}
		return signPod(v1.PodSpec{Affinity: &v1.Affinity{NodeAffinity: na}})
	}
	terms := func(ts ...v1.NodeSelectorTerm) []v1.NodeSelectorTerm { return ts }
	sign := func(p *v1.Pod) string {
		t.Helper()
		got, err := NodeAffinitySignature(p)
		if err != nil {
			t.Fatal(err)
		}
		return encode(t, got)
	}

	for name, p := range map[string]*v1.Pod{
		"no affinity":       signPod(v1.PodSpec{}),
		"pod affinity only": signPod(v1.PodSpec{Affinity: &v1.Affinity{PodAffinity: &v1.PodAffinity{}}}),
	} {
		if got := sign(p); got != "null" {
			t.Errorf("%s signs %s, want null", name, got)
		}
	}

	zone := labels(req("zone", "a", "b"))
	disk := labels(req("disk", "ssd"))
	alike := []struct {
		name string
		a, b *v1.Pod
	}{
		{"values in another order", pod(terms(zone)), pod(terms(labels(req("zone", "b", "a"))))},
		{"terms in another order", pod(terms(zone, disk)), pod(terms(disk, zone))},
		{"requirements in another order", pod(terms(labels(req("zone", "a"), req("disk", "ssd")))), pod(terms(labels(req("disk", "ssd"), req("zone", "a"))))},
		{"field requirements in another order",
			pod(terms(fields(req("metadata.name", "n2", "n1"), req("metadata.uid", "u")))),
			pod(terms(fields(req("metadata.uid", "u"), req("metadata.name", "n1", "n2"))))},
		{"preferred terms in another order",
			pod(nil, pref(1, zone), pref(5, disk)), pod(nil, pref(5, disk), pref(1, labels(req("zone", "b", "a"))))},
	}
	for _, tt := range alike {
		if a, b := sign(tt.a), sign(tt.b); a != b {
			t.Errorf("%s: signed %s and %s, want them alike", tt.name, a, b)
		}
	}
	apart := []struct {
		name string
		a, b *v1.Pod
	}{
		{"another value", pod(terms(zone)), pod(terms(labels(req("zone", "a", "c"))))},
		{"one term or two", pod(terms(zone)), pod(terms(zone, disk))},
		{"two terms or one of two requirements", pod(terms(zone, disk)), pod(terms(labels(req("zone", "a", "b"), req("disk", "ssd"))))},
		{"labels or fields", pod(terms(labels(req("metadata.name", "n1")))), pod(terms(fields(req("metadata.name", "n1"))))},
		{"required or preferred", pod(terms(zone)), pod(nil, pref(1, zone))},
		{"another weight", pod(nil, pref(1, zone)), pod(nil, pref(2, zone))},
		{"another operator", pod(terms(zone)), pod(terms(labels(v1.NodeSelectorRequirement{Key: "zone", Operator: v1.NodeSelectorOpNotIn, Values: []string{"a", "b"}})))},
	}
	for _, tt := range apart {
		if a, b := sign(tt.a), sign(tt.b); a == b {
			t.Errorf("%s: both signed %s, want them apart", tt.name, a)
		}
	}

	// The pod's own values keep their order.
	p := pod(terms(labels(req("zone", "b", "a"))), pref(1, labels(req("disk", "z", "y"))))
	sign(p)
	na := p.Spec.Affinity.NodeAffinity
	if got := na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchExpressions[0].Values; !slices.Equal(got, []string{"b", "a"}) {
		t.Errorf("the pod's required values were reordered: %v", got)
	}
	if got := na.PreferredDuringSchedulingIgnoredDuringExecution[0].Preference.MatchExpressions[0].Values; !slices.Equal(got, []string{"z", "y"}) {
		t.Errorf("the pod's preferred values were reordered: %v", got)
	}
}
