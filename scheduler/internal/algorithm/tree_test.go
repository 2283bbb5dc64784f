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

package algorithm

import (
	"testing"

	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// child returns a PodGroup under the CompositePodGroup parent.
func child(name, parent string) *schedulingv1beta1.PodGroup {
	return st.WorkloadGroup(name).Parent(parent).Obj()
}

// TestOutcomesHandFailuresDown checks completeOutcomes: a child that
// fitted under a parent that failed, or that was not reached, shares the
// parent's status; a child that failed on its own keeps its status.
func TestOutcomesHandFailuresDown(t *testing.T) {
	a := framework.PodGroupNode(child("a", "mid"))
	b := framework.PodGroupNode(child("b", "mid"))
	c := framework.PodGroupNode(child("c", "root"))
	mid := framework.CompositeNode(st.CompositeGroup("mid").Parent("root").Obj(), []*framework.GroupNode{a, b})
	root := framework.CompositeNode(st.CompositeGroup("root").Obj(), []*framework.GroupNode{mid, c})
	failed, own := GroupUnschedulable("root short"), GroupUnschedulable("b short")
	res := Outcomes{
		root.Key: {Node: root, Status: &failed},
		mid.Key:  {Node: mid, Status: ptr.To(Succeeded())},
		a.Key:    {Node: a, Status: ptr.To(Succeeded())},
		b.Key:    {Node: b, Status: &own},
	}
	completeOutcomes(root, res, nil)
	for _, n := range []*framework.GroupNode{mid, a, c} {
		if res[n.Key].Status != &failed {
			t.Errorf("%s: status %v, want the root's", n.Key, res[n.Key].Status.Message())
		}
	}
	if res[b.Key].Status != &own {
		t.Errorf("b: status %v, want its own", res[b.Key].Status.Message())
	}
}

// TestFailedOutcomes checks that a cycle that could not run gives every
// node of its tree the same status.
func TestFailedOutcomes(t *testing.T) {
	a := framework.PodGroupNode(child("a", "root"))
	b := framework.PodGroupNode(child("b", "root"))
	root := framework.CompositeNode(st.CompositeGroup("root").Obj(), []*framework.GroupNode{a, b})
	res := Failed(root, Errorf("updating the snapshot: gone"))
	if len(res) != 3 {
		t.Fatalf("%d outcomes, want 3", len(res))
	}
	for key, o := range res {
		if o.Status.Code != framework.Error || o.Status.Message() != "updating the snapshot: gone" {
			t.Errorf("%s: %v, want the cycle's error", key, o.Status.Message())
		}
	}
}
