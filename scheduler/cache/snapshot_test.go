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
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func update(t *testing.T, c *Cache, s *Snapshot) {
	t.Helper()
	if err := c.UpdateSnapshot(logr.Discard(), s); err != nil {
		t.Fatal(err)
	}
}

func names(list []*framework.NodeInfo) []string {
	out := make([]string, 0, len(list))
	for _, ni := range list {
		out = append(out, ni.Node().Name)
	}
	return out
}

func snapshotOf(s *Snapshot) map[string]*framework.NodeInfo {
	out := make(map[string]*framework.NodeInfo)
	list, _ := s.NodeInfos().List()
	for _, ni := range list {
		out[ni.Node().Name] = ni
	}
	return out
}

func TestSnapshotClonesOnlyChangedNodeInfos(t *testing.T) {
	l := logr.Discard()
	p2 := st.Pod("p2").NodeName("n2").Req("cpu", "1").Obj()
	p2b := st.Pod("p2").NodeName("n2").Req("cpu", "3").ResourceVersion("2").Obj()
	tests := []struct {
		name        string
		change      func(c *Cache) error
		wantChanged []string
	}{
		{name: "no change", change: func(*Cache) error { return nil }},
		{name: "pod updated", change: func(c *Cache) error { return c.UpdatePod(l, p2, p2b) }, wantChanged: []string{"n2"}},
		{name: "pod added", change: func(c *Cache) error { return c.AddPod(l, st.Pod("new").NodeName("n3").Obj()) }, wantChanged: []string{"n3"}},
		{name: "pod assumed", change: func(c *Cache) error { return c.AssumePod(l, st.Pod("new").NodeName("n1").Obj()) }, wantChanged: []string{"n1"}},
		{name: "pod removed", change: func(c *Cache) error { return c.RemovePod(l, p2) }, wantChanged: []string{"n2"}},
		{
			name: "pod moved",
			change: func(c *Cache) error {
				return c.UpdatePod(l, p2, st.Pod("p2").NodeName("n1").ResourceVersion("2").Obj())
			},
			wantChanged: []string{"n1", "n2"},
		},
		{
			name: "node updated",
			change: func(c *Cache) error {
				c.UpdateNode(l, nil, cacheNode("n3").Alloc("cpu", "16", "memory", "8Gi", "pods", "110").Obj())
				return nil
			},
			wantChanged: []string{"n3"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(context.Background())
			for _, n := range []string{"n1", "n2", "n3"} {
				c.AddNode(l, cacheNode(n).Obj())
				if err := c.AddPod(l, st.Pod("base-"+n).NodeName(n).Req("cpu", "100m").Obj()); err != nil {
					t.Fatal(err)
				}
			}
			if err := c.AddPod(l, p2); err != nil {
				t.Fatal(err)
			}
			s := NewEmptySnapshot()
			update(t, c, s)
			before := snapshotOf(s)
			beforeList, _ := s.List()
			beforeGen := s.Generation()

			if err := tt.change(c); err != nil {
				t.Fatal(err)
			}
			update(t, c, s)
			after := snapshotOf(s)
			for name, ni := range before {
				changed := slices.Contains(tt.wantChanged, name)
				if same := after[name] == ni; same == changed {
					t.Errorf("node %s: pointer kept %v, want %v", name, same, !changed)
				}
			}
			afterList, _ := s.List()
			if !slices.Equal(names(beforeList), names(afterList)) {
				t.Errorf("node order changed: %v -> %v", names(beforeList), names(afterList))
			}
			if len(tt.wantChanged) == 0 && s.Generation() != beforeGen {
				t.Errorf("generation moved without changes: %d -> %d", beforeGen, s.Generation())
			}
			if len(tt.wantChanged) > 0 && s.Generation() <= beforeGen {
				t.Errorf("generation did not move: %d -> %d", beforeGen, s.Generation())
			}
			assertMatchesRebuild(t, c, s)
		})
	}
}

