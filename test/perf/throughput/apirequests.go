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

package throughput

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"k8s.io/client-go/kubernetes"
)

// requestsMetric is kube-apiserver's counter of the requests it served,
// longRunningMetric its gauge of the watches (and other long requests) it
// holds open.
const (
	requestsMetric    = "apiserver_request_total"
	longRunningMetric = "apiserver_longrunning_requests"
)

// APIRequests counts requests kube-apiserver served, by kind: the verb, the
// resource with its subresource and the response code, as in
// "POST pods/binding 201".
type APIRequests map[string]float64

// readAPIRequests reads kube-apiserver's counters of the requests it
// served and its gauge of the long-running requests open now.
func readAPIRequests(ctx context.Context, client kubernetes.Interface) (served, open APIRequests, err error) {
	raw, err := client.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("reading kube-apiserver's metrics: %w", err)
	}
	return parseAPIRequests(raw)
}

// parseAPIRequests sums, in a Prometheus text exposition, the requests
// served by kind and the long-running requests open by kind (without a
// code).
func parseAPIRequests(raw []byte) (served, open APIRequests, err error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(raw))
	if err != nil {
		return nil, nil, fmt.Errorf("parsing kube-apiserver's metrics: %w", err)
	}
	served, open = APIRequests{}, APIRequests{}
	for _, m := range families[requestsMetric].GetMetric() {
		served[requestKind(m)] += m.GetCounter().GetValue()
	}
	for _, m := range families[longRunningMetric].GetMetric() {
		if v := m.GetGauge().GetValue(); v > 0 {
			open[requestKind(m)] += v
		}
	}
	return served, open, nil
}

// requestKind names a sample's request kind from its labels: verb,
// resource/subresource and, when present, code.
func requestKind(m *dto.Metric) string {
	labels := map[string]string{}
	for _, l := range m.GetLabel() {
		labels[l.GetName()] = l.GetValue()
	}
	resource := labels["resource"]
	if sub := labels["subresource"]; sub != "" {
		resource += "/" + sub
	}
	if resource == "" {
		resource = "(none)"
	}
	return strings.TrimSpace(labels["verb"] + " " + resource + " " + labels["code"])
}

// since returns the requests counted in r and not yet in before; kinds that
// did not grow are left out.
func (r APIRequests) since(before APIRequests) APIRequests {
	out := APIRequests{}
	for kind, n := range r {
		if d := n - before[kind]; d > 0 {
			out[kind] = d
		}
	}
	return out
}

// apiRequestsTable renders, per workload, the requests per bound pod that
// kube-apiserver served while each scheduler ran (the median over its
// rounds), for the kinds that reach minPerPod for some scheduler; nothing
// when no result counted requests.
func apiRequestsTable(results []Result) string {
	const minPerPod = 0.01
	groups, order := groupRuns(results)
	var b strings.Builder
	for _, workload := range workloadsOf(order) {
		var schedulers []string
		perPod := map[string]map[string]float64{} // kind → scheduler → requests per pod
		for _, key := range order {
			if key.workload != workload {
				continue
			}
			rs := groups[key]
			counted := slices.ContainsFunc(rs, func(r Result) bool { return r.APIRequests != nil })
			if !counted {
				continue
			}
			schedulers = append(schedulers, key.scheduler)
			for kind, values := range requestsPerPod(rs) {
				if perPod[kind] == nil {
					perPod[kind] = map[string]float64{}
				}
				perPod[kind][key.scheduler] = median(values)
			}
		}
		if len(schedulers) == 0 {
			continue
		}
		kinds := slices.Collect(maps.Keys(perPod))
		kinds = slices.DeleteFunc(kinds, func(k string) bool {
			return slices.Max(slices.Collect(maps.Values(perPod[k]))) < minPerPod
		})
		slices.Sort(kinds)
		fmt.Fprintf(&b, "\n| %s: API requests per pod | %s |\n|---|%s\n", workload, strings.Join(schedulers, " | "), strings.Repeat("--:|", len(schedulers)))
		for _, kind := range kinds {
			b.WriteString("| " + kind + " |")
			for _, s := range schedulers {
				fmt.Fprintf(&b, " %.3f |", perPod[kind][s])
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// requestsPerPod returns, per request kind, each run's requests divided by
// its pods; a run without the kind counts 0.
func requestsPerPod(rs runs) map[string][]float64 {
	out := map[string][]float64{}
	for _, r := range rs {
		for kind := range r.APIRequests {
			out[kind] = nil
		}
	}
	for kind := range out {
		for _, r := range rs {
			pods := max(1, r.Workload.Pods)
			out[kind] = append(out[kind], r.APIRequests[kind]/float64(pods))
		}
	}
	return out
}

// workloadsOf returns the workloads of keys in their first order.
func workloadsOf(keys []runKey) []string {
	var out []string
	for _, k := range keys {
		if !slices.Contains(out, k.workload) {
			out = append(out, k.workload)
		}
	}
	return out
}
