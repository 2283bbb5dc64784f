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

package podtopologyspread

import (
	"context"

	"maps"
	"math/rand"
	"testing"
	"time"

	"github.com/go-logr/logr"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// fakeCluster mimics the snapshot: a changed node gets a fresh NodeInfo with
// a new Generation, unchanged ones keep theirs, and a compaction copies every
// NodeInfo keeping its Generation.
type fakeCluster struct {
	rng   *rand.Rand
	gen   int64
	nodes []*framework.NodeInfo
	seq   int
}

var (
	randZones      = []string{"z1", "z2", "z3", "z4"}
	randNamespaces = []string{"default", "other"}
	randColors     = []string{"blue", "green", "red"}
)

func newFakeCluster(seed int64, n int) *fakeCluster {
	c := &fakeCluster{rng: rand.New(rand.NewSource(seed))}
	for range n {
		c.nodes = append(c.nodes, c.stamp(framework.NewNodeInfo()))
		c.nodes[len(c.nodes)-1].SetNode(c.randomNode())
	}
	inList(c.nodes)
	return c
}

func (c *fakeCluster) stamp(ni *framework.NodeInfo) *framework.NodeInfo {
	c.gen++
	ni.Generation = c.gen
	return ni
}

// randomNode is a node in a random zone; a few lack the zone label.
func (c *fakeCluster) randomNode() *v1.Node {
	c.seq++
	name := "n" + itoa(c.seq)
	if c.rng.Intn(8) == 0 {
		return node(name, hostKey, name)
	}
	return zoned(name, randZones[c.rng.Intn(len(randZones))])
}

func (c *fakeCluster) randomPod(nodeName string) *framework.PodInfo {
	c.seq++
	b := st.Pod("p"+itoa(c.seq)).Namespace(randNamespaces[c.rng.Intn(2)]).
		Labels("color", randColors[c.rng.Intn(len(randColors))], "tier", itoa(c.rng.Intn(2))).NodeName(nodeName)
	if c.rng.Intn(10) == 0 {
		b = b.Terminating(time.Now())
	}
	b.UID("p" + itoa(c.seq))
	return b.Info()
}

// step changes the cluster at random, as the cache between two cycles does.
func (c *fakeCluster) step() string {
	i := c.rng.Intn(len(c.nodes))
	old := c.nodes[i]
	switch op := c.rng.Intn(20); {
	case op < 8:
		ni := c.stamp(old.Clone())
		ni.AddPodInfo(c.randomPod(old.Node().Name))
		c.nodes[i] = ni
		return "add pod"
	case op < 13:
		if len(old.Pods) == 0 {
			return "nothing"
		}
		ni := c.stamp(old.Clone())
		if err := ni.RemovePod(old.Pods[c.rng.Intn(len(old.Pods))].Pod); err != nil {
			panic(err)
		}
		c.nodes[i] = ni
		return "remove pod"
	case op < 15:
		ni := c.stamp(old.Clone())
		n := old.Node().DeepCopy()
		if c.rng.Intn(3) == 0 {
			delete(n.Labels, zoneKey)
		} else {
			n.Labels[zoneKey] = randZones[c.rng.Intn(len(randZones))]
		}
		ni.SetNode(n)
		c.nodes[i] = ni
		return "relabel node"
	case op == 15:
		ni := c.stamp(framework.NewNodeInfo())
		ni.SetNode(c.randomNode())
		c.nodes = append(c.nodes, ni)
		return "add node"
	case op == 16 && len(c.nodes) > 2:
		c.nodes = append(c.nodes[:i:i], c.nodes[i+1:]...)
		return "remove node"
	case op == 17:
		j := c.rng.Intn(len(c.nodes))
		c.nodes = append([]*framework.NodeInfo(nil), c.nodes...)
		c.nodes[i], c.nodes[j] = c.nodes[j], c.nodes[i]
		return "swap nodes"
	case op == 18:
		out := make([]*framework.NodeInfo, len(c.nodes))
		for j, ni := range c.nodes {
			out[j] = ni.Clone()
		}
		c.nodes = out
		return "compact"
	default:
		return "nothing"
	}
}

// incomingPods are pods whose hard constraints the count cache takes.
func incomingPods() []*v1.Pod {
	blue := match("color", "blue")
	return []*v1.Pod{
		st.Pod("zone").Labels("color", "blue").Spread(1, zoneKey, hard, blue).Obj(),
		st.Pod("zone-host").Labels("color", "blue").Spread(2, zoneKey, hard, blue).Spread(1, hostKey, hard, blue).Obj(),
		st.Pod("other-ns").Namespace("other").Labels("color", "green").Spread(1, zoneKey, hard, match("color", "green")).Obj(),
		st.Pod("two-selectors").Labels("color", "red", "tier", "1").
			Spread(1, zoneKey, hard, match("color", "red")).Spread(1, hostKey, hard, match("tier", "1")).Obj(),
		st.Pod("min-domains").Labels("color", "blue").Spread(1, zoneKey, hard, blue).MinDomains(5).Obj(),
		st.Pod("label-keys").Labels("color", "blue", "tier", "0").Spread(1, zoneKey, hard, blue).SpreadMatchLabelKeys("tier").Obj(),
		st.Pod("ignore-affinity").Labels("color", "blue").NodeSelector(zoneKey, "z1").
			Spread(1, zoneKey, hard, blue).NodeAffinityPolicy(ignore).Obj(),
		st.Pod("exists").Labels("color", "blue").Spread(1, hostKey, hard, exists("color")).Obj(),
	}
}

// uncachedPods are pods whose node inclusion depends on the pod.
func uncachedPods() []*v1.Pod {
	blue := match("color", "blue")
	return []*v1.Pod{
		st.Pod("node-selector").Labels("color", "blue").NodeSelector(zoneKey, "z1").Spread(1, zoneKey, hard, blue).Obj(),
		st.Pod("taints").Labels("color", "blue").Spread(1, zoneKey, hard, blue).NodeTaintsPolicy(honor).Obj(),
	}
}

func TestCacheable(t *testing.T) {
	for _, p := range incomingPods() {
		cs, err := parseConstraints(p.Spec.TopologySpreadConstraints, p.Labels, v1.DoNotSchedule)
		if err != nil || !cacheable(p, cs) {
			t.Errorf("pod %s: cacheable = false (err %v), want true", p.Name, err)
		}
	}
	for _, p := range uncachedPods() {
		cs, err := parseConstraints(p.Spec.TopologySpreadConstraints, p.Labels, v1.DoNotSchedule)
		if err != nil || cacheable(p, cs) {
			t.Errorf("pod %s: cacheable = true (err %v), want false", p.Name, err)
		}
	}
}

// fullRecount is PreFilter's state counted over every node, without the cache.
func fullRecount(t *testing.T, pl *PodTopologySpread, pod *v1.Pod, nodes []*framework.NodeInfo) *filterState {
	t.Helper()
	cs, err := pl.constraintsFor(pod, v1.DoNotSchedule)
	if err != nil {
		t.Fatal(err)
	}
	return pl.countHard(context.Background(), pod, cs, nodes)
}

func preFilterState(t *testing.T, pl *PodTopologySpread, pod *v1.Pod, nodes []*framework.NodeInfo) *filterState {
	t.Helper()
	state := framework.NewCycleState()
	if _, s := pl.PreFilter(context.Background(), state, pod, nodes); !s.IsSuccess() {
		t.Fatal(s)
	}
	s, err := readFilterState(state)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// sameState reports how got differs from want in what Filter reads: the
// counts, the global minimums and selfMatch.
func sameState(got, want *filterState) string {
	for i := range want.counts {
		if !maps.Equal(got.counts[i], want.counts[i]) {
			return "counts of constraint " + itoa(i) + " differ"
		}
		if got.globalMin(i) != want.globalMin(i) {
			return "global minimum of constraint " + itoa(i) + " differs"
		}
		if got.selfMatch[i] != want.selfMatch[i] {
			return "selfMatch differs"
		}
		if got.lowest == nil {
			continue
		}
		if l := got.lowest[i]; len(got.counts[i]) > 0 && got.counts[i][l[0].domain] != l[0].pods {
			return "lowest domain of constraint " + itoa(i) + " is stale"
		}
	}
	return ""
}

// TestCountCacheMatchesFullRecount patches the cached counts over many
// random changes of the cluster and compares them, after every change, with
// a full recount over the same nodes.
func TestCountCacheMatchesFullRecount(t *testing.T) {
	pods := append(incomingPods(), uncachedPods()...)
	// viewed counts the cycles whose state came from the count cache,
	// positioned the nodes Filter then found by position.
	viewed, positioned := 0, 0
	for seed := range int64(6) {
		c := newFakeCluster(seed, 30)
		for range 200 {
			c.nodes[0].AddPodInfo(c.randomPod(c.nodes[0].Node().Name))
		}
		c.nodes[0] = c.stamp(c.nodes[0].Clone())
		h := newHandle(t, c.nodes)
		if seed%2 == 0 {
			h.Parallel = st.Concurrent{}
		}
		pl := newPlugin(t, nil, h)
		for step := range 400 {
			what := c.step()
			// The snapshot lays its list out again after every change.
			inList(c.nodes)
			h.Snapshot = st.NewLister(c.nodes...)
			// Not every pod runs every cycle, so entries lag several changes behind.
			for _, pod := range pods {
				if c.rng.Intn(3) == 0 {
					continue
				}
				got := preFilterState(t, pl, pod, c.nodes)
				want := fullRecount(t, pl, pod, c.nodes)
				if diff := sameState(got, want); diff != "" {
					t.Fatalf("seed %d, step %d (%s), pod %s: %s\ngot  %v\nwant %v", seed, step, what, pod.Name, diff, got.counts, want.counts)
				}
				if got.view != nil {
					viewed++
					for _, ni := range c.nodes {
						if got.view.tracker.Position(ni) >= 0 {
							positioned++
						}
					}
				}
				if diff := sameFilter(pl, pod, c.nodes, got, want); diff != "" {
					t.Fatalf("seed %d, step %d (%s), pod %s: %s", seed, step, what, pod.Name, diff)
				}
				// Preemption adds a pod to the state: the cached state
				// copies its counts, finds its lowest domains and then
				// agrees with the recount again.
				ni := c.nodes[c.rng.Intn(len(c.nodes))]
				added := c.randomPod(ni.Node().Name)
				got.adjust(logr.Discard(), pod, added.Pod, ni.Node(), 1)
				want.adjust(logr.Discard(), pod, added.Pod, ni.Node(), 1)
				if diff := sameState(got, want); diff != "" {
					t.Fatalf("seed %d, step %d (%s), pod %s, after adding a pod: %s\ngot  %v\nwant %v", seed, step, what, pod.Name, diff, got.counts, want.counts)
				}
				if diff := sameFilter(pl, pod, c.nodes, got, want); diff != "" {
					t.Fatalf("seed %d, step %d (%s), pod %s, after adding a pod: %s", seed, step, what, pod.Name, diff)
				}
			}
		}
	}
	if viewed == 0 || positioned == 0 {
		t.Errorf("%d cycles filtered through the count cache's view, %d nodes by position; want some of each", viewed, positioned)
	}
}

// sameFilter reports the first node that Filter judges differently with
// the state got than with want.
func sameFilter(pl *PodTopologySpread, pod *v1.Pod, nodes []*framework.NodeInfo, got, want *filterState) string {
	gotState, wantState := framework.NewCycleState(), framework.NewCycleState()
	gotState.Write(preFilterKey, got)
	wantState.Write(preFilterKey, want)
	for _, ni := range nodes {
		g := pl.Filter(context.Background(), gotState, pod, ni)
		w := pl.Filter(context.Background(), wantState, pod, ni)
		if !g.Equal(w) {
			return "node " + ni.Node().Name + ": Filter = " + g.String() + ", a full recount gives " + w.String()
		}
	}
	return ""
}

// TestCountCacheCopiesOnWrite checks that AddPod on one cycle's state leaves
// the cache and other cycles' states alone, and that a later refresh leaves
// an earlier state alone.
func TestCountCacheCopiesOnWrite(t *testing.T) {
	nodes := []*v1.Node{zoned("a1", "a"), zoned("b1", "b")}
	nis := nodeInfos(nodes, placed(2, "a1", "color", "blue")...)
	for i, ni := range nis {
		ni.Generation = int64(i + 1)
	}
	h := newHandle(t, nis)
	pl := newPlugin(t, nil, h)
	pod := st.Pod("p").Labels("color", "blue").Spread(1, zoneKey, hard, match("color", "blue")).Obj()
	ctx := context.Background()

	state := framework.NewCycleState()
	pl.PreFilter(ctx, state, pod, nis)
	first, _ := readFilterState(state)
	added := st.Pod("x").Labels("color", "blue").NodeName("b1").Info()
	if s := pl.AddPod(ctx, state, pod, added, nis[1]); !s.IsSuccess() {
		t.Fatal(s)
	}
	if first.counts[0]["b"] != 1 {
		t.Fatalf("after AddPod: counts %v, want b=1", first.counts[0])
	}
	second := preFilterState(t, pl, pod, nis)
	if second.counts[0]["b"] != 0 || second.counts[0]["a"] != 2 {
		t.Errorf("AddPod leaked into the cache: counts %v", second.counts[0])
	}

	changed := nis[0].Clone()
	changed.AddPodInfo(st.Pod("y").Labels("color", "blue").NodeName("a1").Info())
	changed.Generation = 10
	third := preFilterState(t, pl, pod, []*framework.NodeInfo{changed, nis[1]})
	if third.counts[0]["a"] != 3 {
		t.Errorf("refresh missed the change: counts %v", third.counts[0])
	}
	if second.counts[0]["a"] != 2 {
		t.Errorf("refresh changed an earlier cycle's counts: %v", second.counts[0])
	}
}

func TestCountCacheEvictsLeastRecentlyUsed(t *testing.T) {
	nis := nodeInfos([]*v1.Node{zoned("a1", "a")})
	pl := newPlugin(t, nil, newHandle(t, nis))
	for i := range maxCountEntries + 3 {
		pod := st.Pod("p").Labels("color", "c"+itoa(i)).Spread(1, zoneKey, hard, match("color", "c"+itoa(i))).Obj()
		preFilterState(t, pl, pod, nis)
		if pl.hard.entries.Len() != min(i, maxCountEntries) {
			t.Fatalf("a key asked for once got an entry: %d entries after %d keys", pl.hard.entries.Len(), i+1)
		}
		preFilterState(t, pl, pod, nis)
	}
	if pl.hard.entries.Len() != maxCountEntries {
		t.Fatalf("entries = %d, want %d", pl.hard.entries.Len(), maxCountEntries)
	}
	if pl.hard.entries.Has(cacheKey("default", []constraint{{topologyKey: zoneKey, selector: mustSelector(t, "color", "c0")}})) {
		t.Errorf("the least recently used entry was kept")
	}
}

func mustSelector(t *testing.T, pairs ...string) labels.Selector {
	t.Helper()
	cs, err := parseConstraints([]v1.TopologySpreadConstraint{{TopologyKey: zoneKey, WhenUnsatisfiable: hard, LabelSelector: match(pairs...)}}, nil, hard)
	if err != nil {
		t.Fatal(err)
	}
	return cs[0].selector
}