func TestSnapshotIsolatedFromLaterChanges(t *testing.T) {
	l := logr.Discard()
	c := New(context.Background())
	c.AddNode(l, cacheNode("n1").Obj())
	p := st.Pod("p").NodeName("n1").Req("cpu", "1").Obj()
	if err := c.AddPod(l, p); err != nil {
		t.Fatal(err)
	}
	s := NewEmptySnapshot()
	update(t, c, s)
	held := mustGet(t, s, "n1")
	if err := c.AddPod(l, st.Pod("q").NodeName("n1").Req("cpu", "2").Obj()); err != nil {
		t.Fatal(err)
	}
	if held.Requested.MilliCPU != 1000 || len(held.Pods) != 1 {
		t.Fatalf("snapshot changed before UpdateSnapshot: %v", held)
	}
	update(t, c, s)
	if held.Requested.MilliCPU != 1000 || len(held.Pods) != 1 {
		t.Fatalf("held NodeInfo changed by UpdateSnapshot: %v", held)
	}
	if got := mustGet(t, s, "n1").Requested.MilliCPU; got != 3000 {
		t.Fatalf("updated snapshot requests %d, want 3000", got)
	}
}

func TestSnapshotNodeSet(t *testing.T) {
	a1, a2, a3 := cacheNode("a1").Region("r").Zone("a").Obj(), cacheNode("a2").Region("r").Zone("a").Obj(), cacheNode("a3").Region("r").Zone("a").Obj()
	b1, b2 := cacheNode("b1").Region("r").Zone("b").Obj(), cacheNode("b2").Region("r").Zone("b").Obj()
	c1 := cacheNode("c1").Region("r").Zone("c").Obj()
	tests := []struct {
		name     string
		steps    []step
		wantList []string
	}{
		{name: "zones interleave", steps: []step{addNode(a1), addNode(a2), addNode(a3), addNode(b1), addNode(b2), addNode(c1)},
			wantList: []string{"a1", "b1", "c1", "a2", "b2", "a3"}},
		{name: "removal", steps: []step{addNode(a1), addNode(a2), addNode(b1), removeNode(a1)},
			wantList: []string{"a2", "b1"}},
		{name: "removed zone", steps: []step{addNode(a1), addNode(b1), addNode(c1), removeNode(b1)},
			wantList: []string{"a1", "c1"}},
		{name: "zone move", steps: []step{addNode(a1), addNode(a2), addNode(b1), updateNode(a1, cacheNode("a1").Region("r").Zone("b").Obj())},
			wantList: []string{"a2", "b1", "a1"}},
		{name: "removed node with pods leaves the snapshot",
			steps:    []step{addNode(a1), addNode(b1), addPod(st.Pod("p").NodeName("a1").Obj()), removeNode(a1)},
			wantList: []string{"b1"}},
		{name: "placeholder is not in the snapshot",
			steps:    []step{addNode(a1), addPod(st.Pod("p").NodeName("ghost").Obj())},
			wantList: []string{"a1"}},
		{name: "placeholder joins when its node arrives",
			steps:    []step{addNode(a1), addPod(st.Pod("p").NodeName("b1").Obj()), addNode(b1)},
			wantList: []string{"a1", "b1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(context.Background())
			s := NewEmptySnapshot()
			// Update after every step so each change goes through the incremental path.
			for i := range tt.steps {
				runSteps(t, c, tt.steps[i:i+1])
				update(t, c, s)
			}
			list, _ := s.List()
			if got := names(list); !slices.Equal(got, tt.wantList) {
				t.Fatalf("list %v, want %v", got, tt.wantList)
			}
			if s.NumNodes() != len(tt.wantList) {
				t.Fatalf("NumNodes = %d, want %d", s.NumNodes(), len(tt.wantList))
			}
			for _, gone := range []string{"ghost", "removed"} {
				if _, err := s.Get(gone); err == nil {
					t.Fatalf("Get(%s) should fail", gone)
				}
			}
			assertMatchesRebuild(t, c, s)
		})
	}
}

