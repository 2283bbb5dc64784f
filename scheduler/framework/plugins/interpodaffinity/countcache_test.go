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

package interpodaffinity

import (
	"context"
	"maps"
	"math/rand"
	"strconv"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// fakeCluster mimics the snapshot: a changed node gets a fresh NodeInfo with
// a new Generation and a copy of its Node object, unchanged ones keep
// theirs, and a compaction copies every NodeInfo and Node keeping the
// Generation.
type fakeCluster struct {
	rng   *rand.Rand
	gen   int64
	seq   int
	nodes []*framework.NodeInfo
}

var (
	randZones  = []string{"z1", "z2", "z3"}
	randColors = []string{"blue", "green", "red"}
	randNS     = []string{"default", "team"}
)

func newFakeCluster(seed int64, n int) *fakeCluster {
	c := &fakeCluster{rng: rand.New(rand.NewSource(seed))}
	for range n {
		c.nodes = append(c.nodes, c.freshNode())
	}
	return c
}

func (c *fakeCluster) stamp(ni *framework.NodeInfo) *framework.NodeInfo {
	c.gen++
	ni.Generation = c.gen
	return ni
}

// relocate gives the NodeInfo a copy of its Node, as the snapshot does when
// it copies a NodeInfo.
func relocate(ni *framework.NodeInfo) *framework.NodeInfo {
	if n := ni.Node(); n != nil {
		moved := *n
		ni.SetNode(&moved)
	}
	return ni
}

func (c *fakeCluster) pick(list []string) string { return list[c.rng.Intn(len(list))] }

// freshNode is a new node in a random zone; a few lack the zone label.
func (c *fakeCluster) freshNode() *framework.NodeInfo {
	c.seq++
	name := "n" + strconv.Itoa(c.seq)
	n := node(name, zoneKey, c.pick(randZones))
	if c.rng.Intn(8) == 0 {
		n = node(name)
	}
	ni := framework.NewNodeInfo()
	ni.SetNode(n)
	return c.stamp(ni)
}

// randomPod is a pod with a random color and namespace, and sometimes
// required affinity or anti-affinity of its own.
func (c *fakeCluster) randomPod(nodeName string) *framework.PodInfo {
	c.seq++
	b := st.Pod("p"+strconv.Itoa(c.seq)).Labels("color", c.pick(randColors)).Namespace(c.pick(randNS)).NodeName(nodeName)
	switch c.rng.Intn(8) {
	case 0:
		b = b.PodAntiAffinity(st.Term(hostKey, "color", c.pick(randColors)))
	case 1:
		b = b.PodAntiAffinity(st.Term(zoneKey, "color", c.pick(randColors)).NamespaceSelector("team", "yes"))
	case 2:
		b = b.PodAffinity(st.Term(zoneKey, "color", c.pick(randColors)))
	case 3:
		b = b.PreferPodAffinity(int32(1+c.rng.Intn(3)), st.Term(zoneKey, "color", c.pick(randColors)))
	case 4:
		b = b.PreferPodAntiAffinity(int32(1+c.rng.Intn(3)), st.Term(zoneKey, "color", c.pick(randColors))).
			PreferPodAffinity(int32(1+c.rng.Intn(3)), st.Term(hostKey, "color", c.pick(randColors)))
	}
	b.UID("p" + strconv.Itoa(c.seq))
	return info(b.Obj())
}

// step changes the cluster at random, as the cache between two cycles does.
func (c *fakeCluster) step() string {
	i := c.rng.Intn(len(c.nodes))
	old := c.nodes[i]
	switch op := c.rng.Intn(20); {
	case op < 8:
		ni := relocate(c.stamp(old.Clone()))
		ni.AddPodInfo(c.randomPod(old.Node().Name))
		c.nodes[i] = ni
		return "add pod"
	case op < 13:
		if len(old.Pods) == 0 {
			return "nothing"
		}
		ni := relocate(c.stamp(old.Clone()))
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
			n.Labels[zoneKey] = c.pick(randZones)
		}
		ni.SetNode(n)
		c.nodes[i] = ni
		return "relabel node"
	case op == 15:
		c.nodes = append(c.nodes, c.freshNode())
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
			out[j] = relocate(ni.Clone())
		}
		c.nodes = out
		return "compact"
	default:
		return "nothing"
	}
}

