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

package noderesources

import (
	"slices"
	"testing"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	resourcelisters "k8s.io/client-go/listers/resource/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/extendedresource"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// implicitGPU is the implicit extended resource name of the DeviceClass "gpu-class".
const implicitGPU = resourceapi.ResourceDeviceClassPrefix + "gpu-class"

var deviceClassChanged = framework.ClusterEvent{Resource: framework.DeviceClass, ActionType: framework.Add | framework.Update}

// draClass returns a DeviceClass named name serving the extended resource
// ext, when ext is set, besides its implicit name.
func draClass(name, ext string) *resourceapi.DeviceClass {
	c := &resourceapi.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if ext != "" {
		c.Spec.ExtendedResourceName = ptr.To(ext)
	}
	return c
}

// draClasses returns a resolver over a lister of the classes.
func draClasses(t testing.TB, classes ...*resourceapi.DeviceClass) *extendedresource.Classes {
	t.Helper()
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, c := range classes {
		if err := idx.Add(c); err != nil {
			t.Fatal(err)
		}
	}
	return extendedresource.NewClasses(resourcelisters.NewDeviceClassLister(idx))
}

// fitWith builds Fit from default args, resolving extended resources through
// the classes, or through none when classes is nil (no WithDeviceClasses).
func fitWith(t testing.TB, classes *extendedresource.Classes) *Fit {
	t.Helper()
	a, err := args.Load[NodeResourcesFitArgs]("test", nil)
	if err != nil {
		t.Fatal(err)
	}
	if classes == nil {
		return NewFitWithArgs(a)
	}
	return NewFitWithArgs(a, WithDeviceClasses(classes))
}

// fitStatus is what the tests compare of a Filter status.
type fitStatus struct {
	Code    framework.Code
	Reasons []string
}

func statusOf(s *framework.Status) fitStatus {
	return fitStatus{Code: s.Code(), Reasons: s.Reasons()}
}

func TestFitLeavesDRAExtendedResourcesToDynamicResources(t *testing.T) {
	U, UU := framework.Unschedulable, framework.UnschedulableAndUnresolvable
	base := alloc("cpu", "4", "memory", "8Gi", "pods", "10")
	withGPU := func(n string) []string { return append(slices.Clone(base), gpu, n) }
	gpuClass := draClass("gpu-class", gpu)
	plainClass := draClass("gpu-class", "")
	tests := []struct {
		name string
		// noClasses builds Fit without WithDeviceClasses; classes are
		// then ignored.
		noClasses bool
		classes   []*resourceapi.DeviceClass
		pod       *v1.Pod
		ni        *framework.NodeInfo
		want      fitStatus
	}{
		{name: "explicit name, node without allocatable", classes: []*resourceapi.DeviceClass{gpuClass},
			pod: pod("cpu", "1", gpu, "1"), ni: node(base), want: fitStatus{Code: framework.Success}},
		{name: "explicit name, node with zero allocatable", classes: []*resourceapi.DeviceClass{gpuClass},
			pod: pod(gpu, "1"), ni: node(withGPU("0")), want: fitStatus{Code: framework.Success}},
		{name: "explicit name of one of several classes", classes: []*resourceapi.DeviceClass{draClass("fpga-class", "example.com/fpga"), gpuClass},
			pod: pod(gpu, "1"), ni: node(base), want: fitStatus{Code: framework.Success}},
		{name: "implicit name of a class without explicit name", classes: []*resourceapi.DeviceClass{plainClass},
			pod: pod(implicitGPU, "2"), ni: node(base), want: fitStatus{Code: framework.Success}},
		{name: "implicit name of a class with an explicit name", classes: []*resourceapi.DeviceClass{gpuClass},
			pod: pod(implicitGPU, "1"), ni: node(base), want: fitStatus{Code: framework.Success}},
		{name: "device plugin node with enough", classes: []*resourceapi.DeviceClass{gpuClass},
			pod: pod(gpu, "1"), ni: node(withGPU("2"), assigned("a", gpu, "1")), want: fitStatus{Code: framework.Success}},
		{name: "device plugin node with too few free", classes: []*resourceapi.DeviceClass{gpuClass},
			pod: pod(gpu, "2"), ni: node(withGPU("2"), assigned("a", gpu, "1")),
			want: fitStatus{Code: U, Reasons: []string{"Insufficient example.com/gpu"}}},
		{name: "device plugin node with too few at all", classes: []*resourceapi.DeviceClass{gpuClass},
			pod: pod(gpu, "3"), ni: node(withGPU("2")),
			want: fitStatus{Code: UU, Reasons: []string{"Insufficient example.com/gpu"}}},
		{name: "no class at all", pod: pod(gpu, "1"), ni: node(base),
			want: fitStatus{Code: UU, Reasons: []string{"Insufficient example.com/gpu"}}},
		{name: "only a class serving another name", classes: []*resourceapi.DeviceClass{draClass("fpga-class", "example.com/fpga")},
			pod: pod(gpu, "1"), ni: node(base),
			want: fitStatus{Code: UU, Reasons: []string{"Insufficient example.com/gpu"}}},
		{name: "a class's name is not its extended resource name", classes: []*resourceapi.DeviceClass{draClass("example.com-gpu", "")},
			pod: pod(gpu, "1"), ni: node(base),
			want: fitStatus{Code: UU, Reasons: []string{"Insufficient example.com/gpu"}}},
		{name: "implicit name of a missing class", classes: []*resourceapi.DeviceClass{draClass("other-class", "")},
			pod: pod(implicitGPU, "1"), ni: node(base),
			want: fitStatus{Code: UU, Reasons: []string{"Insufficient " + implicitGPU}}},
		{name: "served and unserved resources", classes: []*resourceapi.DeviceClass{gpuClass},
			pod: pod(gpu, "1", "example.com/fpga", "1"), ni: node(base),
			want: fitStatus{Code: UU, Reasons: []string{"Insufficient example.com/fpga"}}},
		{name: "without WithDeviceClasses", noClasses: true, classes: []*resourceapi.DeviceClass{gpuClass},
			pod: pod(gpu, "1"), ni: node(base),
			want: fitStatus{Code: UU, Reasons: []string{"Insufficient example.com/gpu"}}},
		{name: "without WithDeviceClasses, implicit name", noClasses: true, classes: []*resourceapi.DeviceClass{plainClass},
			pod: pod(implicitGPU, "1"), ni: node(base),
			want: fitStatus{Code: UU, Reasons: []string{"Insufficient " + implicitGPU}}},
		{name: "short of cpu beyond allocatable", classes: []*resourceapi.DeviceClass{gpuClass},
			pod: pod("cpu", "5", gpu, "1"), ni: node(base),
			want: fitStatus{Code: UU, Reasons: []string{"Insufficient cpu"}}},
		{name: "short of free cpu", classes: []*resourceapi.DeviceClass{gpuClass},
			pod: pod("cpu", "2", gpu, "1"), ni: node(base, assigned("a", "cpu", "3")),
			want: fitStatus{Code: U, Reasons: []string{"Insufficient cpu"}}},
		{name: "short of cpu, without WithDeviceClasses", noClasses: true, classes: []*resourceapi.DeviceClass{gpuClass},
			pod: pod("cpu", "2", gpu, "1"), ni: node(base, assigned("a", "cpu", "3")),
			want: fitStatus{Code: UU, Reasons: []string{"Insufficient cpu", "Insufficient example.com/gpu"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var classes *extendedresource.Classes
			if !tt.noClasses {
				classes = draClasses(t, tt.classes...)
			}
			got := statusOf(filter(fitWith(t, classes), tt.pod, tt.ni))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("PreFilter+Filter status (-want +got):\n%s", diff)
			}
		})
	}
}

func TestIsSchedulableAfterDeviceClassChange(t *testing.T) {
	wantsGPU := pod("cpu", "1", gpu, "1")
	wantsImplicit := pod(implicitGPU, "1")
	relabeled := func(c *resourceapi.DeviceClass) *resourceapi.DeviceClass {
		c = c.DeepCopy()
		c.Labels = map[string]string{"tier": "gold"}
		return c
	}
	tests := []struct {
		name     string
		pod      *v1.Pod
		old, cur any
		want     framework.QueueingHint
		wantErr  bool
	}{
		{name: "added class serves the requested name", pod: wantsGPU,
			cur: draClass("gpu-class", gpu), want: framework.Queue},
		{name: "added class serves another name", pod: wantsGPU,
			cur: draClass("fpga-class", "example.com/fpga"), want: framework.QueueSkip},
		{name: "added class without explicit name", pod: wantsGPU,
			cur: draClass("gpu-class", ""), want: framework.QueueSkip},
		{name: "added class serves a name requested by an init container", pod: st.Pod("p").Init(gpu, "1").Container("cpu", "1").Obj(),
			cur: draClass("gpu-class", gpu), want: framework.Queue},
		{name: "added class serves a name requested at zero", pod: pod("cpu", "1", gpu, "0"),
			cur: draClass("gpu-class", gpu), want: framework.QueueSkip},
		{name: "added class, pod requests no extended resource", pod: pod("cpu", "1"),
			cur: draClass("gpu-class", gpu), want: framework.QueueSkip},
		{name: "added class of the requested implicit name", pod: wantsImplicit,
			cur: draClass("gpu-class", ""), want: framework.Queue},
		{name: "added class of the requested implicit name, with an explicit one", pod: wantsImplicit,
			cur: draClass("gpu-class", "example.com/other"), want: framework.Queue},
		{name: "added class of another implicit name", pod: wantsImplicit,
			cur: draClass("other-class", ""), want: framework.QueueSkip},
		{name: "update sets the requested name", pod: wantsGPU,
			old: draClass("gpu-class", ""), cur: draClass("gpu-class", gpu), want: framework.Queue},
		{name: "update renames to the requested name", pod: wantsGPU,
			old: draClass("gpu-class", "example.com/old"), cur: draClass("gpu-class", gpu), want: framework.Queue},
		{name: "update leaves the requested name unchanged", pod: wantsGPU,
			old: draClass("gpu-class", gpu), cur: relabeled(draClass("gpu-class", gpu)), want: framework.QueueSkip},
		{name: "update drops the requested name", pod: wantsGPU,
			old: draClass("gpu-class", gpu), cur: draClass("gpu-class", ""), want: framework.QueueSkip},
		{name: "update renames away from the requested name", pod: wantsGPU,
			old: draClass("gpu-class", gpu), cur: draClass("gpu-class", "example.com/other"), want: framework.QueueSkip},
		{name: "update renames to another name", pod: wantsGPU,
			old: draClass("gpu-class", "example.com/old"), cur: draClass("gpu-class", "example.com/other"), want: framework.QueueSkip},
		{name: "update of the class of the requested implicit name", pod: wantsImplicit,
			old: draClass("gpu-class", ""), cur: relabeled(draClass("gpu-class", "")), want: framework.QueueSkip},
		{name: "update sets an explicit name on the class of the requested implicit name", pod: wantsImplicit,
			old: draClass("gpu-class", ""), cur: draClass("gpu-class", "example.com/other"), want: framework.QueueSkip},
		{name: "new object of the wrong type", pod: wantsGPU, cur: &v1.Node{}, want: framework.Queue, wantErr: true},
		{name: "old object of the wrong type", pod: wantsGPU, old: &v1.Node{}, cur: draClass("gpu-class", gpu), want: framework.Queue, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The hint is the one registered for DeviceClass events, whether
			// or not the plugin resolves classes.
			for _, pl := range []*Fit{fitWith(t, nil), fitWith(t, draClasses(t))} {
				got, err := hintFor(t, pl, deviceClassChanged)(logr.Discard(), tt.pod, tt.old, tt.cur)
				if (err != nil) != tt.wantErr || got != tt.want {
					t.Errorf("hint = %v, err %v; want %v, error %v", got, err, tt.want, tt.wantErr)
				}
			}
		})
	}
}