func TestSnapshotAffinityLists(t *testing.T) {
	l := logr.Discard()
	anti := st.Pod("anti").NodeName("n1").PodAntiAffinity(st.Term(v1.LabelHostname, "app", "db")).Obj()
	pref := st.Pod("pref").NodeName("n2").PreferPodAffinity(10, st.Term(v1.LabelHostname, "app", "web")).Obj()
	plain := st.Pod("plain").NodeName("n1").Obj()
	tests := []struct {
		name     string
		steps    []step
		wantAff  []string
		wantAnti []string
	}{
		{name: "none", steps: []step{addPod(plain)}},
		{name: "required anti-affinity is in both lists", steps: []step{addPod(anti)}, wantAff: []string{"n1"}, wantAnti: []string{"n1"}},
		{name: "preferred affinity only", steps: []step{addPod(pref)}, wantAff: []string{"n2"}},
		{name: "both", steps: []step{addPod(anti), addPod(pref)}, wantAff: []string{"n1", "n2"}, wantAnti: []string{"n1"}},
		{name: "removed", steps: []step{addPod(anti), addPod(pref), removePod(anti)}, wantAff: []string{"n2"}},
		{name: "assumed then forgotten", steps: []step{assume(anti), forget(anti)}},
		{name: "other pod on an affinity node", steps: []step{addPod(anti), addPod(plain)}, wantAff: []string{"n1"}, wantAnti: []string{"n1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(context.Background())
			c.AddNode(l, cacheNode("n1").Obj())
			c.AddNode(l, cacheNode("n2").Obj())
			s := NewEmptySnapshot()
			update(t, c, s)
			for i := range tt.steps {
				runSteps(t, c, tt.steps[i:i+1])
				update(t, c, s)
			}
			aff, _ := s.HavePodsWithAffinityList()
			antiList, _ := s.HavePodsWithRequiredAntiAffinityList()
			if got := names(aff); !slices.Equal(got, tt.wantAff) {
				t.Errorf("affinity list %v, want %v", got, tt.wantAff)
			}
			if got := names(antiList); !slices.Equal(got, tt.wantAnti) {
				t.Errorf("anti-affinity list %v, want %v", got, tt.wantAnti)
			}
			// The lists must hold the same NodeInfos as Get.
			for _, ni := range append(aff, antiList...) {
				if mustGet(t, s, ni.Node().Name) != ni {
					t.Errorf("node %s: affinity list holds a stale NodeInfo", ni.Node().Name)
				}
			}
			assertMatchesRebuild(t, c, s)
		})
	}
}

func TestSnapshotPVCs(t *testing.T) {
	l := logr.Discard()
	p1 := st.Pod("p1").NodeName("n1").PVC("data").Obj()
	p2 := st.Pod("p2").NodeName("n2").PVC("data").Obj()
	tests := []struct {
		name     string
		steps    []step
		wantUsed bool
	}{
		{name: "unused", steps: []step{}},
		{name: "used", steps: []step{addPod(p1)}, wantUsed: true},
		{name: "used twice, one removed", steps: []step{addPod(p1), addPod(p2), removePod(p1)}, wantUsed: true},
		{name: "released", steps: []step{addPod(p1), addPod(p2), removePod(p1), removePod(p2)}},
		{name: "assumed counts", steps: []step{assume(p1)}, wantUsed: true},
		{name: "node removed", steps: []step{addPod(p1), removeNode(cacheNode("n1").Obj())}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(context.Background())
			c.AddNode(l, cacheNode("n1").Obj())
			c.AddNode(l, cacheNode("n2").Obj())
			s := NewEmptySnapshot()
			update(t, c, s)
			for i := range tt.steps {
				runSteps(t, c, tt.steps[i:i+1])
				update(t, c, s)
			}
			if got := s.StorageInfos().IsPVCUsedByPods("default/data"); got != tt.wantUsed {
				t.Fatalf("IsPVCUsedByPods = %v, want %v", got, tt.wantUsed)
			}
			if s.StorageInfos().IsPVCUsedByPods("default/other") {
				t.Fatal("unknown claim reported used")
			}
		})
	}
}

