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
	"fmt"
	"runtime"

	"github.com/prometheus/client_golang/prometheus"
)

// Namespace is the Prometheus namespace of Berth's own metrics.
const Namespace = "berth"

// Results of a rebalance run.
const (
	// RunSucceeded is a run in which every strategy ran.
	RunSucceeded = "succeeded"
	// RunFailed is a run that could not start or in which a strategy failed.
	RunFailed = "failed"
)

// Results of a gang's wait at Permit.
const (
	// GangComplete is a gang whose last member let the waiting ones bind.
	GangComplete = "complete"
)

// Results of an extender call.
const (
	// ExtenderSuccess is a call the extender answered with HTTP 200 and a readable body.
	ExtenderSuccess = "success"
	// ExtenderError is a call that failed: no answer, another status, or an unreadable body.
	ExtenderError = "error"
	// ExtenderRefused is a call the open circuit breaker did not send.
	ExtenderRefused = "refused"
)

// extenderVerbs are the verbs an extender is called with.
var extenderVerbs = [...]string{"filter", "prioritize", "bind", "preempt"}

// extenderResults are the results of an extender call.
var extenderResults = [...]string{ExtenderSuccess, ExtenderError, ExtenderRefused}

// berthMetrics are Berth's own metrics, under the "berth" namespace.
type berthMetrics struct {
	rebalanceRuns          *prometheus.CounterVec
	rebalanceEvictions     *prometheus.CounterVec
	gangWaits              *prometheus.CounterVec
	gangReleases           *prometheus.CounterVec
	extenderRequests       *prometheus.CounterVec
	extenderCircuitOpen    *prometheus.GaugeVec
	profileCompileFailures *prometheus.CounterVec
	profileLiveGeneration  *prometheus.GaugeVec
	profileReady           *prometheus.GaugeVec
	leader                 prometheus.Gauge
}

func newBerthMetrics() berthMetrics {
	return berthMetrics{
		rebalanceRuns: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "rebalance", Name: "runs_total",
			Help: "Runs of a RebalancePolicy, by the policy and whether every strategy ran (succeeded) or not (failed).",
		}, []string{"policy", "result"}),
		rebalanceEvictions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "rebalance", Name: "evictions_total",
			Help: "Evictions a RebalancePolicy's strategy chose, by the policy, the strategy and the result: planned (chosen within the limits; a dry run stops there), evicted, blocked (by a PodDisruptionBudget), failed, or skipped (over a limit).",
		}, []string{"policy", "strategy", "result"}),
		gangWaits: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "gang", Name: "waits_total",
			Help: "Pod group members held at Permit until their group forms, by the group's namespace and the profile.",
		}, []string{"namespace", "profile"}),
		gangReleases: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "gang", Name: "releases_total",
			Help: "Pod groups whose members held at Permit were let go, by the group's namespace, the profile and the result: complete (they bind).",
		}, []string{"namespace", "profile", "result"}),
		extenderRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "extender", Name: "requests_total",
			Help: "Calls to an HTTP extender, by its urlPrefix, the verb and the result: success, error, or refused (not sent: the circuit breaker is open).",
		}, []string{"extender", "verb", "result"}),
		extenderCircuitOpen: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: Namespace, Subsystem: "extender", Name: "circuit_open",
			Help: "1 while the circuit breaker of an extender is open (its last call got no HTTP answer), 0 once it answers.",
		}, []string{"extender"}),
		profileCompileFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Subsystem: "profile", Name: "compile_failures_total",
			Help: "Generations of a SchedulingProfile that failed to compile (each counted once), by the profile.",
		}, []string{"profile"}),
		profileLiveGeneration: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: Namespace, Subsystem: "profile", Name: "live_generation",
			Help: "The generation of a SchedulingProfile that schedules (or shadows) now, by the profile; absent while none is live.",
		}, []string{"profile"}),
		profileReady: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: Namespace, Subsystem: "profile", Name: "ready",
			Help: "1 when a SchedulingProfile's current generation is live (its Ready condition is True), 0 when it is not (invalid, or its schedulerName is taken), by the profile.",
		}, []string{"profile"}),
		leader: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: Namespace, Name: "leader",
			Help: "1 while this replica leads and runs the scheduling loop, 0 on a standby.",
		}),
	}
}

func (b *berthMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{
		b.rebalanceRuns, b.rebalanceEvictions, b.gangWaits, b.gangReleases, b.extenderRequests,
		b.extenderCircuitOpen, b.profileCompileFailures, b.profileLiveGeneration, b.profileReady, b.leader,
	}
}

// RegisterBuildInfo registers berth_build_info, always 1, labelled with
// Berth's version and the Go version that built it.
func RegisterBuildInfo(reg prometheus.Registerer, version string) error {
	g := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: Namespace, Name: "build_info",
		Help: "Always 1, labelled with the version of Berth and the Go version that built it.",
	}, []string{"version", "go_version"})
	g.WithLabelValues(version, runtime.Version()).Set(1)
	if err := reg.Register(g); err != nil {
		return fmt.Errorf("registering berth_build_info: %w", err)
	}
	return nil
}