// incomingPods cover the counts the cache keeps: existing pods' anti-affinity
// only, own anti-affinity, own affinity, both, and namespace selectors.
func incomingPods() []*v1.Pod {
	return []*v1.Pod{
		st.Pod("plain").Labels("color", "blue").Obj(),
		st.Pod("plain-team").Labels("color", "red").Namespace("team").Obj(),
		st.Pod("anti-host").Labels("color", "green").PodAntiAffinity(st.Term(hostKey, "color", "green")).Obj(),
		st.Pod("anti-zone-all-ns").Labels("color", "blue").PodAntiAffinity(st.Term(zoneKey, "color", "red").NamespaceSelector()).Obj(),
		st.Pod("affinity-zone").Labels("color", "blue").PodAffinity(st.Term(zoneKey, "color", "blue")).Obj(),
		st.Pod("affinity-team").Labels("color", "red").PodAffinity(st.Term(zoneKey, "color", "red").NamespaceSelector("team", "yes")).
			PodAntiAffinity(st.Term(hostKey, "color", "green").Namespaces("default", "team")).Obj(),
		st.Pod("two-affinity").Labels("color", "green").PodAffinity(st.Term(zoneKey, "color", "green")).PodAffinity(st.Term(hostKey, "color", "green")).Obj(),
	}
}

