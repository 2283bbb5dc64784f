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

package cache

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestSnapshotSimulation(t *testing.T) {
	anti := st.Pod("anti").UID("anti").NodeName("n1").PodAntiAffinity(st.Term("zone", "app", "x")).Obj()
	plain := st.Pod("plain").UID("plain").NodeName("n2").Req("cpu", "1").PVC("data").Obj()
	added := st.Pod("added").UID("added").Req("cpu", "2").PodAntiAffinity(st.Term("zone", "app", "y")).Obj()
	tests := []struct {
		name     string
		simulate func(t *testing.T, s *Snapshot)
		// want are the pods of n1 and n2, and whether each is in the
		// required anti-affinity list, while simulating.
		wantN1, wantN2     []string
		wantAntiAffinity   []string
		wantPVCUsed        bool
		wantCPUOnN2        int64
		wantErrOnBadRemove bool
	}{
		{
			name: "a pod taken off and one put on",
			simulate: func(t *testing.T, s *Snapshot) {
				must(t, s.RemovePod(anti, "n1"))
				must(t, s.AddPod(info(t, added), "n2"))
			},
			wantN1: []string{}, wantN2: []string{"added", "plain"},
			wantAntiAffinity: []string{"n2"}, wantPVCUsed: true, wantCPUOnN2: 3000,
		},
		{
			name: "a pod using a claim taken off",
			simulate: func(t *testing.T, s *Snapshot) {
				must(t, s.RemovePod(plain, "n2"))
			},
			wantN1: []string{"anti"}, wantN2: []string{}, wantAntiAffinity: []string{"n1"}, wantPVCUsed: false, wantCPUOnN2: 0,
		},
		{
			name: "a pod taken off twice is an error, and changes nothing more",
			simulate: func(t *testing.T, s *Snapshot) {
				must(t, s.RemovePod(plain, "n2"))
				if err := s.RemovePod(plain, "n2"); err == nil {
					t.Error("removing a pod that is gone: want an error")
				}
			},
			wantN1: []string{"anti"}, wantN2: []string{}, wantAntiAffinity: []string{"n1"}, wantPVCUsed: false, wantCPUOnN2: 0,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := New(context.Background())
			l := logr.Discard()
			for _, n := range []string{"n1", "n2"} {
				c.AddNode(l, cacheNode(n).Label("zone", n).Obj())
			}
			must(t, c.AddPod(l, anti))
			must(t, c.AddPod(l, plain))
			s := NewEmptySnapshot()
			update(t, c, s)
			n1, n2 := s.nodeInfoMap["n1"], s.nodeInfoMap["n2"]
			before := simPodNames(n1, n2)

			tc.simulate(t, s)
			if !s.Simulating() {
				t.Fatal("Simulating() = false after changes")
			}
			got1, _ := s.Get("n1")
			got2, _ := s.Get("n2")
			if g := simPodNames(got1); !slices.Equal(g, tc.wantN1) {
				t.Errorf("n1 holds %v, want %v", g, tc.wantN1)
			}
			if g := simPodNames(got2); !slices.Equal(g, tc.wantN2) {
				t.Errorf("n2 holds %v, want %v", g, tc.wantN2)
			}
			if got := got2.Requested.MilliCPU; got != tc.wantCPUOnN2 {
				t.Errorf("n2 requests %dm CPU, want %dm", got, tc.wantCPUOnN2)
			}
			list, _ := s.HavePodsWithRequiredAntiAffinityList()
			if got := sorted(names(list)); !slices.Equal(got, tc.wantAntiAffinity) {
				t.Errorf("required anti-affinity list %v, want %v", got, tc.wantAntiAffinity)
			}
			if got := s.IsPVCUsedByPods("default/data"); got != tc.wantPVCUsed {
				t.Errorf("claim used = %v, want %v", got, tc.wantPVCUsed)
			}
			if err := c.UpdateSnapshot(l, s); err == nil {
				t.Error("UpdateSnapshot of a simulating snapshot: want an error")
			}
			if after := simPodNames(n1, n2); !slices.Equal(after, before) {
				t.Errorf("the NodeInfos handed out before changed: %v, was %v", after, before)
			}

			s.Restore()
			if s.Simulating() {
				t.Error("Simulating() = true after Restore")
			}
			if s.nodeInfoMap["n1"] != n1 || s.nodeInfoMap["n2"] != n2 {
				t.Error("Restore did not put the original NodeInfos back")
			}
			list, _ = s.HavePodsWithRequiredAntiAffinityList()
			if got := names(list); !slices.Equal(got, []string{"n1"}) {
				t.Errorf("required anti-affinity list after Restore %v, want [n1]", got)
			}
			if !s.IsPVCUsedByPods("default/data") {
				t.Error("the claim is not used after Restore")
			}
			update(t, c, s)
		})
	}
}

