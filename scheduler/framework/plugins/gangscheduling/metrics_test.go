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

package gangscheduling

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// TestGangMetrics checks that a member held at Permit counts as a wait and
// that a gang counts once as complete when its last member lets the others
// bind, and once as released when it cannot form, labelled with the
// group's namespace and the profile only.
func TestGangMetrics(t *testing.T) {
	tests := []struct {
		name  string
		world world
		run   func(pl *GangScheduling)
		want  map[string]float64
	}{
		{
			name:  "a member waits",
			world: world{groups: []*v1alpha1.PodGroup{trio()}, pods: members("a", "b", "c"), assumed: []string{"a"}},
			run: func(pl *GangScheduling) {
				pl.Permit(context.Background(), framework.NewCycleState(), members("a")[0], "n1")
			},
			want: map[string]float64{`berth_gang_waits_total{namespace="default",profile="berth"}`: 1},
		},
		{
			name:  "the last member completes the gang",
			world: world{groups: []*v1alpha1.PodGroup{trio()}, pods: members("a", "b", "c"), assumed: []string{"a", "b", "c"}, waiting: []string{"a", "b"}},
			run: func(pl *GangScheduling) {
				pl.Permit(context.Background(), framework.NewCycleState(), members("c")[0], "n1")
			},
			want: map[string]float64{`berth_gang_releases_total{namespace="default",profile="berth",result="complete"}`: 1},
		},
		{
			name:  "a gang that cannot form is released",
			world: world{groups: []*v1alpha1.PodGroup{trio()}, pods: members("a", "b", "c"), assumed: []string{"a", "b"}, waiting: []string{"a", "b"}},
			run: func(pl *GangScheduling) {
				pl.PostFilter(context.Background(), framework.NewCycleState(), members("c")[0], nil)
			},
			want: map[string]float64{`berth_gang_releases_total{namespace="default",profile="berth",result="released"}`: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg, m := st.Metrics(t)
			h := tt.world.handle()
			h.metrics = m
			tt.run(newPlugin(t, h))
			got := gangSeries(t, reg)
			if len(got) != len(tt.want) {
				t.Errorf("gang series = %v, want %v", got, tt.want)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("%s = %v, want %v", k, got[k], v)
				}
			}
		})
	}
}

// gangSeries reads the berth_gang_* counters, keyed by name and labels.
func gangSeries(t *testing.T, reg prometheus.Gatherer) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "berth_gang_waits_total" && f.GetName() != "berth_gang_releases_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			key := f.GetName() + "{"
			for i, l := range m.GetLabel() {
				if i > 0 {
					key += ","
				}
				key += l.GetName() + `="` + l.GetValue() + `"`
			}
			out[key+"}"] = m.GetCounter().GetValue()
		}
	}
	return out
}
