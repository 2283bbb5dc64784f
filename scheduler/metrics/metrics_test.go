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

package metrics

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

func TestNilMetricsAreNoOps(t *testing.T) {
	var m *Metrics
	m.ObserveScheduleAttempt(ResultScheduled, "p", time.Second)
	m.SetPendingPods(QueueActive, 3)
	m.AddPendingPods(QueueActive, 1)
	m.ObserveExtensionPoint("Filter", "Success", "p", time.Millisecond)
	m.ObservePodSchedulingSLI(2, time.Second)
	m.ObservePluginExecution("X", "Filter", "Success", time.Millisecond)
	m.ObservePermitWait("Success", time.Second)
	m.CountScheduledEvent(EventWritten)
	m.CountShadowDecision("p", "agreed")
	m.DeleteShadowProfile("p")
	m.CountForeignBinding("p", "default-scheduler")
	m.SetUnschedulablePods(map[PluginProfile]int{{Plugin: "X", Profile: "p"}: 1})
	m.ObservePreemption(1)
	m.CountIncomingPod(QueueActive, "e")
	m.ObservePodScheduled(1)
	m.SetCacheSize(1, 1, 1)
	m.AddGoroutines(OperationBinding, 1)
	m.ObserveEventHandling("e", time.Millisecond)
	m.CountRebalanceRun("p", RunSucceeded)
	m.CountRebalanceEviction("p", "s", "evicted")
	m.DeleteRebalancePolicy("p")
	m.CountGangWait("ns", "p")
	m.CountGangRelease("ns", "p", GangComplete)
	m.ObserveProfile("p", true, 1, false)
	m.DeleteProfile("p")
	m.SetLeader(true)
	m.InitRebalancePolicy("p", []string{"s"})
}

func TestRegistersUpstreamNames(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := New(reg)
	if err != nil {
		t.Fatal(err)
	}
	m.ObserveScheduleAttempt(ResultScheduled, "default-scheduler", 10*time.Millisecond)
	m.ObserveScheduleAttempt(ResultScheduled, "default-scheduler", 10*time.Millisecond)
	m.ObserveScheduleAttempt(ResultUnschedulable, "default-scheduler", 10*time.Millisecond)
	m.SetPendingPods(QueueActive, 4)
	m.AddPendingPods(QueueActive, -1)
	m.ObserveExtensionPoint("Filter", "Success", "default-scheduler", time.Millisecond)
	m.ObservePodSchedulingSLI(20, time.Second)
	m.ObservePluginExecution("X", "Filter", "Success", time.Millisecond)
	m.ObservePermitWait("Success", time.Second)
	m.CountScheduledEvent(EventWritten)
	m.CountScheduledEvent(EventWritten)
	m.CountScheduledEvent(EventDropped)
	m.CountShadowDecision("candidate", "agreed")
	m.CountShadowDecision("candidate", "agreed")
	m.CountShadowDecision("candidate", "disagreed")
	m.CountShadowDecision("gone", "agreed")
	m.DeleteShadowProfile("gone")

	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*dto.MetricFamily{}
	for _, f := range families {
		got[f.GetName()] = f
	}
	for _, n := range []string{
		"scheduler_schedule_attempts_total", "scheduler_scheduling_attempt_duration_seconds", "scheduler_pending_pods",
		"scheduler_framework_extension_point_duration_seconds", "scheduler_pod_scheduling_sli_duration_seconds",
		"scheduler_plugin_execution_duration_seconds", "scheduler_permit_wait_duration_seconds",
		"scheduler_scheduled_events_total", "berth_shadow_decisions_total",
	} {
		if got[n] == nil {
			t.Errorf("metric %s not registered", n)
		}
	}
	attempts := map[string]float64{}
	for _, mt := range got["scheduler_schedule_attempts_total"].GetMetric() {
		attempts[label(mt, "result")+"/"+label(mt, "profile")] = mt.GetCounter().GetValue()
	}
	if attempts["scheduled/default-scheduler"] != 2 || attempts["unschedulable/default-scheduler"] != 1 {
		t.Errorf("schedule_attempts_total = %v", attempts)
	}
	events := map[string]float64{}
	for _, mt := range got["scheduler_scheduled_events_total"].GetMetric() {
		events[label(mt, "result")] = mt.GetCounter().GetValue()
	}
	if events[EventWritten] != 2 || events[EventDropped] != 1 {
		t.Errorf("scheduled_events_total = %v, want 2 written, 1 dropped", events)
	}
	shadow := map[string]float64{}
	for _, mt := range got["berth_shadow_decisions_total"].GetMetric() {
		shadow[label(mt, "profile")+"/"+label(mt, "outcome")] = mt.GetCounter().GetValue()
	}
	if len(shadow) != 2 || shadow["candidate/agreed"] != 2 || shadow["candidate/disagreed"] != 1 {
		t.Errorf("berth_shadow_decisions_total = %v, want candidate: 2 agreed, 1 disagreed; gone deleted", shadow)
	}
	if v := got["scheduler_pending_pods"].GetMetric()[0].GetGauge().GetValue(); v != 3 {
		t.Errorf("pending_pods{queue=active} = %v, want 3", v)
	}
	sli := got["scheduler_pod_scheduling_sli_duration_seconds"].GetMetric()[0]
	if label(sli, "attempts") != "15+" || sli.GetHistogram().GetSampleCount() != 1 {
		t.Errorf("sli metric = %v", sli)
	}
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

func TestNewTwiceOnOneRegistryFails(t *testing.T) {
	reg := prometheus.NewRegistry()
	if _, err := New(reg); err != nil {
		t.Fatal(err)
	}
	if _, err := New(reg); err == nil {
		t.Fatal("want an error registering the metrics twice")
	}
}

func TestAttemptsLabel(t *testing.T) {
	for in, want := range map[int]string{1: "1", 14: "14", 15: "15+", 99: "15+"} {
		if got := attemptsLabel(in); got != want {
			t.Errorf("attemptsLabel(%d) = %q, want %q", in, got, want)
		}
	}
}
