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

package intern

import (
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	st "github.com/berth-io/berth/scheduler/schedtest"
)

// sharing lists what two pods have in common after the table saw both.
type sharing struct {
	labels, requests, limits, tolerations, ports, owners, securityContext, image, containers bool
}

func sharedParts(a, b *v1.Pod) sharing {
	ca, cb := &a.Spec.Containers[0], &b.Spec.Containers[0]
	return sharing{
		labels:          a.Labels != nil && sameMapPtr(a.Labels, b.Labels),
		requests:        ca.Resources.Requests != nil && sameMapPtr(ca.Resources.Requests, cb.Resources.Requests),
		limits:          ca.Resources.Limits != nil && sameMapPtr(ca.Resources.Limits, cb.Resources.Limits),
		tolerations:     len(a.Spec.Tolerations) > 0 && sameSlice(a.Spec.Tolerations, b.Spec.Tolerations),
		ports:           len(ca.Ports) > 0 && sameSlice(ca.Ports, cb.Ports),
		owners:          len(a.OwnerReferences) > 0 && sameSlice(a.OwnerReferences, b.OwnerReferences),
		securityContext: a.Spec.SecurityContext != nil && a.Spec.SecurityContext == b.Spec.SecurityContext,
		image:           unsafe.StringData(ca.Image) == unsafe.StringData(cb.Image),
		containers:      sameSlice(a.Spec.Containers, b.Spec.Containers),
	}
}

func sameMapPtr[M ~map[K]V, K comparable, V any](a, b M) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

func replica(name string) *v1.Pod {
	return decoded(apiPod(name).Label("app", "web").Label("pod-template-hash", "5d8f").
		Req("cpu", "100m").Req("memory", "500Mi").
		Limit("cpu", "100m").Limit("memory", "500Mi").
		Port(v1.ContainerPort{ContainerPort: 80, Protocol: v1.ProtocolTCP}).Toleration(noExecute(v1.TaintNodeNotReady, 300)).Toleration(noExecute(v1.TaintNodeUnreachable, 300)).
		Owner("apps/v1", "ReplicaSet", "web-5d8f").Obj())
}