func TestIsSchedulableAfterNodeChangeWithDRA(t *testing.T) {
	nodeChanged := framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add | framework.UpdateNodeAllocatable}
	nodeWith := func(pairs ...string) *v1.Node { return st.Node("n").Alloc(pairs...).Obj() }
	wantsGPU := pod("cpu", "2", gpu, "1")
	onlyGPU := pod(gpu, "1")
	tests := []struct {
		name     string
		pod      *v1.Pod
		old, cur *v1.Node
		// withClasses is the hint when a class serves example.com/gpu;
		// without, when Fit has no WithDeviceClasses.
		withClasses, without framework.QueueingHint
	}{
		{name: "node without the resource grew cpu", pod: wantsGPU,
			old: nodeWith("cpu", "1", "pods", "10"), cur: nodeWith("cpu", "4", "pods", "10"),
			withClasses: framework.Queue, without: framework.QueueSkip},
		{name: "node without the resource added", pod: wantsGPU,
			cur:         nodeWith("cpu", "4", "pods", "10"),
			withClasses: framework.Queue, without: framework.QueueSkip},
		{name: "node without the resource grew what the pod does not request", pod: onlyGPU,
			old: nodeWith("cpu", "4", "pods", "10"), cur: nodeWith("cpu", "4", "memory", "8Gi", "pods", "10"),
			withClasses: framework.Queue, without: framework.QueueSkip},
		{name: "node with zero of the resource grew what the pod does not request", pod: onlyGPU,
			old: nodeWith("cpu", "4", gpu, "0", "pods", "10"), cur: nodeWith("cpu", "4", gpu, "0", "memory", "8Gi", "pods", "10"),
			withClasses: framework.Queue, without: framework.QueueSkip},
		{name: "node without the resource grew cpu, still too little", pod: wantsGPU,
			old: nodeWith("cpu", "1", "pods", "10"), cur: nodeWith("cpu", "1500m", "pods", "10"),
			withClasses: framework.QueueSkip, without: framework.QueueSkip},
		{name: "node without the resource nor pod room", pod: wantsGPU,
			old: nodeWith("cpu", "1"), cur: nodeWith("cpu", "4"),
			withClasses: framework.QueueSkip, without: framework.QueueSkip},
		{name: "device plugin node grew what the pod does not request", pod: onlyGPU,
			old: nodeWith("cpu", "4", gpu, "1", "pods", "10"), cur: nodeWith("cpu", "4", gpu, "1", "memory", "8Gi", "pods", "10"),
			withClasses: framework.QueueSkip, without: framework.QueueSkip},
		{name: "device plugin node grew the resource", pod: onlyGPU,
			old: nodeWith("cpu", "4", gpu, "1", "pods", "10"), cur: nodeWith("cpu", "4", gpu, "2", "pods", "10"),
			withClasses: framework.Queue, without: framework.Queue},
		{name: "node without an unserved resource grew cpu", pod: pod("cpu", "2", "example.com/fpga", "1"),
			old: nodeWith("cpu", "1", "pods", "10"), cur: nodeWith("cpu", "4", "pods", "10"),
			withClasses: framework.QueueSkip, without: framework.QueueSkip},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Typed nils would not read as an added node.
			var old, cur any
			if tt.old != nil {
				old = tt.old
			}
			if tt.cur != nil {
				cur = tt.cur
			}
			for _, c := range []struct {
				what    string
				classes *extendedresource.Classes
				want    framework.QueueingHint
			}{
				{"with classes", draClasses(t, draClass("gpu-class", gpu)), tt.withClasses},
				{"without classes", nil, tt.without},
			} {
				got, err := hintFor(t, fitWith(t, c.classes), nodeChanged)(logr.Discard(), tt.pod, old, cur)
				if err != nil || got != c.want {
					t.Errorf("%s: hint = %v, err %v; want %v", c.what, got, err, c.want)
				}
			}
		})
	}
}
