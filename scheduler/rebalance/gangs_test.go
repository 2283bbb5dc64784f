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

package rebalance

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/rebalance/strategies/strategytest"
)

// fakeGangs puts the named pods in one gang, whole when its disruption
// mode is All.
type fakeGangs struct {
	members  map[string]bool
	minCount int
	whole    bool
	pods     []*v1.Pod
}

func (g *fakeGangs) GangOf(pod *v1.Pod) (Gang, bool) {
	if !g.members[pod.Name] {
		return Gang{}, false
	}
	var bound []*v1.Pod
	for _, p := range g.pods {
		if g.members[p.Name] {
			bound = append(bound, p)
		}
	}
	return Gang{Name: "default/crew", MinCount: g.minCount, Bound: bound, Whole: g.whole}, true
}

func TestGangsStayWhole(t *testing.T) {
	old, young := t0.Add(-time.Hour), t0.Add(-time.Second)
	tests := []struct {
		name     string
		created  map[string]time.Time // the pods on n1, all members of the gang but "solo"
		minCount int
		// whole sets the gang's disruption mode All.
		whole  bool
		limits *v1alpha1.EvictionLimits
		// pdbAllows, when set, is a PodDisruptionBudget over the members
		// allowing that many disruptions.
		pdbAllows *int32
		// want maps each pod in the plan to its result.
		want       map[string]v1alpha1.EvictionResult
		wantReason string
	}{
		{
			name:     "an old member of a gang at minCount takes the gang with it",
			created:  map[string]time.Time{"m-1": old, "m-2": young, "m-3": young, "solo": young},
			minCount: 3,
			want: map[string]v1alpha1.EvictionResult{
				"m-1": v1alpha1.EvictionPlanned, "m-2": v1alpha1.EvictionPlanned, "m-3": v1alpha1.EvictionPlanned,
			},
			wantReason: "with all 3 members of gang default/crew, since one fewer would leave it below minCount 3",
		},
		{
			name:     "a gang with room above minCount gives up one member",
			created:  map[string]time.Time{"m-1": old, "m-2": young, "m-3": young, "solo": young},
			minCount: 2,
			want:     map[string]v1alpha1.EvictionResult{"m-1": v1alpha1.EvictionPlanned},
		},
		{
			name:     "a gang the limits cannot take whole stays, and the plan says why",
			created:  map[string]time.Time{"m-1": old, "m-2": young, "m-3": young, "solo": old},
			minCount: 3,
			limits:   &v1alpha1.EvictionLimits{MaxPodsToEvictTotal: ptr.To[int32](2)},
			want:     map[string]v1alpha1.EvictionResult{"m-1": v1alpha1.EvictionSkipped, "solo": v1alpha1.EvictionPlanned},
			wantReason: "skipped: gang default/crew stays whole (minCount 3): evicting its 3 members would pass a limit: " +
				"maxPodsToEvictTotal 2 reached",
		},
		{
			name:      "a gang a PodDisruptionBudget would stop half way stays whole, checked before any eviction",
			created:   map[string]time.Time{"m-1": old, "m-2": young, "m-3": young, "solo": young},
			minCount:  3,
			pdbAllows: ptr.To[int32](2),
			want:      map[string]v1alpha1.EvictionResult{"m-1": v1alpha1.EvictionSkipped},
			wantReason: "skipped: gang default/crew stays whole (minCount 3): " +
				"PodDisruptionBudget crew allows 2 disruptions, and evicting the gang takes 3",
		},
		{
			name:      "a gang its PodDisruptionBudget lets go whole goes",
			created:   map[string]time.Time{"m-1": old, "m-2": young, "m-3": young, "solo": young},
			minCount:  3,
			pdbAllows: ptr.To[int32](3),
			want: map[string]v1alpha1.EvictionResult{
				"m-1": v1alpha1.EvictionPlanned, "m-2": v1alpha1.EvictionPlanned, "m-3": v1alpha1.EvictionPlanned,
			},
		},
		{
			name:     "a group whose disruption mode is All goes whole, minCount or not",
			created:  map[string]time.Time{"m-1": old, "m-2": young, "m-3": young, "solo": young},
			minCount: 1,
			whole:    true,
			want: map[string]v1alpha1.EvictionResult{
				"m-1": v1alpha1.EvictionPlanned, "m-2": v1alpha1.EvictionPlanned, "m-3": v1alpha1.EvictionPlanned,
			},
			wantReason: "with all 3 members of gang default/crew, whose disruption mode is All",
		},
		{
			name:     "a pod in no gang goes alone",
			created:  map[string]time.Time{"m-1": young, "m-2": young, "m-3": young, "solo": old},
			minCount: 3,
			want:     map[string]v1alpha1.EvictionResult{"solo": v1alpha1.EvictionPlanned},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var objs []k8sruntime.Object
			gangs := &fakeGangs{members: map[string]bool{"m-1": true, "m-2": true, "m-3": true}, minCount: tc.minCount, whole: tc.whole}
			objs = append(objs, strategytest.Node("n1").Obj())
			if tc.pdbAllows != nil {
				objs = append(objs, &policyv1.PodDisruptionBudget{
					ObjectMeta: metav1.ObjectMeta{Name: "crew", Namespace: "default"},
					Spec:       policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "crew"}}},
					Status:     policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: *tc.pdbAllows},
				})
			}
			for _, name := range []string{"m-1", "m-2", "m-3", "solo"} {
				b := strategytest.Pod(name).NodeName("n1").Created(tc.created[name])
				if name != "solo" {
					b = b.Label("app", "crew")
				}
				p := b.Obj()
				objs = append(objs, p)
				gangs.pods = append(gangs.pods, p)
			}
			spec := lifetimePolicy(true, every(10*time.Minute))
			spec.Limits = tc.limits
			expectPlan(t, objs, gangs, spec, tc.want, tc.wantReason)
		})
	}
}

