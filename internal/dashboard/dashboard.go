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

// Package dashboard builds Berth's Grafana dashboard, which the chart ships
// in charts/berth/files/monitoring/berth-dashboard.json. The panels are
// declared here; a test regenerates the file and checks that every metric
// a panel queries is one Berth exports.
package dashboard

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Units of the panels, in Grafana's names.
const (
	unitSeconds = "s"
	unitShort   = "short"
	unitOps     = "ops"
)

// sel restricts a query to the namespaces the dashboard's variable selects.
const sel = `namespace=~"$namespace"`

// target is one query of a panel.
type target struct {
	expr, legend string
}

// panel is one time series (or stat) panel.
type panel struct {
	title, description, unit string
	stat                     bool
	targets                  []target
}

// row is a titled group of panels.
type row struct {
	title  string
	panels []panel
}

// rows are the dashboard's contents, top to bottom.
func rows() []row {
	return []row{
		{title: "Scheduling", panels: []panel{
			{title: "Scheduling attempts", unit: unitOps, description: "Attempts per second by result and profile.",
				targets: []target{{`sum by (profile, result) (rate(scheduler_schedule_attempts_total{` + sel + `}[$__rate_interval]))`, "{{profile}} {{result}}"}}},
			{title: "Pending pods", unit: unitShort, description: "Pods in each queue; parked pods wait for a profile of their schedulerName.",
				targets: []target{{`sum by (queue) (scheduler_pending_pods{` + sel + `})`, "{{queue}}"}}},
			{title: "Unschedulable pods by plugin", unit: unitShort, description: "Pods waiting in the unschedulable set, by each plugin that rejected them.",
				targets: []target{{`sum by (profile, plugin) (scheduler_unschedulable_pods{` + sel + `})`, "{{profile}} {{plugin}}"}}},
			{title: "Pod scheduling latency (p50, p99)", unit: unitSeconds, description: "From a pod's first entry into the queue to its successful scheduling.",
				targets: []target{
					{`histogram_quantile(0.5, sum by (le) (rate(scheduler_pod_scheduling_sli_duration_seconds_bucket{` + sel + `}[$__rate_interval])))`, "p50"},
					{`histogram_quantile(0.99, sum by (le) (rate(scheduler_pod_scheduling_sli_duration_seconds_bucket{` + sel + `}[$__rate_interval])))`, "p99"},
				}},
			{title: "Attempt latency (p99)", unit: unitSeconds, description: "One scheduling attempt, algorithm and binding, by result.",
				targets: []target{{`histogram_quantile(0.99, sum by (le, result) (rate(scheduler_scheduling_attempt_duration_seconds_bucket{` + sel + `}[$__rate_interval])))`, "{{result}}"}}},
			{title: "Attempts per scheduled pod (p90)", unit: unitShort,
				targets: []target{{`histogram_quantile(0.9, sum by (le) (rate(scheduler_pod_scheduling_attempts_bucket{` + sel + `}[$__rate_interval])))`, "p90"}}},
			{title: "Extension point latency (p99)", unit: unitSeconds,
				targets: []target{{`histogram_quantile(0.99, sum by (le, extension_point) (rate(scheduler_framework_extension_point_duration_seconds_bucket{` + sel + `}[$__rate_interval])))`, "{{extension_point}}"}}},
			{title: "Permit wait (p99)", unit: unitSeconds, description: "How long pods, gang members mostly, waited at Permit.",
				targets: []target{{`histogram_quantile(0.99, sum by (le, result) (rate(scheduler_permit_wait_duration_seconds_bucket{` + sel + `}[$__rate_interval])))`, "{{result}}"}}},
			{title: "Plugin latency (p99)", unit: unitSeconds,
				targets: []target{{`histogram_quantile(0.99, sum by (le, plugin, extension_point) (rate(scheduler_plugin_execution_duration_seconds_bucket{` + sel + `}[$__rate_interval])))`, "{{plugin}} {{extension_point}}"}}},
			{title: "Batching", unit: unitOps, description: "Opportunistic batching: pods placed on their hint, hints that no longer fit, searches without a hint, and why kept nodes were dropped.",
				targets: []target{
					{`sum by (profile, result) (rate(scheduler_batch_attempts_total{` + sel + `}[$__rate_interval]))`, "{{profile}} {{result}}"},
					{`sum by (profile, reason) (rate(scheduler_batch_cache_flushed_total{` + sel + `}[$__rate_interval]))`, "{{profile}} dropped: {{reason}}"},
					{`sum by (profile) (rate(scheduler_batch_rescore_attempts_total{` + sel + `}[$__rate_interval]))`, "{{profile}} rescored"},
				}},
			{title: "Batching latency (p99)", unit: unitSeconds, description: "Asking for a hint, keeping a search's nodes, and rescoring the previous pod's node.",
				targets: []target{
					{`histogram_quantile(0.99, sum by (le, hinted) (rate(scheduler_get_node_hint_duration_seconds_bucket{` + sel + `}[$__rate_interval])))`, "hint: {{hinted}}"},
					{`histogram_quantile(0.99, sum by (le) (rate(scheduler_store_schedule_results_duration_seconds_bucket{` + sel + `}[$__rate_interval])))`, "store"},
					{`histogram_quantile(0.99, sum by (le) (rate(scheduler_batch_rescore_duration_seconds_bucket{` + sel + `}[$__rate_interval])))`, "rescore"},
				}},
		}},
		{title: "Preemption and gangs", panels: []panel{
			{title: "Preemption attempts", unit: unitOps,
				targets: []target{{`sum(rate(scheduler_preemption_attempts_total{` + sel + `}[$__rate_interval]))`, "attempts"}}},
			{title: "Victims per preemption (p90)", unit: unitShort,
				targets: []target{{`histogram_quantile(0.9, sum by (le) (rate(scheduler_preemption_victims_bucket{` + sel + `}[$__rate_interval])))`, "p90"}}},
			{title: "Gang waits and releases", unit: unitOps, description: "Members held at Permit, and groups whose members were let go to bind.",
				targets: []target{
					{`sum by (namespace, profile) (rate(berth_gang_waits_total{` + sel + `}[$__rate_interval]))`, "waits {{namespace}} {{profile}}"},
					{`sum by (profile, result) (rate(berth_gang_releases_total{` + sel + `}[$__rate_interval]))`, "{{result}} {{profile}}"},
				}},
		}},
		{title: "Profiles, rebalancing and extenders", panels: []panel{
			{title: "Profiles not Ready", unit: unitShort, stat: true, description: "SchedulingProfiles whose current generation is not live.",
				targets: []target{{`count(max by (profile) (berth_profile_ready{` + sel + `}) == 0) or vector(0)`, "not Ready"}}},
			{title: "Live generation by profile", unit: unitShort,
				targets: []target{{`max by (profile) (berth_profile_live_generation{` + sel + `})`, "{{profile}}"}}},
			{title: "Profile compile failures", unit: unitShort,
				targets: []target{{`sum by (profile) (increase(berth_profile_compile_failures_total{` + sel + `}[1h]))`, "{{profile}}"}}},
			{title: "Rebalance evictions (1h)", unit: unitShort, description: "Evictions the RebalancePolicies chose, by policy, strategy and result.",
				targets: []target{{`sum by (policy, strategy, result) (increase(berth_rebalance_evictions_total{` + sel + `}[1h]))`, "{{policy}} {{strategy}} {{result}}"}}},
			{title: "Rebalance runs (1h)", unit: unitShort,
				targets: []target{{`sum by (policy, result) (increase(berth_rebalance_runs_total{` + sel + `}[1h]))`, "{{policy}} {{result}}"}}},
			{title: "Extender calls", unit: unitOps,
				targets: []target{{`sum by (extender, verb, result) (rate(berth_extender_requests_total{` + sel + `}[$__rate_interval]))`, "{{extender}} {{verb}} {{result}}"}}},
			{title: "Extender circuits open", unit: unitShort, stat: true,
				targets: []target{{`sum(berth_extender_circuit_open{` + sel + `}) or vector(0)`, "open"}}},
			{title: "Pods bound by another scheduler (1h)", unit: unitShort, description: "Pods of a Berth profile's schedulerName that another scheduler bound (see the profile's SchedulerConflict condition).",
				targets: []target{{`sum by (profile, scheduler) (increase(berth_foreign_bindings_total{` + sel + `}[1h]))`, "{{profile}} by {{scheduler}}"}}},
			{title: "Shadow decisions", unit: unitOps,
				targets: []target{{`sum by (profile, outcome) (rate(berth_shadow_decisions_total{` + sel + `}[$__rate_interval]))`, "{{profile}} {{outcome}}"}}},
		}},
		{title: "Process", panels: []panel{
			{title: "Leader", unit: unitShort, stat: true, description: "Replicas running the scheduling loop: 1 is right.",
				targets: []target{{`sum(berth_leader{` + sel + `})`, "leaders"}}},
			{title: "Version", unit: unitShort, stat: true,
				targets: []target{{`count by (version, go_version) (berth_build_info{` + sel + `})`, "{{version}} ({{go_version}})"}}},
			{title: "Cache size", unit: unitShort,
				targets: []target{{`max by (type) (scheduler_cache_size{` + sel + `})`, "{{type}}"}}},
			{title: "Binding goroutines", unit: unitShort,
				targets: []target{{`sum by (operation) (scheduler_goroutines{` + sel + `})`, "{{operation}}"}}},
			{title: "Event handling (p99)", unit: unitSeconds,
				targets: []target{{`histogram_quantile(0.99, sum by (le, event) (rate(scheduler_event_handling_duration_seconds_bucket{` + sel + `}[$__rate_interval])))`, "{{event}}"}}},
			{title: "Incoming pods by queue", unit: unitOps,
				targets: []target{{`sum by (queue, event) (rate(scheduler_queue_incoming_pods_total{` + sel + `}[$__rate_interval]))`, "{{queue}} {{event}}"}}},
			{title: "Scheduled events", unit: unitOps, description: "Scheduled events of bound pods, written or dropped.",
				targets: []target{{`sum by (result) (rate(scheduler_scheduled_events_total{` + sel + `}[$__rate_interval]))`, "{{result}}"}}},
			{title: "Native PodGroup API served", unit: unitShort, stat: true,
				description: "1 when the apiserver serves the PodGroup version Berth reads; a version it serves instead, which Berth does not read, shows as unread (its members are held).",
				targets: []target{
					{`max(berth_workload_api_served{` + sel + `})`, "served"},
					{`max by (group_version) (berth_workload_api_unread{` + sel + `})`, "unread {{group_version}}"},
				}},
		}},
	}
}