func TestNewSnapshot(t *testing.T) {
	nodes := []*v1.Node{
		cacheNode("a1").Region("r").Zone("a").Image(10, "img").Obj(),
		cacheNode("a2").Region("r").Zone("a").Image(10, "img").Obj(),
		cacheNode("b1").Region("r").Zone("b").Obj(),
	}
	pods := []*v1.Pod{
		st.Pod("p1").NodeName("a1").Req("cpu", "1").Obj(),
		st.Pod("p2").NodeName("b1").PodAntiAffinity(st.Term(v1.LabelHostname, "app", "x")).PVC("claim").Obj(),
		st.Pod("stray").NodeName("nowhere").Obj(),
		st.Pod("pending").Obj(),
	}
	s := NewSnapshot(pods, nodes)
	list, _ := s.List()
	if got := names(list); !slices.Equal(got, []string{"a1", "b1", "a2"}) {
		t.Fatalf("list %v", got)
	}
	if got := mustGet(t, s, "a1").Requested.MilliCPU; got != 1000 {
		t.Fatalf("a1 requests %d", got)
	}
	if diff := cmp.Diff(&framework.ImageStateSummary{Size: 10, NumNodes: 2}, mustGet(t, s, "a2").ImageStates["img"]); diff != "" {
		t.Fatalf("image summary (-want +got):\n%s", diff)
	}
	anti, _ := s.HavePodsWithRequiredAntiAffinityList()
	if got := names(anti); !slices.Equal(got, []string{"b1"}) {
		t.Fatalf("anti-affinity list %v", got)
	}
	if !s.IsPVCUsedByPods("default/claim") {
		t.Fatal("claim should be used")
	}
	if _, err := s.Get("nowhere"); err == nil {
		t.Fatal("pods of unlisted nodes must not create NodeInfos")
	}
}

// assertMatchesRebuild compares an incrementally updated snapshot with one
// built from scratch from the same cache.
func assertMatchesRebuild(t *testing.T, c *Cache, s *Snapshot) {
	t.Helper()
	fresh := NewEmptySnapshot()
	update(t, c, fresh)
	if got, want := describe(s), describe(fresh); got != want {
		t.Fatalf("incremental snapshot differs from a fresh one:\n got: %s\nwant: %s", got, want)
	}
	assertListPositions(t, s)
}

// assertListPositions checks that every NodeInfo of the snapshot's list
// knows its position there.
func assertListPositions(t *testing.T, s *Snapshot) {
	t.Helper()
	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	for i, ni := range list {
		if got := ni.SnapshotIndex(); got != i {
			t.Fatalf("the NodeInfo of %s at list position %d says %d", ni.Node().Name, i, got)
		}
	}
}

// describe renders a snapshot's observable content.
func describe(s *Snapshot) string {
	out := fmt.Sprintf("gen=%d ", s.Generation())
	list, _ := s.List()
	for _, ni := range list {
		out += fmt.Sprintf("[%s pods=%v cpu=%d ports=%d pvc=%v images=", ni.Node().Name, podNames(ni), ni.Requested.MilliCPU, ni.UsedPorts.Len(), ni.PVCRefCounts)
		for _, img := range keys(ni.ImageStates) {
			out += fmt.Sprintf("%s:%d,", img, ni.ImageStates[img].NumNodes)
		}
		out += "]"
	}
	aff, _ := s.HavePodsWithAffinityList()
	anti, _ := s.HavePodsWithRequiredAntiAffinityList()
	// The affinity lists' order is unspecified.
	out += fmt.Sprintf(" aff=%v anti=%v pvcs=%v map=%v", slices.Sorted(slices.Values(names(aff))), slices.Sorted(slices.Values(names(anti))), s.usedPVCRefCounts, keys(s.nodeInfoMap))
	return out
}