// expectPlan runs the dry-run policy spec once over objs, with gangs, and
// expects its plan to be want, one of its reasons to contain wantReason
// (when set).
func expectPlan(t *testing.T, objs []k8sruntime.Object, gangs Gangs, spec *v1alpha1.RebalancePolicySpec, want map[string]v1alpha1.EvictionResult, wantReason string) {
	t.Helper()
	r := New(fake.NewClientset(objs...), nil, nil, NewInTreeRegistry(), WithClock(clocktesting.NewFakeClock(t0)), WithGangs(gangs))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Start(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	if err := r.SetPolicy("p", 1, spec); err != nil {
		t.Fatal(err)
	}
	res := waitRun(t, r, "p", t0)
	got := map[string]v1alpha1.EvictionResult{}
	var reasons []string
	for _, e := range res.Plan {
		got[e.Pod] = e.Result
		reasons = append(reasons, e.Reason)
	}
	if len(got) != len(want) {
		t.Fatalf("plan %v, want %v", got, want)
	}
	for pod, w := range want {
		if got[pod] != w {
			t.Fatalf("plan %v, want %v", got, want)
		}
	}
	if wantReason != "" && !slices.ContainsFunc(reasons, func(r string) bool { return strings.Contains(r, wantReason) }) {
		t.Errorf("no reason in the plan says %q: %q", wantReason, reasons)
	}
}

// hierarchyGangs puts pods a-1 and a-2 in PodGroup a (a gang of minCount
// 2) and b-1 in PodGroup b (basic), both children of CompositePodGroup
// root.
type hierarchyGangs struct {
	root *Composite
}

func newHierarchyGangs(pods []*v1.Pod, minGroupCount int, whole bool) *hierarchyGangs {
	of := func(prefix string) []*v1.Pod {
		var out []*v1.Pod
		for _, p := range pods {
			if strings.HasPrefix(p.Name, prefix) {
				out = append(out, p)
			}
		}
		return out
	}
	root := &Composite{Name: "default/root", MinGroupCount: minGroupCount, Whole: whole, Children: []Child{
		{Name: "default/a", MinCount: 2, Bound: of("a-")},
		{Name: "default/b", MinCount: 1, Bound: of("b-")},
	}}
	return &hierarchyGangs{root: root}
}

func (g *hierarchyGangs) GangOf(pod *v1.Pod) (Gang, bool) {
	for _, ch := range g.root.Children {
		if slices.ContainsFunc(ch.Bound, func(p *v1.Pod) bool { return p.Name == pod.Name }) {
			gang := Gang{Name: ch.Name, Bound: ch.Bound, Parent: g.root}
			if ch.Name == "default/a" {
				gang.MinCount = 2
			}
			return gang, true
		}
	}
	return Gang{}, false
}

func TestCompositePodGroupsStayWhole(t *testing.T) {
	old, young := t0.Add(-time.Hour), t0.Add(-time.Second)
	all := map[string]v1alpha1.EvictionResult{"a-1": v1alpha1.EvictionPlanned, "a-2": v1alpha1.EvictionPlanned, "b-1": v1alpha1.EvictionPlanned}
	tests := []struct {
		name          string
		old           string // the one old pod, which PodLifeTime evicts
		minGroupCount int
		whole         bool
		want          map[string]v1alpha1.EvictionResult
		wantReason    string
	}{
		{
			name: "a gang PodGroup going whole takes a gang of PodGroups below minGroupCount with it",
			old:  "a-1", minGroupCount: 2, want: all,
			wantReason: "with all 3 members of gang default/root, since its PodGroups would leave it below minGroupCount 2",
		},
		{
			name: "the last pod of a basic PodGroup takes the gang of PodGroups with it",
			old:  "b-1", minGroupCount: 2, want: all,
		},
		{
			name: "a gang of PodGroups that keeps minGroupCount lets one PodGroup go whole",
			old:  "a-1", minGroupCount: 1,
			want: map[string]v1alpha1.EvictionResult{"a-1": v1alpha1.EvictionPlanned, "a-2": v1alpha1.EvictionPlanned},
		},
		{
			name: "a basic CompositePodGroup keeps nothing",
			old:  "b-1",
			want: map[string]v1alpha1.EvictionResult{"b-1": v1alpha1.EvictionPlanned},
		},
		{
			name: "a CompositePodGroup whose disruption mode is All goes whole",
			old:  "b-1", whole: true, want: all,
			wantReason: "with all 3 members of gang default/root, whose disruption mode is All",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			objs := []k8sruntime.Object{strategytest.Node("n1").Obj()}
			var pods []*v1.Pod
			for _, name := range []string{"a-1", "a-2", "b-1"} {
				created := young
				if name == tc.old {
					created = old
				}
				p := strategytest.Pod(name).NodeName("n1").Created(created).Obj()
				objs = append(objs, p)
				pods = append(pods, p)
			}
			expectPlan(t, objs, newHierarchyGangs(pods, tc.minGroupCount, tc.whole), lifetimePolicy(true, every(10*time.Minute)), tc.want, tc.wantReason)
		})
	}
}