// JSON renders the dashboard as Grafana imports it, indented and ending in a newline.
func JSON() ([]byte, error) {
	var panels []map[string]any
	id, y := 1, 0
	for _, r := range rows() {
		panels = append(panels, map[string]any{
			"id": id, "type": "row", "title": r.title, "collapsed": false,
			"gridPos": map[string]int{"h": 1, "w": 24, "x": 0, "y": y}, "panels": []any{},
		})
		id++
		y++
		for i, p := range r.panels {
			w, h := 8, 8
			x := (i % 3) * w
			if i > 0 && i%3 == 0 {
				y += h
			}
			panels = append(panels, p.render(id, x, y, w, h))
			id++
		}
		y += 8
	}
	d := map[string]any{
		"title":         "Berth",
		"uid":           "berth-scheduler",
		"description":   "Berth, the Kubernetes scheduler operator: scheduling, queues, preemption, gangs, profiles, rebalancing and extenders.",
		"tags":          []string{"berth", "scheduler", "kubernetes"},
		"editable":      true,
		"schemaVersion": 39,
		"version":       1,
		"refresh":       "30s",
		"time":          map[string]string{"from": "now-6h", "to": "now"},
		"timezone":      "browser",
		"panels":        panels,
		"templating": map[string]any{"list": []any{
			map[string]any{"name": "datasource", "label": "Data source", "type": "datasource", "query": "prometheus", "current": map[string]any{}, "hide": 0},
			map[string]any{
				"name": "namespace", "label": "Namespace", "type": "query",
				"datasource": datasource(),
				"definition": "label_values(berth_build_info, namespace)",
				"query":      map[string]string{"query": "label_values(berth_build_info, namespace)", "refId": "namespace"},
				"includeAll": true, "multi": true, "refresh": 2, "current": map[string]any{}, "hide": 0,
			},
		}},
		"annotations": map[string]any{"list": []any{}},
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(d); err != nil {
		return nil, fmt.Errorf("encoding the dashboard: %w", err)
	}
	return b.Bytes(), nil
}

func datasource() map[string]string {
	return map[string]string{"type": "prometheus", "uid": "${datasource}"}
}

func (p panel) render(id, x, y, w, h int) map[string]any {
	targets := make([]map[string]any, len(p.targets))
	for i, t := range p.targets {
		targets[i] = map[string]any{
			"datasource": datasource(), "expr": t.expr, "legendFormat": t.legend, "refId": string(rune('A' + i)),
		}
	}
	typ := "timeseries"
	if p.stat {
		typ = "stat"
	}
	out := map[string]any{
		"id": id, "type": typ, "title": p.title, "datasource": datasource(),
		"gridPos":     map[string]int{"h": h, "w": w, "x": x, "y": y},
		"targets":     targets,
		"fieldConfig": map[string]any{"defaults": map[string]any{"unit": p.unit}, "overrides": []any{}},
	}
	if p.description != "" {
		out["description"] = p.description
	}
	return out
}

// Queries returns every PromQL expression of the dashboard.
func Queries() []string {
	var out []string
	for _, r := range rows() {
		for _, p := range r.panels {
			for _, t := range p.targets {
				out = append(out, t.expr)
			}
		}
	}
	return out
}
