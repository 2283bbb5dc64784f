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

package decisions

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/berth-io/berth/scheduler/framework"
)

// scored builds a node's scores from plugin/score pairs.
func scored(node string, pluginScore ...any) framework.NodePluginScores {
	s := framework.NodePluginScores{Name: node}
	for i := 0; i+1 < len(pluginScore); i += 2 {
		score := int64(pluginScore[i+1].(int))
		s.Scores = append(s.Scores, framework.PluginScore{Name: pluginScore[i].(string), Score: score})
		s.TotalScore += score
	}
	return s
}

func names(scores []framework.NodePluginScores) []string {
	var out []string
	for _, s := range scores {
		out = append(out, s.Name)
	}
	return out
}

func TestTop(t *testing.T) {
	tests := []struct {
		name   string
		scores []framework.NodePluginScores
		chosen string
		want   []string
	}{{
		name:   "the chosen node first, then the best others",
		scores: []framework.NodePluginScores{scored("a", "Fit", 10), scored("b", "Fit", 40), scored("c", "Fit", 30), scored("d", "Fit", 20), scored("e", "Fit", 50)},
		chosen: "e",
		want:   []string{"e", "b", "c"},
	}, {
		name:   "the chosen node first even when it is not the best",
		scores: []framework.NodePluginScores{scored("a", "Fit", 90), scored("b", "Fit", 40), scored("c", "Fit", 30)},
		chosen: "c",
		want:   []string{"c", "a", "b"},
	}, {
		name:   "ties go by name",
		scores: []framework.NodePluginScores{scored("z", "Fit", 50), scored("y", "Fit", 50), scored("x", "Fit", 50), scored("w", "Fit", 50)},
		chosen: "y",
		want:   []string{"y", "w", "x"},
	}, {
		name:   "fewer nodes than kept",
		scores: []framework.NodePluginScores{scored("a", "Fit", 10), scored("b", "Fit", 20)},
		chosen: "b",
		want:   []string{"b", "a"},
	}, {
		name:   "a best node found after the list is full displaces the last",
		scores: []framework.NodePluginScores{scored("a", "Fit", 10), scored("b", "Fit", 20), scored("c", "Fit", 5), scored("d", "Fit", 30), scored("e", "Fit", 15)},
		chosen: "c",
		want:   []string{"c", "d", "b"},
	}, {
		name:   "a chosen node not scored leaves nothing",
		scores: []framework.NodePluginScores{scored("a", "Fit", 10)},
		chosen: "b",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, names(Top(tt.scores, tt.chosen))); diff != "" {
				t.Errorf("Top(%s) (-want +got):\n%s", tt.chosen, diff)
			}
		})
	}
}

func TestTopCopiesScores(t *testing.T) {
	scores := []framework.NodePluginScores{scored("a", "Fit", 10, "Balanced", 5), scored("b", "Fit", 20, "Balanced", 1)}
	want := []framework.NodePluginScores{scored("b", "Fit", 20, "Balanced", 1), scored("a", "Fit", 10, "Balanced", 5)}
	got := Top(scores, "b")
	// The framework reuses its result once released.
	for i := range scores {
		scores[i].Name, scores[i].Scores[0].Score = "reused", -1
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Top kept the framework's memory (-want +got):\n%s", diff)
	}
}

func TestRecorder(t *testing.T) {
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	decision := func(i int) Decision {
		return Decision{Pod: fmt.Sprintf("ns/p%d", i), Node: "n", Time: t0.Add(time.Duration(i) * time.Second)}
	}
	pods := func(ds []Decision) []string {
		var out []string
		for _, d := range ds {
			out = append(out, d.Pod)
		}
		return out
	}
	tests := []struct {
		name  string
		size  int
		added int
		want  []string
	}{
		{name: "empty", size: 3, added: 0},
		{name: "not full", size: 3, added: 2, want: []string{"ns/p1", "ns/p0"}},
		{name: "full", size: 3, added: 3, want: []string{"ns/p2", "ns/p1", "ns/p0"}},
		{name: "wrapped", size: 3, added: 7, want: []string{"ns/p6", "ns/p5", "ns/p4"}},
		{name: "one", size: 1, added: 4, want: []string{"ns/p3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRecorder(tt.size)
			for i := range tt.added {
				r.Add(decision(i))
			}
			if diff := cmp.Diff(tt.want, pods(r.Recent())); diff != "" {
				t.Errorf("Recent() (-want +got):\n%s", diff)
			}
			if got := r.Version(); got != uint64(tt.added) {
				t.Errorf("Version() = %d, want %d", got, tt.added)
			}
			if r.Size() != tt.size {
				t.Errorf("Size() = %d, want %d", r.Size(), tt.size)
			}
		})
	}
}
