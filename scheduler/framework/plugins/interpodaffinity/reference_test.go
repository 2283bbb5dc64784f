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
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// sameDomain reports whether both nodes have the label key with one value.
func sameDomain(a, b *v1.Node, key string) bool {
	va, oka := a.Labels[key]
	vb, okb := b.Labels[key]
	return oka && okb && va == vb
}

// referenceFilter is InterPodAffinity's Filter verdict for the candidate
// node, worked out pod by pod over the nodes with no counts at all: the
// reason of the first failing check, "" when the node passes. nsLabels
// gives each namespace's labels.
func referenceFilter(t *testing.T, pod *v1.Pod, nodes []*framework.NodeInfo, candidate *v1.Node, nsLabels map[string]labels.Set) string {
	t.Helper()
	pi, err := framework.NewPodInfo(pod)
	if err != nil {
		t.Fatal(err)
	}
	type placed struct {
		pi   *framework.PodInfo
		node *v1.Node
	}
	var existing []placed
	for _, ni := range nodes {
		if ni.Node() == nil {
			continue
		}
		for _, e := range ni.Pods {
			existing = append(existing, placed{e, ni.Node()})
		}
	}
	matchesAllTerms := func(p *v1.Pod) bool {
		for i := range pi.RequiredAffinityTerms {
			if !pi.RequiredAffinityTerms[i].Matches(p, nsLabels[p.Namespace]) {
				return false
			}
		}
		return len(pi.RequiredAffinityTerms) > 0
	}
	if terms := pi.RequiredAffinityTerms; len(terms) > 0 {
		allFound, anyCounted := true, false
		for i := range terms {
			if _, ok := candidate.Labels[terms[i].TopologyKey]; !ok {
				return ErrReasonAffinityRulesNotMatch
			}
		}
		for i := range terms {
			found := false
			for _, e := range existing {
				if !matchesAllTerms(e.pi.Pod) {
					continue
				}
				if _, ok := e.node.Labels[terms[i].TopologyKey]; ok {
					anyCounted = true
				}
				if sameDomain(e.node, candidate, terms[i].TopologyKey) {
					found = true
				}
			}
			allFound = allFound && found
		}
		if !allFound && (anyCounted || !matchesAllTerms(pod)) {
			return ErrReasonAffinityRulesNotMatch
		}
	}
	for i := range pi.RequiredAntiAffinityTerms {
		term := &pi.RequiredAntiAffinityTerms[i]
		for _, e := range existing {
			if term.Matches(e.pi.Pod, nsLabels[e.pi.Pod.Namespace]) && sameDomain(e.node, candidate, term.TopologyKey) {
				return ErrReasonAntiAffinityRulesNotMatch
			}
		}
	}
	for _, e := range existing {
		for i := range e.pi.RequiredAntiAffinityTerms {
			term := &e.pi.RequiredAntiAffinityTerms[i]
			if term.Matches(pod, nsLabels[pod.Namespace]) && sameDomain(e.node, candidate, term.TopologyKey) {
				return ErrReasonExistingAntiAffinityRulesNotMatch
			}
		}
	}
	return ""
}

// candidates are the nodes of the list, a copy of one of them (another
// object with the same labels, which the node index does not hold) and a
// node in a zone no listed node is in.
func candidates(nodes []*framework.NodeInfo, pick int) []*v1.Node {
	var out []*v1.Node
	for _, ni := range nodes {
		if ni.Node() != nil {
			out = append(out, ni.Node())
		}
	}
	out = append(out, out[pick%len(out)].DeepCopy(), node("ghost", zoneKey, "z9"))
	return out
}

// TestFilterMatchesReference compares Filter's verdict, with and without
// the count cache, on every node (and on nodes outside the node list) with
// the pod-by-pod reference after each of many random changes.
func TestFilterMatchesReference(t *testing.T) {
	ctx := context.Background()
	nsLabels := map[string]labels.Set{"team": {"team": "yes"}}
	pods := incomingPods()
	for seed := range int64(4) {
		c := newFakeCluster(100+seed, 20)
		h := newHandle(t, st.Serial{}, c.nodes, namespace("default"), namespace("team", "team", "yes"))
		cached := newPlugin(t, "", h)
		full := newPlugin(t, "", h)
		full.counts = nil
		for step := range 150 {
			what := c.step()
			h.Snapshot = st.NewLister(c.nodes...)
			for _, pod := range pods {
				for name, pl := range map[string]*InterPodAffinity{"cached": cached, "full": full} {
					state := framework.NewCycleState()
					_, status := pl.PreFilter(ctx, state, pod, c.nodes)
					for _, cand := range candidates(c.nodes, step) {
						want := referenceFilter(t, pod, c.nodes, cand, nsLabels)
						got := ""
						if status.IsSuccess() {
							ni := framework.NewNodeInfo()
							ni.SetNode(cand)
							got = pl.Filter(ctx, state, pod, ni).Message()
						} else if !status.IsSkip() {
							t.Fatalf("PreFilter: %v", status)
						}
						if got != want {
							t.Fatalf("seed %d, step %d (%s), %s, pod %s, node %s: Filter %q, want %q", seed, step, what, name, pod.Name, cand.Name, got, want)
						}
					}
				}
			}
		}
	}
}

// TestAddPodOutsideTheIndex adds and removes a pod on a node the node list
// does not hold, whose domain the counts keep apart.
func TestAddPodOutsideTheIndex(t *testing.T) {
	ctx := context.Background()
	nis := st.NodeInfos([]*v1.Node{node("a", zoneKey, "z1"), node("b", zoneKey, "z1")})
	pl := newPlugin(t, "", newHandle(t, st.Serial{}, nis))
	pod := st.Pod("p").Labels("color", "green").PodAntiAffinity(st.Term(zoneKey, "color", "green")).Obj()
	state := framework.NewCycleState()
	if _, status := pl.PreFilter(ctx, state, pod, nis); !status.IsSuccess() {
		t.Fatal(status)
	}
	ghost := st.NodeInfos([]*v1.Node{node("ghost", zoneKey, "z9")})[0]
	other := st.Pod("o").Labels("color", "green").NodeName("ghost").Obj()
	filter := func() (string, string) {
		return pl.Filter(ctx, state, pod, ghost).Message(), pl.Filter(ctx, state, pod, nis[0]).Message()
	}
	if s := pl.AddPod(ctx, state, pod, info(other), ghost); !s.IsSuccess() {
		t.Fatal(s)
	}
	if g, a := filter(); g != ErrReasonAntiAffinityRulesNotMatch || a != "" {
		t.Errorf("after AddPod: ghost %q, a %q; want the ghost rejected, a accepted", g, a)
	}
	clone := state.Clone()
	if s := pl.RemovePod(ctx, state, pod, info(other), ghost); !s.IsSuccess() {
		t.Fatal(s)
	}
	if g, a := filter(); g != "" || a != "" {
		t.Errorf("after RemovePod: ghost %q, a %q; want both accepted", g, a)
	}
	if got := pl.Filter(ctx, clone, pod, ghost).Message(); got != ErrReasonAntiAffinityRulesNotMatch {
		t.Errorf("the state's clone changed with it: ghost %q", got)
	}
}