// TestSimulatedChangesAreNewVersions checks that every simulated change
// replaces the node's NodeInfo with one of a generation no version of any
// node had before, so that plugins keeping counts per node by generation
// see it, and that NodeInfos handed out between changes stay as they were.
func TestSimulatedChangesAreNewVersions(t *testing.T) {
	c := New(context.Background())
	l := logr.Discard()
	for _, n := range []string{"n1", "n2"} {
		c.AddNode(l, cacheNode(n).Obj())
	}
	s := NewEmptySnapshot()
	update(t, c, s)
	seen := map[int64]string{}
	version := func(name string) *framework.NodeInfo {
		t.Helper()
		ni, err := s.Get(name)
		must(t, err)
		if was, ok := seen[ni.Generation]; ok && was != fmt.Sprintf("%p", ni) {
			t.Errorf("%s: generation %d was another NodeInfo's", name, ni.Generation)
		}
		seen[ni.Generation] = fmt.Sprintf("%p", ni)
		return ni
	}
	version("n1")
	version("n2")
	for round := range 2 {
		var handedOut []*framework.NodeInfo
		for i := range 3 {
			before := version("n1")
			handedOut = append(handedOut, before)
			pod := st.Pod(fmt.Sprintf("p%d-%d", round, i)).UID(fmt.Sprintf("p%d-%d", round, i)).Obj()
			must(t, s.AddPod(info(t, pod), "n1"))
			after := version("n1")
			if after == before {
				t.Fatalf("round %d, pod %d: the NodeInfo was changed in place", round, i)
			}
		}
		for i, ni := range handedOut {
			if got := len(ni.Pods); got != i {
				t.Errorf("round %d: the NodeInfo handed out before pod %d holds %d pods, want %d", round, i, got, i)
			}
		}
		s.Restore()
		if got := version("n1"); len(got.Pods) != 0 {
			t.Errorf("round %d: n1 holds %d pods after Restore", round, len(got.Pods))
		}
	}
	if len(seen) != 2+2*3 {
		t.Errorf("%d generations seen, want %d distinct ones", len(seen), 2+2*3)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func info(t *testing.T, pod *v1.Pod) *framework.PodInfo {
	t.Helper()
	pi, err := framework.NewPodInfo(pod)
	must(t, err)
	return pi
}

// simPodNames lists the pods of the NodeInfos, sorted.
func simPodNames(nis ...*framework.NodeInfo) []string {
	out := []string{}
	for _, ni := range nis {
		for _, pi := range ni.Pods {
			out = append(out, pi.Pod.Name)
		}
	}
	slices.Sort(out)
	return out
}

func sorted(s []string) []string {
	slices.Sort(s)
	return s
}

func TestSnapshotPlacement(t *testing.T) {
	c := New(context.Background())
	l := logr.Discard()
	for _, n := range []string{"n1", "n2", "n3"} {
		c.AddNode(l, cacheNode(n).Obj())
	}
	s := NewEmptySnapshot()
	update(t, c, s)
	s.SetPlacement(map[string]bool{"n1": true, "n3": true})
	if got := sorted(names(s.CandidateNodes())); !slices.Equal(got, []string{"n1", "n3"}) || s.NumCandidateNodes() != 2 {
		t.Fatalf("candidates %v (%d), want [n1 n3]", got, s.NumCandidateNodes())
	}
	// A pod assumed on n3 replaces its NodeInfo: the candidates show the new one.
	must(t, c.AssumePod(l, st.Pod("p").UID("p").NodeName("n3").Req("cpu", "1").Obj()))
	update(t, c, s)
	for _, ni := range s.CandidateNodes() {
		if ni.Node().Name == "n3" && len(ni.Pods) != 1 {
			t.Errorf("n3 among the candidates holds %d pods, want the assumed one", len(ni.Pods))
		}
	}
	// A node added lays the list out anew: the placement's nodes are found again.
	c.AddNode(l, cacheNode("n0").Obj())
	update(t, c, s)
	if got := sorted(names(s.CandidateNodes())); !slices.Equal(got, []string{"n1", "n3"}) {
		t.Errorf("candidates after a node was added %v, want [n1 n3]", got)
	}
	s.SetPlacement(nil)
	if s.NumCandidateNodes() != 4 {
		t.Errorf("%d candidates without a placement, want 4", s.NumCandidateNodes())
	}
}

// TestSnapshotPlacementNodes checks that a placement given as NodeInfos
// confines the search as the map of their names does, whatever their order
// and even when they are an older snapshot's.
func TestSnapshotPlacementNodes(t *testing.T) {
	c := New(context.Background())
	l := logr.Discard()
	for _, n := range []string{"n1", "n2", "n3", "n4"} {
		c.AddNode(l, cacheNode(n).Obj())
	}
	s := NewEmptySnapshot()
	update(t, c, s)
	byName := map[string]*framework.NodeInfo{}
	for _, ni := range s.CandidateNodes() {
		byName[ni.Node().Name] = ni
	}
	nodes := func(names ...string) []*framework.NodeInfo {
		out := []*framework.NodeInfo{}
		for _, n := range names {
			out = append(out, byName[n])
		}
		return out
	}
	tests := []struct {
		name  string
		nodes []*framework.NodeInfo
		// want is the candidates' names, sorted; nil when not confined.
		want []string
	}{
		{name: "nil lifts the restriction", nodes: nil, want: nil},
		{name: "in list order", nodes: nodes("n1", "n3"), want: []string{"n1", "n3"}},
		{name: "out of list order", nodes: nodes("n4", "n2", "n1"), want: []string{"n1", "n2", "n4"}},
		{name: "a node twice", nodes: nodes("n2", "n2"), want: []string{"n2"}},
		{name: "no node", nodes: nodes(), want: []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s.SetPlacementNodes(tc.nodes)
			if tc.want == nil {
				if s.Placement() != nil || s.NumCandidateNodes() != 4 || !s.InPlacement("n3") {
					t.Fatalf("placement %v with %d candidates, want none over all 4 nodes", s.Placement(), s.NumCandidateNodes())
				}
				return
			}
			// Asked twice: positions are kept between calls.
			for range 2 {
				if got := sorted(names(s.SearchNodes())); !slices.Equal(got, tc.want) || s.NumCandidateNodes() != len(tc.want) {
					t.Fatalf("candidates %v (%d), want %v", got, s.NumCandidateNodes(), tc.want)
				}
			}
			for _, n := range []string{"n1", "n2", "n3", "n4"} {
				if in := s.InPlacement(n); in != slices.Contains(tc.want, n) {
					t.Errorf("InPlacement(%s) = %v, want %v", n, in, !in)
				}
			}
			if got := sorted(slices.Collect(maps.Keys(s.Placement()))); !slices.Equal(got, tc.want) {
				t.Errorf("Placement() = %v, want %v", got, tc.want)
			}
			// Once the map is made, the positions found from it agree.
			s.placementEpoch = -1
			if got := sorted(names(s.SearchNodes())); !slices.Equal(got, tc.want) {
				t.Errorf("candidates found from the map %v, want %v", got, tc.want)
			}
		})
	}
	// A node added lays the list out anew: the placement's nodes are found again.
	s.SetPlacementNodes(nodes("n3", "n1"))
	c.AddNode(l, cacheNode("n0").Obj())
	update(t, c, s)
	if got := sorted(names(s.CandidateNodes())); !slices.Equal(got, []string{"n1", "n3"}) {
		t.Errorf("candidates after a node was added %v, want [n1 n3]", got)
	}
}

// TestSimulatedAddUndone checks that taking off the pod the last AddPod put
// on a node brings back the very NodeInfo that AddPod replaced, and that
// any other removal still makes a copy of its own.
func TestSimulatedAddUndone(t *testing.T) {
	a := st.Pod("a").UID("a").Req("cpu", "1").PodAntiAffinity(st.Term("zone", "app", "x")).Obj()
	b := st.Pod("b").UID("b").Req("cpu", "1").Obj()
	tests := []struct {
		name string
		// remove is the pods taken off n1, in order, after a and then b
		// were put on it.
		remove []*v1.Pod
		// wantBack is the NodeInfo n1 is to have after the removals:
		// "original", "after a", or "" for a copy of its own.
		wantBack       string
		wantSimulating bool
		wantPods       []string
	}{
		{name: "b taken off", remove: []*v1.Pod{b}, wantBack: "after a", wantSimulating: true, wantPods: []string{"a", "bound"}},
		{name: "b then a taken off", remove: []*v1.Pod{b, a}, wantBack: "original", wantSimulating: false, wantPods: []string{"bound"}},
		{name: "a taken off first", remove: []*v1.Pod{a}, wantSimulating: true, wantPods: []string{"b", "bound"}},
		{name: "a then b taken off", remove: []*v1.Pod{a, b}, wantSimulating: true, wantPods: []string{"bound"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := New(context.Background())
			l := logr.Discard()
			c.AddNode(l, cacheNode("n1").Label("zone", "z1").Obj())
			must(t, c.AddPod(l, st.Pod("bound").UID("bound").NodeName("n1").Obj()))
			s := NewEmptySnapshot()
			update(t, c, s)
			original := s.nodeInfoMap["n1"]
			must(t, s.AddPod(info(t, a), "n1"))
			afterA := s.nodeInfoMap["n1"]
			must(t, s.AddPod(info(t, b), "n1"))
			afterB := s.nodeInfoMap["n1"]
			for _, p := range tc.remove {
				must(t, s.RemovePod(p, "n1"))
			}
			got := s.nodeInfoMap["n1"]
			want := map[string]*framework.NodeInfo{"original": original, "after a": afterA}[tc.wantBack]
			switch {
			case want != nil && got != want:
				t.Errorf("n1's NodeInfo is not the one %s", tc.wantBack)
			case want == nil && (got == original || got == afterA || got == afterB):
				t.Error("n1's NodeInfo is one handed out before, want a copy of its own")
			}
			if g := simPodNames(got); !slices.Equal(g, tc.wantPods) {
				t.Errorf("n1 holds %v, want %v", g, tc.wantPods)
			}
			if g := simPodNames(afterB); !slices.Equal(g, []string{"a", "b", "bound"}) {
				t.Errorf("the NodeInfo handed out after b was put on changed: %v", g)
			}
			list, _ := s.HavePodsWithRequiredAntiAffinityList()
			if inList := len(list) == 1; inList != slices.Contains(tc.wantPods, "a") {
				t.Errorf("n1 in the required anti-affinity list = %v, want %v", inList, !inList)
			}
			if s.Simulating() != tc.wantSimulating {
				t.Errorf("Simulating() = %v, want %v", s.Simulating(), tc.wantSimulating)
			}
			s.Restore()
			if s.nodeInfoMap["n1"] != original {
				t.Error("Restore did not put the original NodeInfo back")
			}
			update(t, c, s)
		})
	}
}
