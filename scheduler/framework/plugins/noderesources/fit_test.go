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
	"context"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

const gpu = "example.com/gpu"

func TestFitFilter(t *testing.T) {
	std := alloc("cpu", "4", "memory", "8Gi", "ephemeral-storage", "10Gi", "pods", "10", gpu, "2")
	U, UU := framework.Unschedulable, framework.UnschedulableAndUnresolvable
	tests := []struct {
		name    string
		args    string
		pod     *v1.Pod
		ni      *framework.NodeInfo
		code    framework.Code
		reasons []string
	}{
		{name: "fits on empty node", pod: pod("cpu", "1", "memory", "1Gi"), ni: node(std), code: framework.Success},
		{name: "fits exactly", pod: pod("cpu", "1"), ni: node(std, assigned("a", "cpu", "3")), code: framework.Success},
		{name: "insufficient cpu", pod: pod("cpu", "2"), ni: node(std, assigned("a", "cpu", "3")),
			code: U, reasons: []string{"Insufficient cpu"}},
		{name: "cpu beyond allocatable is unresolvable", pod: pod("cpu", "5"), ni: node(std),
			code: UU, reasons: []string{"Insufficient cpu"}},
		{name: "insufficient memory", pod: pod("memory", "2Gi"), ni: node(std, assigned("a", "memory", "7Gi")),
			code: U, reasons: []string{"Insufficient memory"}},
		{name: "cpu and memory, one unresolvable", pod: pod("cpu", "2", "memory", "9Gi"), ni: node(std, assigned("a", "cpu", "3")),
			code: UU, reasons: []string{"Insufficient cpu", "Insufficient memory"}},
		{name: "insufficient ephemeral storage", pod: pod("ephemeral-storage", "6Gi"), ni: node(std, assigned("a", "ephemeral-storage", "5Gi")),
			code: U, reasons: []string{"Insufficient ephemeral-storage"}},
		{name: "too many pods", pod: pod("cpu", "1"), ni: node(alloc("cpu", "4", "pods", "1"), assigned("a")),
			code: U, reasons: []string{"Too many pods"}},
		{name: "too many pods and cpu", pod: pod("cpu", "2"), ni: node(alloc("cpu", "4", "pods", "1"), assigned("a", "cpu", "3")),
			code: U, reasons: []string{"Too many pods", "Insufficient cpu"}},
		{name: "zero-request pod on full node", pod: st.Pod("p").Container().Obj(), ni: node(std, assigned("a", "cpu", "4", "memory", "8Gi")),
			code: framework.Success},
		{name: "insufficient extended resource", pod: pod(gpu, "1"), ni: node(std, assigned("a", gpu, "2")),
			code: U, reasons: []string{"Insufficient example.com/gpu"}},
		{name: "extended resource the node lacks", pod: pod("example.com/fpga", "1"), ni: node(std),
			code: UU, reasons: []string{"Insufficient example.com/fpga"}},
		{name: "scalar reasons sorted by name", pod: pod("example.com/b", "1", "example.com/a", "1"), ni: node(std),
			code: UU, reasons: []string{"Insufficient example.com/a", "Insufficient example.com/b"}},
		{name: "ignored resource", args: `{"ignoredResources":["example.com/fpga"]}`, pod: pod("example.com/fpga", "1"), ni: node(std),
			code: framework.Success},
		{name: "ignored resource group", args: `{"ignoredResourceGroups":["example.com"]}`, pod: pod("example.com/fpga", "1", "cpu", "5"), ni: node(std),
			code: UU, reasons: []string{"Insufficient cpu"}},
		{name: "hugepages", pod: pod("hugepages-2Mi", "4Mi"), ni: node(alloc("pods", "10", "hugepages-2Mi", "2Mi")),
			code: UU, reasons: []string{"Insufficient hugepages-2Mi"}},
		{name: "init container larger than containers", pod: st.Pod("p").Init("cpu", "3").Container("cpu", "1").Obj(),
			ni: node(std, assigned("a", "cpu", "2")), code: U, reasons: []string{"Insufficient cpu"}},
		{name: "sidecar adds to containers", pod: st.Pod("p").Sidecar("cpu", "1").Container("cpu", "1").Obj(),
			ni: node(std, assigned("a", "cpu", "2500m")), code: U, reasons: []string{"Insufficient cpu"}},
		{name: "sidecar fits", pod: st.Pod("p").Sidecar("cpu", "1").Container("cpu", "1").Obj(),
			ni: node(std, assigned("a", "cpu", "2")), code: framework.Success},
		{name: "overhead counted", pod: st.Pod("p").Container("cpu", "1").Overhead("cpu", "1").Obj(),
			ni: node(std, assigned("a", "cpu", "2500m")), code: U, reasons: []string{"Insufficient cpu"}},
		{name: "pod-level resources win", pod: st.Pod("p").Container("cpu", "1").PodLevel("cpu", "3").Obj(),
			ni: node(std, assigned("a", "cpu", "2")), code: U, reasons: []string{"Insufficient cpu"}},
		{name: "node usage counts sidecars of assigned pods",
			pod: pod("cpu", "1"), ni: node(std, st.Pod("a").NodeName("n").Sidecar("cpu", "2").Container("cpu", "1500m").Obj()),
			code: U, reasons: []string{"Insufficient cpu"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := mustFit(t, tt.args)
			got := filter(pl, tt.pod, tt.ni)
			if got.Code() != tt.code || !reflect.DeepEqual(got.Reasons(), tt.reasons) {
				t.Errorf("Filter = %v, want %v %q", got, tt.code, tt.reasons)
			}
		})
	}
}

func TestFitFilterWithoutPreFilter(t *testing.T) {
	pl := mustFit(t, "")
	status := pl.Filter(context.Background(), framework.NewCycleState(), pod("cpu", "1"), node(alloc("cpu", "1", "pods", "1")))
	if status.Code() != framework.Error {
		t.Errorf("Filter = %v, want Error", status)
	}
}

func TestFits(t *testing.T) {
	got := Fits(pod("cpu", "2", "example.com/gpu", "1"), node(alloc("cpu", "4", "pods", "10"), assigned("a", "cpu", "3")))
	want := []InsufficientResource{
		{ResourceName: v1.ResourceCPU, Reason: "Insufficient cpu", Requested: 2000, Used: 3000, Capacity: 4000},
		{ResourceName: gpu, Reason: "Insufficient example.com/gpu", Requested: 1, Unresolvable: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Fits (-want +got):\n%s", diff)
	}
	if got := Fits(pod("cpu", "1"), node(alloc("cpu", "4", "pods", "10"))); len(got) != 0 {
		t.Errorf("Fits on an empty node = %+v", got)
	}
}
