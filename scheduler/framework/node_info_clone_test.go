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
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// cloneSource returns a NodeInfo with something in every field Clone copies:
// a tainted, cordoned node with an extended resource, pods with host ports,
// a PVC and requests of an extended resource, and an image.
func cloneSource(t *testing.T) *NodeInfo {
	t.Helper()
	node := makeFactsNode("n1").taint("k", v1.TaintEffectNoSchedule).cordon().obj()
	node.Status.Allocatable = v1.ResourceList{
		v1.ResourceCPU: resource.MustParse("4"), v1.ResourceMemory: resource.MustParse("8Gi"),
		"example.com/gpu": resource.MustParse("2"),
	}
	ni := NewNodeInfo()
	ni.SetNode(node)
	for _, b := range []*portsPod{newPortsPod("a").container(80), newPortsPod("b").sidecar(443)} {
		b.pod.Spec.Containers = append(b.pod.Spec.Containers, v1.Container{Resources: v1.ResourceRequirements{
			Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("1"), "example.com/gpu": resource.MustParse("1")}}})
		b.pod.Spec.Volumes = []v1.Volume{{VolumeSource: v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: "c-" + b.pod.Name}}}}
		pi, err := NewPodInfo(b.pod)
		if err != nil {
			t.Fatal(err)
		}
		ni.AddPodInfo(pi)
	}
	ni.ImageStates["img:1"] = &ImageStateSummary{Size: 100, NumNodes: 3}
	ni.SetSnapshotIndex(7)
	ni.Generation = 42
	return ni
}

func TestNodeInfoCloneIntoCopiesLikeClone(t *testing.T) {
	src := cloneSource(t)
	var dst NodeInfo
	var req, nonZero, alloc Resource
	src.CloneInto(&dst, &req, &nonZero, &alloc)

	if !reflect.DeepEqual(&dst, src.Clone()) {
		t.Fatalf("CloneInto made %v, Clone makes %v", &dst, src.Clone())
	}
	if dst.Requested != &req || dst.NonZeroRequested != &nonZero || dst.Allocatable != &alloc {
		t.Fatal("CloneInto did not point the copy at the sums it was given")
	}
	if dst.Requested.ScalarResources["example.com/gpu"] != 2 || dst.Allocatable.ScalarResources["example.com/gpu"] != 2 {
		t.Fatalf("scalar resources not copied: requested %v, allocatable %v", dst.Requested.ScalarResources, dst.Allocatable.ScalarResources)
	}
	assertNodeFacts(t, &dst, src.Node())

	// The copy changes without touching the source.
	want := src.Clone()
	want.SetSnapshotIndex(src.SnapshotIndex()) // a clone has no place of its own
	dst.Requested.ScalarResources["example.com/gpu"] = 9
	dst.Allocatable.ScalarResources["example.com/gpu"] = 9
	dst.UsedPorts.Add("", "TCP", 8080)
	dst.ImageStates["img:1"].NumNodes = 9
	dst.PVCRefCounts["ns/c-a"] = 9
	if err := dst.RemovePod(src.Pods[0].Pod); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(src, want) {
		t.Errorf("changing the copy changed the source: %v, want %v", src, want)
	}
}

func TestNodeInfoCloneIntoDropsEarlierContents(t *testing.T) {
	src := NewNodeInfo()
	src.SetNode(makeFactsNode("n2").obj())
	dst := cloneSource(t)
	var req, nonZero, alloc Resource
	req.MilliCPU, alloc.ScalarResources = 5, map[v1.ResourceName]int64{"x": 1}
	src.CloneInto(dst, &req, &nonZero, &alloc)
	if !reflect.DeepEqual(dst, src.Clone()) {
		t.Fatalf("CloneInto over a used NodeInfo made %v, want %v", dst, src.Clone())
	}
}

func TestNodeInfoSetNodeKeepingAllocatable(t *testing.T) {
	ni := cloneSource(t)
	alloc := ni.Allocatable
	before := *alloc
	node := makeFactsNode("n1").taint("other", v1.TaintEffectNoExecute).obj()
	node.Status.Allocatable = v1.ResourceList{v1.ResourceCPU: resource.MustParse("64")}

	ni.SetNodeKeepingAllocatable(node)
	if ni.Node() != node {
		t.Fatal("node not set")
	}
	assertNodeFacts(t, ni, node)
	if ni.Allocatable != alloc || !reflect.DeepEqual(*alloc, before) {
		t.Errorf("Allocatable changed to %+v, want %+v kept", *ni.Allocatable, before)
	}

	// SetNode still parses the node's allocatable.
	ni.SetNode(node)
	if ni.Allocatable == alloc || ni.Allocatable.MilliCPU != 64000 {
		t.Errorf("SetNode left Allocatable %+v, want a new one with 64 CPUs", *ni.Allocatable)
	}
}
