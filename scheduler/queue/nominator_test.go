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

package queue

import (
	"sort"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func podInfo(t *testing.T, pod *v1.Pod) *framework.PodInfo {
	t.Helper()
	pi, err := framework.NewPodInfo(pod)
	if err != nil {
		t.Fatal(err)
	}
	return pi
}

func override(node string) *framework.NominatingInfo {
	return &framework.NominatingInfo{NominatedNodeName: node, NominatingMode: framework.ModeOverride}
}

func TestNominator(t *testing.T) {
	p1 := pendingPod("p1").Obj()
	p1n1 := pendingPod("p1").Nominated("n1").Obj()
	p1n2 := pendingPod("p1").Nominated("n2").Obj()
	p2n1 := pendingPod("p2").Nominated("n1").Obj()
	type step func(t *testing.T, q *testQueue)
	add := func(p *v1.Pod, ni *framework.NominatingInfo) step {
		return func(t *testing.T, q *testQueue) { q.AddNominatedPod(podInfo(t, p), ni) }
	}
	update := func(oldPod, newPod *v1.Pod) step {
		return func(t *testing.T, q *testQueue) { q.UpdateNominatedPod(oldPod, podInfo(t, newPod)) }
	}
	del := func(p *v1.Pod) step {
		return func(_ *testing.T, q *testQueue) { q.DeleteNominatedPodIfExists(p) }
	}
	tests := []struct {
		name  string
		steps []step
		want  map[string][]string
	}{
		{name: "from status", steps: []step{add(p1n1, nil), add(p2n1, nil)}, want: map[string][]string{"n1": {"p1", "p2"}}},
		{name: "by PostFilter", steps: []step{add(p1, override("n2"))}, want: map[string][]string{"n2": {"p1"}}},
		{name: "no node, no nomination", steps: []step{add(p1, nil)}, want: map[string][]string{}},
		{name: "re-adding moves the pod", steps: []step{add(p1n1, nil), add(p1n1, override("n2"))}, want: map[string][]string{"n2": {"p1"}}},
		{name: "bound pods are not nominated", steps: []step{add(st.PodFrom(p1n1).NodeName("n1").Obj(), nil)}, want: map[string][]string{}},
		{name: "update keeps a PostFilter nomination the status has not caught up with", steps: []step{add(p1, override("n1")), update(p1, st.PodFrom(p1).Label("a", "b").Obj())}, want: map[string][]string{"n1": {"p1"}}},
		{name: "update follows the status", steps: []step{add(p1n1, nil), update(p1n1, p1n2)}, want: map[string][]string{"n2": {"p1"}}},
		{name: "update clearing the status clears the nomination", steps: []step{add(p1n1, nil), update(p1n1, p1)}, want: map[string][]string{}},
		{name: "delete", steps: []step{add(p1n1, nil), add(p2n1, nil), del(p1)}, want: map[string][]string{"n1": {"p2"}}},
		{name: "delete unknown pod", steps: []step{del(p1)}, want: map[string][]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := newTestQueue(t, nil)
			for _, s := range tt.steps {
				s(t, q)
			}
			for _, node := range []string{"n1", "n2"} {
				var got []string
				for _, pi := range q.NominatedPodsForNode(node) {
					got = append(got, pi.Pod.Name)
				}
				sort.Strings(got)
				if !equalStrings(got, tt.want[node]) {
					t.Errorf("node %s: nominated %v, want %v", node, got, tt.want[node])
				}
			}
			q.nominator.mu.RLock()
			defer q.nominator.mu.RUnlock()
			total := 0
			for _, pods := range tt.want {
				total += len(pods)
			}
			if len(q.nominator.nodeOf) != total {
				t.Errorf("nominator indexes %d pods, want %d", len(q.nominator.nodeOf), total)
			}
		})
	}
}

func TestQueueKeepsNominationsInStep(t *testing.T) {
	q := newTestQueue(t, map[string]*fakeProfile{defaultProfile: profile()})
	pod := pendingPod("p").Nominated("n1").Obj()
	q.Add(tlog, pod)
	if n := len(q.NominatedPodsForNode("n1")); n != 1 {
		t.Fatalf("added pod with nominatedNodeName: %d nominated", n)
	}
	moved := st.PodFrom(pod).Nominated("n2").ResourceVersion("2").Obj()
	q.Update(tlog, pod, moved)
	if len(q.NominatedPodsForNode("n1")) != 0 || len(q.NominatedPodsForNode("n2")) != 1 {
		t.Fatalf("update did not move the nomination")
	}
	if got := q.NominatedPodsForNode("n2")[0].Pod; got != moved {
		t.Errorf("nominator holds a stale pod version")
	}
}