func readState(t *testing.T, state *framework.CycleState) *filterState {
	t.Helper()
	s, err := framework.ReadState[*filterState](state, preFilterKey)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestCountCacheMatchesFullRecount patches the cached counts over many
// random changes of the cluster and compares PreFilter's state and every
// node's Filter verdict, after every change, with a plugin that recounts
// everything.
func TestCountCacheMatchesFullRecount(t *testing.T) {
	ctx := context.Background()
	pods := incomingPods()
	for seed := range int64(6) {
		c := newFakeCluster(seed, 25)
		var par framework.Parallelizer = st.Serial{}
		if seed%2 == 1 {
			par = st.Concurrent{}
		}
		h := newHandle(t, par, c.nodes, namespace("default"), namespace("team", "team", "yes"))
		cached := newPlugin(t, "", h)
		full := newPlugin(t, "", h)
		full.counts = nil
		for step := range 300 {
			what := c.step()
			h.Snapshot = st.NewLister(c.nodes...)
			for _, pod := range pods {
				if c.rng.Intn(3) == 0 {
					continue
				}
				comparePreScore(t, cached, full, pod, c.nodes)
				gotState, wantState := framework.NewCycleState(), framework.NewCycleState()
				_, gotStatus := cached.PreFilter(ctx, gotState, pod, c.nodes)
				_, wantStatus := full.PreFilter(ctx, wantState, pod, c.nodes)
				if gotStatus.Code() != wantStatus.Code() {
					t.Fatalf("seed %d, step %d (%s), pod %s: PreFilter %v, want %v", seed, step, what, pod.Name, gotStatus, wantStatus)
				}
				if !wantStatus.IsSuccess() {
					continue
				}
				got, want := readState(t, gotState), readState(t, wantState)
				for name, pair := range map[string][2]*domainCounts{
					"existingAnti": {got.existingAnti, want.existingAnti},
					"affinity":     {got.affinity, want.affinity},
					"antiAffinity": {got.antiAffinity, want.antiAffinity},
				} {
					if !maps.Equal(pair[0].asMap(), pair[1].asMap()) {
						t.Fatalf("seed %d, step %d (%s), pod %s: %s counts %v, want %v", seed, step, what, pod.Name, name, pair[0].asMap(), pair[1].asMap())
					}
				}
				for _, ni := range c.nodes {
					g, w := cached.Filter(ctx, gotState, pod, ni), full.Filter(ctx, wantState, pod, ni)
					if g.Code() != w.Code() || g.Message() != w.Message() {
						t.Fatalf("seed %d, step %d (%s), pod %s, node %s: Filter %v, want %v", seed, step, what, pod.Name, ni.Node().Name, g, w)
					}
				}
			}
		}
	}
}

// comparePreScore runs PreScore with and without the count cache and
// compares the status and the weights per domain.
func comparePreScore(t *testing.T, cached, full *InterPodAffinity, pod *v1.Pod, nodes []*framework.NodeInfo) {
	t.Helper()
	ctx := context.Background()
	gotState, wantState := framework.NewCycleState(), framework.NewCycleState()
	got, want := cached.PreScore(ctx, gotState, pod, nodes), full.PreScore(ctx, wantState, pod, nodes)
	if got.Code() != want.Code() {
		t.Fatalf("pod %s: PreScore %v, want %v", pod.Name, got, want)
	}
	if !want.IsSuccess() {
		return
	}
	weights := func(state *framework.CycleState) map[domain]int64 {
		s, err := framework.ReadState[*scoreState](state, preScoreKey)
		if err != nil {
			t.Fatal(err)
		}
		out := map[domain]int64{}
		for _, ks := range s.domains {
			for v, w := range ks.values {
				out[domain{ks.key, v}] = w
			}
		}
		return out
	}
	if g, w := weights(gotState), weights(wantState); !maps.Equal(g, w) {
		t.Fatalf("pod %s: PreScore weights %v, want %v", pod.Name, g, w)
	}
}

// TestCountCacheCopiesOnWrite checks that AddPod on one cycle's state
// leaves the cache alone, and that a refresh leaves an earlier state alone.
func TestCountCacheCopiesOnWrite(t *testing.T) {
	ctx := context.Background()
	nis := st.NodeInfos([]*v1.Node{node("a"), node("b")}, st.Pod("x").Labels("color", "green").NodeName("a").Obj())
	for i, ni := range nis {
		ni.Generation = int64(i + 1)
	}
	h := newHandle(t, st.Serial{}, nis)
	pl := newPlugin(t, "", h)
	pod := st.Pod("p").Labels("color", "green").PodAntiAffinity(st.Term(hostKey, "color", "green")).Obj()

	first := framework.NewCycleState()
	pl.PreFilter(ctx, first, pod, nis)
	if s := pl.AddPod(ctx, first, pod, info(st.Pod("y").Labels("color", "green").NodeName("b").Obj()), nis[1]); !s.IsSuccess() {
		t.Fatal(s)
	}
	if got := readState(t, first).antiAffinity.get(domain{hostKey, "b"}); got != 1 {
		t.Fatalf("after AddPod: b counts %d, want 1", got)
	}
	second := framework.NewCycleState()
	pl.PreFilter(ctx, second, pod, nis)
	if got := readState(t, second).antiAffinity.asMap(); len(got) != 1 {
		t.Errorf("AddPod leaked into the cache: %v", got)
	}

	changed := nis[1].Clone()
	changed.AddPodInfo(info(st.Pod("z").Labels("color", "green").NodeName("b").Obj()))
	changed.Generation = 10
	third := framework.NewCycleState()
	pl.PreFilter(ctx, third, pod, []*framework.NodeInfo{nis[0], changed})
	if got := readState(t, third).antiAffinity.asMap(); len(got) != 2 {
		t.Errorf("refresh missed the change: %v", got)
	}
	if got := readState(t, second).antiAffinity.asMap(); len(got) != 1 {
		t.Errorf("refresh changed an earlier cycle's counts: %v", got)
	}
}

func TestTermsKeyTellsSelectorsApart(t *testing.T) {
	everything := info(st.Pod("e").PodAffinity(st.Term(zoneKey).Selector(nil)).Obj())
	all := info(st.Pod("a").PodAffinity(st.Term(zoneKey)).Obj())
	one := info(st.Pod("o").PodAffinity(st.Term(zoneKey, "color", "blue")).Obj())
	other := info(st.Pod("n").Namespace("team").PodAffinity(st.Term(zoneKey, "color", "blue")).Obj())
	keys := map[string]string{}
	for name, pi := range map[string]*framework.PodInfo{"nil selector": everything, "empty selector": all, "one label": one, "other namespace": other} {
		k := termsKey("affinity", pi.RequiredAffinityTerms)
		if prev, ok := keys[k]; ok {
			t.Errorf("%s and %s share the key %q", name, prev, k)
		}
		keys[k] = name
	}
}