// SetLeader records whether this replica runs the scheduling loop.
func (m *Metrics) SetLeader(leading bool) {
	if m == nil {
		return
	}
	v := 0.0
	if leading {
		v = 1
	}
	m.berth.leader.Set(v)
}

// InitRebalancePolicy creates the eviction series of a policy's
// strategies at zero, so that the first blocked eviction is an increase
// that rate and increase see.
func (m *Metrics) InitRebalancePolicy(policy string, strategies []string) {
	if m == nil {
		return
	}
	for _, s := range strategies {
		for _, result := range []string{"evicted", "blocked", "failed"} {
			m.berth.rebalanceEvictions.WithLabelValues(policy, s, result)
		}
	}
	for _, result := range []string{RunSucceeded, RunFailed} {
		m.berth.rebalanceRuns.WithLabelValues(policy, result)
	}
}

// CountRebalanceRun counts one run of a RebalancePolicy (RunSucceeded or RunFailed).
func (m *Metrics) CountRebalanceRun(policy, result string) {
	if m == nil {
		return
	}
	m.berth.rebalanceRuns.WithLabelValues(policy, result).Inc()
}

// CountRebalanceEviction counts one eviction a strategy of a policy chose,
// with its result (the PlannedEviction result, lower case).
func (m *Metrics) CountRebalanceEviction(policy, strategy, result string) {
	if m == nil {
		return
	}
	m.berth.rebalanceEvictions.WithLabelValues(policy, strategy, result).Inc()
}

// DeleteRebalancePolicy drops the series of a policy that is gone.
func (m *Metrics) DeleteRebalancePolicy(policy string) {
	if m == nil {
		return
	}
	m.berth.rebalanceRuns.DeletePartialMatch(prometheus.Labels{"policy": policy})
	m.berth.rebalanceEvictions.DeletePartialMatch(prometheus.Labels{"policy": policy})
}

// CountGangWait counts one pod group member held at Permit.
func (m *Metrics) CountGangWait(namespace, profile string) {
	if m == nil {
		return
	}
	m.berth.gangWaits.WithLabelValues(namespace, profile).Inc()
}

// CountGangRelease counts one pod group whose waiting members were let go
// (GangComplete).
func (m *Metrics) CountGangRelease(namespace, profile, result string) {
	if m == nil {
		return
	}
	m.berth.gangReleases.WithLabelValues(namespace, profile, result).Inc()
}

// ObserveProfile records the outcome of reconciling a SchedulingProfile:
// whether its current generation is live (ready), the generation that is
// live (0 for none), and whether a generation failed to compile for the
// first time (compileFailed).
func (m *Metrics) ObserveProfile(profile string, ready bool, liveGeneration int64, compileFailed bool) {
	if m == nil {
		return
	}
	r := 0.0
	if ready {
		r = 1
	}
	m.berth.profileReady.WithLabelValues(profile).Set(r)
	if liveGeneration > 0 {
		m.berth.profileLiveGeneration.WithLabelValues(profile).Set(float64(liveGeneration))
	} else {
		m.berth.profileLiveGeneration.DeleteLabelValues(profile)
	}
	if compileFailed {
		m.berth.profileCompileFailures.WithLabelValues(profile).Inc()
	}
}

// DeleteProfile drops the series of a SchedulingProfile that is gone.
func (m *Metrics) DeleteProfile(profile string) {
	if m == nil {
		return
	}
	m.berth.profileReady.DeleteLabelValues(profile)
	m.berth.profileLiveGeneration.DeleteLabelValues(profile)
	m.berth.profileCompileFailures.DeleteLabelValues(profile)
}

// ExtenderRecorder records the calls and the circuit state of one
// extender, with every series resolved when it is made. A nil
// *ExtenderRecorder records nothing.
type ExtenderRecorder struct {
	calls   map[[2]string]prometheus.Counter
	circuit prometheus.Gauge
}

// Extender returns the recorder of the extender with the urlPrefix.
func (m *Metrics) Extender(urlPrefix string) *ExtenderRecorder {
	if m == nil {
		return nil
	}
	r := &ExtenderRecorder{
		calls:   make(map[[2]string]prometheus.Counter, len(extenderVerbs)*len(extenderResults)),
		circuit: m.berth.extenderCircuitOpen.WithLabelValues(urlPrefix),
	}
	for _, verb := range extenderVerbs {
		for _, result := range extenderResults {
			r.calls[[2]string{verb, result}] = m.berth.extenderRequests.WithLabelValues(urlPrefix, verb, result)
		}
	}
	return r
}

// Call counts one call with the verb (filter, prioritize, bind or
// preempt) and its result (ExtenderSuccess, ExtenderError or ExtenderRefused).
func (r *ExtenderRecorder) Call(verb, result string) {
	if r == nil {
		return
	}
	if c, ok := r.calls[[2]string{verb, result}]; ok {
		c.Inc()
	}
}

// SetCircuitOpen records whether the extender's circuit breaker is open.
func (r *ExtenderRecorder) SetCircuitOpen(open bool) {
	if r == nil {
		return
	}
	v := 0.0
	if open {
		v = 1
	}
	r.circuit.Set(v)
}
