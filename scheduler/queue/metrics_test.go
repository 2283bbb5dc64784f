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

package queue

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/berth-io/berth/scheduler/metrics"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestUnschedulablePodsByPluginAndProfile(t *testing.T) {
	q := newTestQueue(t, map[string]*fakeProfile{
		defaultProfile: profile().gating("Gate"),
		"other":        profile(),
	})
	for _, tc := range []struct {
		pod       string
		profile   string
		rejectors []string
	}{
		{pod: "a", profile: defaultProfile, rejectors: []string{"NodeAffinity"}},
		{pod: "b", profile: defaultProfile, rejectors: []string{"NodeAffinity", "TaintToleration"}},
		{pod: "c", profile: "other", rejectors: []string{"NodeAffinity"}},
		// A pod that failed with an error has no rejector and counts for no plugin.
		{pod: "d", profile: "other"},
	} {
		pod := st.Pod(tc.pod).ResourceVersion("1").SchedulerName(tc.profile).Obj()
		q.Add(tlog, pod)
		q.fail(q.pop(), tc.rejectors...)
	}
	q.Add(tlog, pendingPod("gated").Gates("example.com/wait").Obj())

	want := map[metrics.PluginProfile]int{
		{Plugin: "NodeAffinity", Profile: defaultProfile}:    2,
		{Plugin: "TaintToleration", Profile: defaultProfile}: 1,
		{Plugin: "Gate", Profile: defaultProfile}:            1,
		{Plugin: "NodeAffinity", Profile: "other"}:           1,
	}
	got := q.UnschedulablePods()
	if len(got) != len(want) {
		t.Errorf("UnschedulablePods() = %v, want %v", got, want)
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("UnschedulablePods()[%v] = %d, want %d", k, got[k], n)
		}
	}
}

func TestIncomingPodsCountedByQueueAndEvent(t *testing.T) {
	reg, m := st.Metrics(t)
	q := newTestQueue(t, map[string]*fakeProfile{defaultProfile: profile().gating("Gate").on("X", nodeAdd, hintQueue)}, WithMetrics(m))
	pod := pendingPod("p").Obj()
	q.Add(tlog, pod)                                              // active, UnscheduledPodAdd
	q.Add(tlog, pendingPod("g").Gates("x").Obj())                 // unschedulable (gated), UnscheduledPodAdd
	q.fail(q.pop(), "X")                                          // unschedulable, ScheduleAttemptFailure
	q.MoveAllToActiveOrBackoffQueue(tlog, nodeAdd, nil, nil, nil) // backoff, NodeAdd
	q.clock.Step(time.Minute)
	q.flushBackoffCompleted(tlog) // active, BackoffComplete

	got := incomingByQueueAndEvent(t, reg)
	want := map[string]float64{
		"active/UnscheduledPodAdd":             1,
		"unschedulable/UnscheduledPodAdd":      1,
		"unschedulable/ScheduleAttemptFailure": 1,
		"backoff/" + nodeAdd.Label():           1,
		"active/BackoffComplete":               1,
	}
	if len(got) != len(want) {
		t.Errorf("queue_incoming_pods_total = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("queue_incoming_pods_total{%s} = %v, want %v", k, got[k], v)
		}
	}
}

// incomingByQueueAndEvent reads scheduler_queue_incoming_pods_total by "queue/event".
func incomingByQueueAndEvent(t *testing.T, reg prometheus.Gatherer) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "scheduler_queue_incoming_pods_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			var queue, event string
			for _, l := range m.GetLabel() {
				switch l.GetName() {
				case "queue":
					queue = l.GetValue()
				case "event":
					event = l.GetValue()
				}
			}
			out[queue+"/"+event] = m.GetCounter().GetValue()
		}
	}
	return out
}
