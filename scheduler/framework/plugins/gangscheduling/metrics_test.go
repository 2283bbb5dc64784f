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
	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// TestGangMetrics checks that a member held at Permit counts as a wait and
// that a gang counts once as complete when its last member lets the others
// bind, labelled with the group's namespace and the profile only.
func TestGangMetrics(t *testing.T) {
	d := doors[1]
	trio := []*schedulingv1beta1.PodGroup{d.group(st.WorkloadGroup("trio").Gang(3))}
	members := func(names ...string) []*v1.Pod {
		out := make([]*v1.Pod, len(names))
		for i, n := range names {
			out[i] = d.member(n, "trio", "")
		}
		return out
	}
	tests := []struct {
		name    string
		assumed []string
		waiting []string
		pod     string
		want    map[string]float64
	}{
		{
			name: "a member waits", assumed: []string{"a"}, pod: "a",
			want: map[string]float64{`berth_gang_waits_total{namespace="default",profile="berth"}`: 1},
		},
		{
			name: "the last member completes the gang", assumed: []string{"a", "b", "c"}, waiting: []string{"a", "b"}, pod: "c",
			want: map[string]float64{`berth_gang_releases_total{namespace="default",profile="berth",result="complete"}`: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg, m := st.Metrics(t)
			pods := members("a", "b", "c")
			h := handleFor(trio, pods, tt.assumed, tt.waiting)
			h.metrics = m
			var pod *v1.Pod
			for _, p := range pods {
				if p.Name == tt.pod {
					pod = p
				}
			}
			newPlugin(t, h).Permit(context.Background(), framework.NewCycleState(), pod, "n1")
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