// TestSnapshotRandomOperations drives a cache with a seeded random mix of
// operations and checks after each one that the incrementally updated
// snapshot equals a fresh one.
func TestSnapshotRandomOperations(t *testing.T) {
	l := logr.Discard()
	rng := rand.New(rand.NewSource(42))
	c := New(context.Background())
	s := NewEmptySnapshot()
	zones := []string{"a", "b", "c"}
	images := []string{"i1", "i2", "i3"}
	pods := map[string]*v1.Pod{}
	podSeq := 0
	nodeName := func() string { return fmt.Sprintf("n%d", rng.Intn(8)) }
	for i := 0; i < 2000; i++ {
		switch op := rng.Intn(10); {
		case op < 2:
			b := cacheNode(nodeName()).Region("r").Zone(zones[rng.Intn(len(zones))])
			for _, img := range images {
				if rng.Intn(2) == 0 {
					b.Image(1, img)
				}
			}
			c.AddNode(l, b.Obj())
		case op < 3:
			_ = c.RemoveNode(l, cacheNode(nodeName()).Obj())
		case op < 6:
			podSeq++
			b := st.Pod(fmt.Sprintf("p%d", podSeq)).NodeName(nodeName()).Req("cpu", "100m")
			switch rng.Intn(4) {
			case 0:
				b.PodAntiAffinity(st.Term(v1.LabelHostname, "app", "x"))
			case 1:
				b.PreferPodAffinity(10, st.Term(v1.LabelHostname, "app", "y"))
			case 2:
				b.PVC(fmt.Sprintf("c%d", rng.Intn(3)))
			}
			p := b.Obj()
			if rng.Intn(3) == 0 {
				if c.AssumePod(l, p) == nil {
					pods[p.Name] = p
				}
			} else if c.AddPod(l, p) == nil {
				pods[p.Name] = p
			}
		case op < 8:
			for name, p := range pods {
				if assumed, _ := c.IsAssumedPod(p); assumed {
					_ = c.ForgetPod(l, p)
				} else {
					_ = c.RemovePod(l, p)
				}
				delete(pods, name)
				break
			}
		default:
			for name, p := range pods {
				if assumed, _ := c.IsAssumedPod(p); assumed {
					_ = c.AddPod(l, p)
					break
				}
				moved := st.Pod(name).NodeName(nodeName()).Req("cpu", "200m").ResourceVersion(fmt.Sprint(i)).Obj()
				if c.UpdatePod(l, p, moved) == nil {
					pods[name] = moved
				}
				break
			}
		}
		if rng.Intn(3) == 0 {
			update(t, c, s)
			assertMatchesRebuild(t, c, s)
		}
	}
}

func TestSnapshotCompactsIntoListOrder(t *testing.T) {
	l := logr.Discard()
	c := New(context.Background())
	const nodes = 3 * compactMin // more than one arena chunk
	for i := range nodes {
		c.AddNode(l, cacheNode(fmt.Sprintf("n%03d", i)).Region("r").Zone(fmt.Sprintf("z%d", i%3)).Obj())
	}
	s := NewEmptySnapshot()
	update(t, c, s)
	inArena := func() bool {
		list, _ := s.List()
		slots := 0
		for _, chunk := range s.arena {
			slots += len(chunk)
		}
		if slots != len(list) {
			return false
		}
		for i, ni := range list {
			if &s.slot(i).info != ni {
				return false
			}
		}
		return true
	}
	if !inArena() {
		t.Fatal("a fresh snapshot is not laid out in list order")
	}
	held := mustGet(t, s, "n000")
	heldLabels := mustGet(t, s, "n127").Node().Labels
	// Changing fewer than compactMin NodeInfos clones them outside the arena.
	for i := range compactMin - 1 {
		if err := c.AddPod(l, st.Pod(fmt.Sprintf("p%d", i)).NodeName(fmt.Sprintf("n%03d", i)).Req("cpu", "1").Obj()); err != nil {
			t.Fatal(err)
		}
	}
	update(t, c, s)
	if inArena() || s.relocated != compactMin-1 {
		t.Fatalf("compacted after %d changes, want after %d", s.relocated, compactMin)
	}
	if held.Requested.MilliCPU != 0 || len(held.Pods) != 0 {
		t.Fatalf("a held NodeInfo changed: %v", held)
	}
	if err := c.AddPod(l, st.Pod("last").NodeName("n100").Req("cpu", "1").Obj()); err != nil {
		t.Fatal(err)
	}
	update(t, c, s)
	if !inArena() || s.relocated != 0 {
		t.Fatalf("not compacted after %d changes", compactMin)
	}
	if got := mustGet(t, s, "n000").Requested.MilliCPU; got != 1000 {
		t.Errorf("n000 requests %dm after compaction, want 1000m", got)
	}
	// The snapshot's label copies are never changed, so a compaction keeps them.
	if !sameMap(mustGet(t, s, "n127").Node().Labels, heldLabels) {
		t.Error("compaction copied the labels of an unchanged node")
	}
	if held.Requested.MilliCPU != 0 || len(held.Pods) != 0 {
		t.Errorf("a held NodeInfo changed by compaction: %v", held)
	}
	assertMatchesRebuild(t, c, s)
}