func TestPodSharing(t *testing.T) {
	all := sharing{labels: true, requests: true, limits: true, tolerations: true, ports: true, owners: true, securityContext: true, image: true, containers: true}
	tests := []struct {
		name   string
		second *v1.Pod
		want   sharing
	}{
		{name: "replicas share everything", second: replica("web-2"), want: all},
		{name: "other labels", second: func() *v1.Pod { p := replica("web-2"); p.Labels["app"] = "db"; return p }(),
			want: sharing{requests: true, limits: true, tolerations: true, ports: true, owners: true, securityContext: true, image: true, containers: true}},
		{name: "a request differs", second: func() *v1.Pod {
			return decoded(apiPod("web-2").Label("app", "web").Label("pod-template-hash", "5d8f").
				Req("cpu", "200m").Req("memory", "500Mi").Limit("cpu", "100m").Limit("memory", "500Mi").
				Port(v1.ContainerPort{ContainerPort: 80, Protocol: v1.ProtocolTCP}).Toleration(noExecute(v1.TaintNodeNotReady, 300)).Toleration(noExecute(v1.TaintNodeUnreachable, 300)).Owner("apps/v1", "ReplicaSet", "web-5d8f").Obj())
		}(), want: sharing{labels: true, limits: true, tolerations: true, ports: true, owners: true, securityContext: true, image: true}},
		{name: "equal value, same canonical form", second: func() *v1.Pod {
			p := replica("web-2")
			p.Spec.Containers[0].Resources.Requests = decoded(apiPod("x").Req("cpu", "0.1").Req("memory", "500Mi").Obj()).Spec.Containers[0].Resources.Requests
			return p
		}(), want: all},
		{name: "equal value in another format", second: func() *v1.Pod {
			p := replica("web-2")
			p.Spec.Containers[0].Resources.Requests = decoded(apiPod("x").Req("cpu", "100m").Req("memory", "524288000").Obj()).Spec.Containers[0].Resources.Requests
			return p
		}(), want: func() sharing { s := all; s.requests, s.containers = false, false; return s }()},
		{name: "other toleration seconds", second: func() *v1.Pod {
			p := replica("web-2")
			s := int64(60)
			p.Spec.Tolerations[1].TolerationSeconds = &s
			return p
		}(), want: func() sharing { s := all; s.tolerations = false; return s }()},
		{name: "other owner", second: func() *v1.Pod { p := replica("web-2"); p.OwnerReferences[0].UID = "other"; return p }(),
			want: func() sharing { s := all; s.owners = false; return s }()},
		{name: "a non-empty security context stays the pod's own", second: func() *v1.Pod {
			user := int64(1000)
			return decoded(apiPod("web-2").SecurityContext(&v1.PodSecurityContext{RunAsUser: &user}).Obj())
		}(), want: sharing{image: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			table := New()
			first := replica("web-1")
			second := tt.second
			wantFirst, wantSecond := first.DeepCopy(), second.DeepCopy()
			for _, p := range []*v1.Pod{first, second} {
				got, err := table.Transform(p)
				if err != nil || got != p {
					t.Fatalf("Transform = %p, %v; want the same pod, nil", got, err)
				}
			}
			if !equality.Semantic.DeepEqual(first, wantFirst) || !equality.Semantic.DeepEqual(second, wantSecond) {
				t.Fatalf("interning changed a pod's content")
			}
			if diff := cmp.Diff(tt.want, sharedParts(first, second), cmp.AllowUnexported(sharing{})); diff != "" {
				t.Errorf("shared parts (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPodSharesScalarPointersAndStrings(t *testing.T) {
	table := New()
	a, b := replica("a"), replica("b")
	table.Pod(a)
	table.Pod(b)
	for name, same := range map[string]bool{
		"namespace":          unsafe.StringData(a.Namespace) == unsafe.StringData(b.Namespace),
		"scheduler name":     unsafe.StringData(a.Spec.SchedulerName) == unsafe.StringData(b.Spec.SchedulerName),
		"termination path":   unsafe.StringData(a.Spec.Containers[0].TerminationMessagePath) == unsafe.StringData(b.Spec.Containers[0].TerminationMessagePath),
		"grace period":       a.Spec.TerminationGracePeriodSeconds == b.Spec.TerminationGracePeriodSeconds,
		"priority":           a.Spec.Priority == b.Spec.Priority,
		"service links":      a.Spec.EnableServiceLinks == b.Spec.EnableServiceLinks,
		"preemption policy":  a.Spec.PreemptionPolicy == b.Spec.PreemptionPolicy,
		"toleration key":     unsafe.StringData(a.Spec.Tolerations[0].Key) == unsafe.StringData(b.Spec.Tolerations[0].Key),
		"name stays its own": unsafe.StringData(a.Name) != unsafe.StringData(b.Name),
	} {
		if !same {
			t.Errorf("%s: not as expected", name)
		}
	}
	if *a.Spec.TerminationGracePeriodSeconds != 30 || *a.Spec.PreemptionPolicy != v1.PreemptLowerPriority {
		t.Errorf("shared scalars changed value")
	}
}

func TestTransformIsIdempotent(t *testing.T) {
	table := New()
	first, second := replica("a"), replica("b")
	table.Pod(first)
	table.Pod(second)
	before := *second
	beforeSpec := second.Spec.Containers[0]
	if _, err := table.Transform(second); err != nil {
		t.Fatal(err)
	}
	if !sameMapPtr(before.Labels, second.Labels) || !sameSlice(before.Spec.Tolerations, second.Spec.Tolerations) ||
		!sameMapPtr(beforeSpec.Resources.Requests, second.Spec.Containers[0].Resources.Requests) {
		t.Errorf("a second Transform changed the pod's fields")
	}
}

func TestTableStartsAfreshWhenFull(t *testing.T) {
	table := New(WithMaxEntries(1))
	a := decoded(apiPod("a").Label("app", "a").Obj())
	b := decoded(apiPod("b").Label("app", "b").Obj())
	a2 := decoded(apiPod("a2").Label("app", "a").Obj())
	for _, p := range []*v1.Pod{a, b, a2} {
		table.Pod(p)
	}
	if len(table.labels) != 1 {
		t.Errorf("label maps held = %d, want at most 1", len(table.labels))
	}
	// a's map was dropped when b's came in, so a2 keeps its own.
	if sameMapPtr(a.Labels, a2.Labels) {
		t.Errorf("a2 shares a map the full table had dropped")
	}
	if a2.Labels["app"] != "a" || b.Labels["app"] != "b" {
		t.Errorf("labels changed: %v %v", a2.Labels, b.Labels)
	}
}

func TestNodeSharing(t *testing.T) {
	table := New()
	a := decoded(apiNode("n1").Alloc("cpu", "4", "memory", "32Gi").Obj())
	b := decoded(apiNode("n2").Alloc("cpu", "4", "memory", "32Gi").Obj())
	c := decoded(apiNode("n3").Alloc("cpu", "8", "memory", "32Gi").Obj())
	want := []*v1.Node{a.DeepCopy(), b.DeepCopy(), c.DeepCopy()}
	for _, n := range []*v1.Node{a, b, c} {
		if _, err := table.Transform(n); err != nil {
			t.Fatal(err)
		}
	}
	for i, n := range []*v1.Node{a, b, c} {
		if !equality.Semantic.DeepEqual(n, want[i]) {
			t.Errorf("node %s changed", n.Name)
		}
	}
	if !sameMapPtr(a.Status.Capacity, b.Status.Capacity) || !sameMapPtr(a.Status.Allocatable, b.Status.Capacity) {
		t.Errorf("equal capacities are not shared")
	}
	if sameMapPtr(a.Status.Capacity, c.Status.Capacity) {
		t.Errorf("different capacities are shared")
	}
	if sameMapPtr(a.Labels, b.Labels) {
		t.Errorf("node labels are shared")
	}
	if unsafe.StringData(a.Status.Conditions[0].Message) != unsafe.StringData(c.Status.Conditions[0].Message) ||
		unsafe.StringData(a.Status.NodeInfo.KubeletVersion) != unsafe.StringData(b.Status.NodeInfo.KubeletVersion) {
		t.Errorf("node strings are not shared")
	}
}

func TestTransformPassesOtherObjects(t *testing.T) {
	ns := &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default", Labels: map[string]string{"a": "b"}}}
	got, err := New().Transform(ns)
	if err != nil || got != ns {
		t.Errorf("Transform(namespace) = %v, %v; want it unchanged", got, err)
	}
	if got, err := New().Transform((*v1.Pod)(nil)); err != nil || got != (*v1.Pod)(nil) {
		t.Errorf("Transform(nil pod) = %v, %v", got, err)
	}
}

func TestPodSharesAnnotationsCommandsAndPlainEnv(t *testing.T) {
	build := func(name string) *st.PodBuilder {
		return apiPod(name).Annotation("prometheus.io/scrape", "true").Command("/app", "--port=80").Env("MODE", "prod")
	}
	tests := []struct {
		name                          string
		first, second                 *v1.Pod
		annotations, command, envVars bool
	}{
		{name: "replicas", first: decoded(build("a").Obj()), second: decoded(build("b").Obj()), annotations: true, command: true, envVars: true},
		{name: "other annotation", first: decoded(build("a").Obj()), second: decoded(build("b").Annotation("extra", "1").Obj()), command: true, envVars: true},
		{name: "other command", first: decoded(build("a").Obj()), second: decoded(build("b").Command("/app", "--port=80", "--debug").Obj()), annotations: true, envVars: true},
		{name: "env read from a field stays the pod's own", first: decoded(build("a").EnvFrom("NODE", fieldRef("spec.nodeName")).Obj()),
			second: decoded(build("b").EnvFrom("NODE", fieldRef("spec.nodeName")).Obj()), annotations: true, command: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			table := New()
			want := tt.second.DeepCopy()
			table.Pod(tt.first)
			table.Pod(tt.second)
			if !equality.Semantic.DeepEqual(tt.second, want) {
				t.Fatalf("interning changed the pod")
			}
			ca, cb := tt.first.Spec.Containers[0], tt.second.Spec.Containers[0]
			if got := sameMapPtr(tt.first.Annotations, tt.second.Annotations); got != tt.annotations {
				t.Errorf("annotations shared = %v, want %v", got, tt.annotations)
			}
			if got := sameSlice(ca.Command, cb.Command); got != tt.command {
				t.Errorf("command shared = %v, want %v", got, tt.command)
			}
			if got := sameSlice(ca.Env, cb.Env); got != tt.envVars {
				t.Errorf("env shared = %v, want %v", got, tt.envVars)
			}
		})
	}
}

func TestNodeSharesLabelStringsAndImageNames(t *testing.T) {
	const digest = "registry.k8s.io/pause@sha256:ee6521f290b2168b6e0935a181d4cff9be1ac3f505666ef0e3c98fae8199917a"
	table := New()
	a := decoded(apiNode("n1").Label(v1.LabelArchStable, "amd64").Image(300, digest, "registry.k8s.io/pause:3.10.2").Obj())
	b := decoded(apiNode("n2").Label(v1.LabelArchStable, "amd64").Image(300, digest, "registry.k8s.io/pause:3.10.2").Obj())
	want := b.DeepCopy()
	table.Node(a)
	table.Node(b)
	if !equality.Semantic.DeepEqual(b, want) {
		t.Fatalf("interning changed the node")
	}
	if sameMapPtr(a.Labels, b.Labels) {
		t.Errorf("nodes share one label map")
	}
	for k, v := range b.Labels {
		ka, va := keyOf(a.Labels, k)
		if k == v1.LabelArchStable && (!sameString(k, ka) || !sameString(v, va)) {
			t.Errorf("label %s: strings not shared", k)
		}
	}
	if !sameString(a.Status.Images[0].Names[0], b.Status.Images[0].Names[0]) {
		t.Errorf("image names not shared")
	}
	labels := b.Labels
	table.Node(b)
	if !sameMapPtr(labels, b.Labels) {
		t.Errorf("a second Node call replaced the interned label map")
	}
}

// keyOf returns m's own copies of key k and its value.
func keyOf(m map[string]string, k string) (string, string) {
	for key, v := range m {
		if key == k {
			return key, v
		}
	}
	return "", ""
}

func TestContainersShared(t *testing.T) {
	withProbe := func(p *v1.Pod) *v1.Pod {
		p.Spec.Containers[0].LivenessProbe = &v1.Probe{PeriodSeconds: 10}
		return p
	}
	withInit := func(p *v1.Pod) *v1.Pod {
		p.Spec.InitContainers = []v1.Container{{Name: strings.Clone("init"), Image: strings.Clone("busybox:1")}}
		return p
	}
	tests := []struct {
		name           string
		a, b           *v1.Pod
		wantContainers bool
		wantInit       bool
	}{
		{name: "replicas", a: replica("a"), b: replica("b"), wantContainers: true},
		{name: "replicas with init containers", a: withInit(replica("a")), b: withInit(replica("b")), wantContainers: true, wantInit: true},
		{name: "equal probes of their own", a: withProbe(replica("a")), b: withProbe(replica("b"))},
		{name: "another image", a: replica("a"), b: func() *v1.Pod { p := replica("b"); p.Spec.Containers[0].Image = "other:2"; return p }()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			table := internBoth(t, tt.a, tt.b)
			if got := sameSlice(tt.a.Spec.Containers, tt.b.Spec.Containers); got != tt.wantContainers {
				t.Errorf("containers shared = %v, want %v", got, tt.wantContainers)
			}
			if got := len(tt.a.Spec.InitContainers) > 0 && sameSlice(tt.a.Spec.InitContainers, tt.b.Spec.InitContainers); got != tt.wantInit {
				t.Errorf("init containers shared = %v, want %v", got, tt.wantInit)
			}
			// A second pass writes nothing: the shared slice stays.
			before := tt.b.Spec.Containers
			table.Pod(tt.b)
			if !sameSlice(before, tt.b.Spec.Containers) {
				t.Error("a second transform replaced the containers")
			}
		})
	}
}

// internBoth interns a then b in a new table, checks that neither pod's
// content changed, and returns the table.
func internBoth(t *testing.T, a, b *v1.Pod) *Table {
	t.Helper()
	table := New()
	wantA, wantB := a.DeepCopy(), b.DeepCopy()
	table.Pod(a)
	table.Pod(b)
	if !equality.Semantic.DeepEqual(a, wantA) || !equality.Semantic.DeepEqual(b, wantB) {
		t.Fatal("interning changed a pod's content")
	}
	return table
}

func TestConditionsShared(t *testing.T) {
	tests := []struct {
		name string
		a, b *v1.Pod
		want bool
	}{
		{name: "bound in the same second", a: decoded(apiPod("a").Condition(scheduledAt(100)).Obj()), b: decoded(apiPod("b").Condition(scheduledAt(100)).Obj()), want: true},
		{name: "bound in another second", a: decoded(apiPod("a").Condition(scheduledAt(100)).Obj()), b: decoded(apiPod("b").Condition(scheduledAt(101)).Obj())},
		{name: "another reason", a: decoded(apiPod("a").Condition(scheduledAt(100)).Obj()), b: func() *v1.Pod {
			p := decoded(apiPod("b").Condition(scheduledAt(100)).Obj())
			p.Status.Conditions[0].Reason = "Other"
			return p
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			internBoth(t, tt.a, tt.b)
			if got := sameSlice(tt.a.Status.Conditions, tt.b.Status.Conditions); got != tt.want {
				t.Errorf("conditions shared = %v, want %v", got, tt.want)
			}
		})
	}
}
