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

package shadow

import (
	"fmt"
	"slices"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/berth-io/berth/scheduler/framework"
)

// node builds a node's weighted scores from plugin=score pairs.
func node(name string, scores ...any) framework.NodePluginScores {
	n := framework.NodePluginScores{Name: name}
	for i := 0; i < len(scores); i += 2 {
		s := int64(scores[i+1].(int))
		n.Scores = append(n.Scores, framework.PluginScore{Name: scores[i].(string), Score: s})
		n.TotalScore += s
	}
	return n
}

// scored is an evaluation whose feasible nodes are the scored ones.
func scored(nodes ...framework.NodePluginScores) Evaluation {
	e := Evaluation{Scores: nodes}
	for _, n := range nodes {
		e.Feasible = append(e.Feasible, n.Name)
	}
	return e
}

func TestCompare(t *testing.T) {
	tests := []struct {
		name   string
		live   Live
		shadow Evaluation
		want   Decision
	}{{
		name:   "same best node",
		live:   Live{Node: "a"},
		shadow: scored(node("a", "Fit", 90, "Taint", 300), node("b", "Fit", 10, "Taint", 300)),
		want:   Decision{Outcome: OutcomeAgreed, LiveNode: "a", ShadowNode: "a"},
	}, {
		name:   "a tie that includes the live node agrees",
		live:   Live{Node: "b"},
		shadow: scored(node("a", "Fit", 50), node("b", "Fit", 50), node("c", "Fit", 10)),
		want:   Decision{Outcome: OutcomeAgreed, LiveNode: "b", ShadowNode: "b"},
	}, {
		name:   "one plugin outweighs the rest",
		live:   Live{Node: "a"},
		shadow: scored(node("a", "Fit", 10, "Balanced", 80, "Image", 5), node("b", "Fit", 95, "Balanced", 70, "Image", 0)),
		want:   Decision{Outcome: OutcomeDisagreed, LiveNode: "a", ShadowNode: "b", Deciding: []string{"Fit"}},
	}, {
		name:   "two plugins are needed, largest margin first",
		live:   Live{Node: "a"},
		shadow: scored(node("a", "Fit", 50, "Spread", 0, "Affinity", 0, "Image", 30), node("b", "Fit", 50, "Spread", 20, "Affinity", 15, "Image", 0)),
		want:   Decision{Outcome: OutcomeDisagreed, LiveNode: "a", ShadowNode: "b", Deciding: []string{"Spread", "Affinity"}},
	}, {
		name:   "the first of the shadow's tied best nodes",
		live:   Live{Node: "c"},
		shadow: scored(node("c", "Fit", 1), node("b", "Fit", 9), node("a", "Fit", 9)),
		want:   Decision{Outcome: OutcomeDisagreed, LiveNode: "c", ShadowNode: "b", Deciding: []string{"Fit"}},
	}, {
		name:   "the shadow rejects the live node",
		live:   Live{Node: "a"},
		shadow: Evaluation{Scores: []framework.NodePluginScores{node("b", "Fit", 1)}, Feasible: []string{"b"}, RejectedLive: "TaintToleration"},
		want:   Decision{Outcome: OutcomeDisagreed, LiveNode: "a", ShadowNode: "b", Deciding: []string{"TaintToleration"}},
	}, {
		name:   "a single feasible node, unscored, is the live one",
		live:   Live{Node: "a"},
		shadow: Evaluation{Feasible: []string{"a"}},
		want:   Decision{Outcome: OutcomeAgreed, LiveNode: "a", ShadowNode: "a"},
	}, {
		name:   "the shadow finds no node",
		live:   Live{Node: "a"},
		shadow: Evaluation{Rejecting: []string{"NodeResourcesFit", "NodeAffinity", "NodeResourcesFit"}},
		want:   Decision{Outcome: OutcomeShadowUnschedulable, LiveNode: "a", Deciding: []string{"NodeAffinity", "NodeResourcesFit"}},
	}, {
		name:   "the live profile found no node",
		live:   Live{Rejecting: []string{"TaintToleration"}},
		shadow: scored(node("a", "Fit", 3)),
		want:   Decision{Outcome: OutcomeLiveUnschedulable, ShadowNode: "a", Deciding: []string{"TaintToleration"}},
	}, {
		name:   "neither finds a node",
		live:   Live{Rejecting: []string{"NodeResourcesFit"}},
		shadow: Evaluation{Rejecting: []string{"NodeResourcesFit"}},
		want:   Decision{Outcome: OutcomeAgreed},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Compare(tt.live, tt.shadow)
			if got.Outcome != tt.want.Outcome || got.LiveNode != tt.want.LiveNode || got.ShadowNode != tt.want.ShadowNode || !slices.Equal(got.Deciding, tt.want.Deciding) {
				t.Errorf("Compare = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestDecidingPluginsOutweighTheRest(t *testing.T) {
	// Whatever the margins, the deciding plugins' margins alone exceed all
	// the margins against the shadow's node, and dropping the last of them
	// would not.
	for seed := range 200 {
		var from, to []any
		for i := range 6 {
			p := fmt.Sprintf("P%d", i)
			from = append(from, p, (seed*7+i*13)%101)
			to = append(to, p, (seed*11+i*29)%101)
		}
		a, b := node("a", from...), node("b", to...)
		if b.TotalScore <= a.TotalScore {
			continue
		}
		got := deciding(&a, &b)
		margin := func(p string) int64 {
			return scoresOf([]framework.NodePluginScores{b}, "b").Scores[p[1]-'0'].Score - a.Scores[p[1]-'0'].Score
		}
		var against int64
		for i := range a.Scores {
			if m := b.Scores[i].Score - a.Scores[i].Score; m < 0 {
				against -= m
			}
		}
		var sum int64
		for _, p := range got {
			sum += margin(p)
		}
		if sum <= against {
			t.Fatalf("seed %d: deciding %v sum to %d, not above %d against", seed, got, sum, against)
		}
		if len(got) > 0 && sum-margin(got[len(got)-1]) > against {
			t.Fatalf("seed %d: deciding %v is not the fewest", seed, got)
		}
	}
}

func TestRecorder(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(time.Unix(1000, 0))
	r := NewRecorder(clk, WithRecent(3))
	v0 := r.Version()
	r.Record("ns/p0", Decision{Outcome: OutcomeAgreed, LiveNode: "a", ShadowNode: "a"})
	for i := 1; i <= 4; i++ {
		clk.SetTime(time.Unix(1000+int64(i), 0))
		r.Record(fmt.Sprintf("ns/p%d", i), Decision{Outcome: OutcomeDisagreed, LiveNode: "a", ShadowNode: "b", Deciding: []string{"Fit", "Spread"}[:1+i%2]})
	}
	r.Record("ns/p5", Decision{Outcome: OutcomeShadowUnschedulable, LiveNode: "a", Deciding: []string{"Taint"}})
	r.Count(OutcomeDropped)
	if r.Version() == v0 {
		t.Error("Version did not change")
	}
	s := r.Stats()
	if !s.Since.Equal(time.Unix(1000, 0)) {
		t.Errorf("Since = %v", s.Since)
	}
	if got := s.Evaluated(); got != 6 {
		t.Errorf("Evaluated = %d, want 6 (the dropped attempt is not)", got)
	}
	if s.Outcomes[OutcomeAgreed] != 1 || s.Outcomes[OutcomeDisagreed] != 4 || s.Outcomes[OutcomeShadowUnschedulable] != 1 || s.Outcomes[OutcomeDropped] != 1 {
		t.Errorf("Outcomes = %v", s.Outcomes)
	}
	wantDeciding := []PluginCount{{"Fit", 4}, {"Spread", 2}, {"Taint", 1}}
	if !slices.Equal(s.Deciding, wantDeciding) {
		t.Errorf("Deciding = %v, want %v", s.Deciding, wantDeciding)
	}
	var pods []string
	for _, d := range s.Recent {
		pods = append(pods, d.Pod)
	}
	if want := []string{"ns/p5", "ns/p4", "ns/p3"}; !slices.Equal(pods, want) {
		t.Errorf("Recent = %v, want %v (newest first, three kept)", pods, want)
	}
}