func TestSnapshotNodeLabelsAreInternedCopies(t *testing.T) {
	l := logr.Discard()
	c := New(context.Background())
	// Distinct string data for equal values, as two decoded objects have.
	a := cacheNode("a").Region("r").Zone(strings.Clone("zone-x")).Obj()
	b := cacheNode("b").Region("r").Zone(strings.Clone("zone-x")).Obj()
	c.AddNode(l, a)
	c.AddNode(l, b)
	s := NewEmptySnapshot()
	update(t, c, s)
	na, nb := mustGet(t, s, "a").Node(), mustGet(t, s, "b").Node()
	if !maps.Equal(na.Labels, a.Labels) || !maps.Equal(nb.Labels, b.Labels) {
		t.Fatalf("labels differ from the node's: %v, %v", na.Labels, nb.Labels)
	}
	za, zb := na.Labels[v1.LabelTopologyZone], nb.Labels[v1.LabelTopologyZone]
	if unsafe.StringData(za) != unsafe.StringData(zb) {
		t.Error("equal label values are not shared")
	}
	na.Labels["extra"] = "x"
	if _, leaked := a.Labels["extra"]; leaked {
		t.Error("the snapshot's labels are the informer's map")
	}
}

func TestSnapshotReusesLabelCopiesOfAnUnchangedNode(t *testing.T) {
	l := logr.Discard()
	tests := []struct {
		name string
		// next is the node's object after the first snapshot, or nil when
		// only a pod changes.
		next      *v1.Node
		wantLabel string
		wantReuse bool
	}{
		{name: "a pod added to the same node version", wantLabel: "blue", wantReuse: true},
		{name: "a new node version", next: cacheNode("a").ResourceVersion("2").Label("color", "green").Obj(), wantLabel: "green"},
		{name: "no resource version", next: cacheNode("a").Label("color", "green").Obj(), wantLabel: "green"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(context.Background())
			first := cacheNode("a").ResourceVersion("1").Label("color", "blue").Obj()
			c.AddNode(l, first)
			s := NewEmptySnapshot()
			update(t, c, s)
			before := mustGet(t, s, "a").Node().Labels
			if tt.next != nil {
				c.UpdateNode(l, first, tt.next)
			}
			if err := c.AddPod(l, st.Pod("p").NodeName("a").Obj()); err != nil {
				t.Fatal(err)
			}
			update(t, c, s)
			after := mustGet(t, s, "a")
			if len(after.Pods) != 1 {
				t.Fatalf("the snapshot's node has %d pods, want 1", len(after.Pods))
			}
			if got := after.Node().Labels["color"]; got != tt.wantLabel {
				t.Errorf("color = %q, want %q", got, tt.wantLabel)
			}
			if reused := reflect.ValueOf(after.Node().Labels).UnsafePointer() == reflect.ValueOf(before).UnsafePointer(); reused != tt.wantReuse {
				t.Errorf("labels map reused = %v, want %v", reused, tt.wantReuse)
			}
		})
	}
}

func sameMap(a, b map[string]string) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}
