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
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Markdown renders results as a Markdown table, one row per result, with
// the ratios of Berth's overall throughput and CPU per pod to upstream's and
// to the null binder's when those are among the results of the same workload.
// When schedulers ran in several rounds, the rows name their round, a second
// table gives each scheduler's medians, and the ratios are of medians, with
// the range of the ratios within each round.
func Markdown(results []Result) string {
	var b strings.Builder
	rounds := maxRound(results) > 0
	roundHead, roundRule := "", ""
	if rounds {
		roundHead, roundRule = " Round |", "--:|"
	}
	b.WriteString("| Workload | Scheduler |" + roundHead + " Nodes | Pods | Pods/s (first→last) | 1-s avg | p50 | p90 | p99 | First bind | Total | CPU s | CPU ms/pod | Peak RSS MiB | API+etcd CPU ms/pod | Scheduled events by last bind |\n")
	b.WriteString("|---|---|" + roundRule + "--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, r := range results {
		t := r.Throughput
		round := ""
		if rounds {
			round = fmt.Sprintf(" %d |", r.Round)
		}
		fmt.Fprintf(&b, "| %s | %s |%s %d | %d | %.0f | %.0f | %.0f | %.0f | %.0f | %s | %s | %.2f | %.3f | %.0f | %.3f | %d |\n",
			r.Workload.Name, r.Scheduler, round, r.Workload.Nodes, r.Workload.Pods,
			t.Overall, t.Average, t.P50, t.P90, t.P99,
			seconds(r.FirstBind), seconds(r.Total), r.Proc.CPU.Seconds(),
			float64(r.CPUPerPod)/float64(time.Millisecond), float64(r.Proc.PeakRSS)/(1<<20),
			perPod(r.ControlPlaneCPU, r.Workload.Pods), r.ScheduledEvents)
	}
	b.WriteString(latencyTable(results))
	b.WriteString(bigGangTable(results))
	b.WriteString(claimsTable(results))
	b.WriteString(apiRequestsTable(results))
	if rounds {
		b.WriteString(medianTable(results))
	}
	b.WriteString(baseTable(results))
	if ratios := ratioLines(results); len(ratios) > 0 {
		b.WriteString("\n")
		for _, l := range ratios {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// ratioLines compares each Berth run (berth, berth-no-events) with
// upstream and the null binders, per workload; over several rounds it
// compares medians and adds the range of the per-round ratios.
func ratioLines(results []Result) []string {
	groups, order := groupRuns(results)
	var lines []string
	for _, key := range order {
		if !strings.HasPrefix(key.scheduler, "berth") {
			continue
		}
		berth := groups[key]
		label := "Berth"
		if key.scheduler != "berth" {
			label = key.scheduler
		}
		for _, other := range []string{"kube-scheduler", "null-binder", "null-binder-events"} {
			o, ok := groups[runKey{key.workload, other}]
			if !ok {
				continue
			}
			bm, om := berth.medians(), o.medians()
			if om.overall == 0 || om.cpuPerPod == 0 {
				continue
			}
			line := fmt.Sprintf("- %s, %s/%s: throughput %.2f× (1-s avg %.2f×), CPU per pod %.2f×, peak RSS %.2f×",
				key.workload, label, other, bm.overall/om.overall, ratio(bm.average, om.average),
				bm.cpuPerPod/om.cpuPerPod, ratio(bm.rss, om.rss))
			if bm.p99Latency > 0 && om.p99Latency > 0 {
				line += fmt.Sprintf(", latency p99 %.2f×", bm.p99Latency/om.p99Latency)
			}
			if lo, hi, n := roundRatios(berth, o); n > 1 {
				line += fmt.Sprintf("; medians of %d rounds, throughput ratio %.2f–%.2f× within a round", n, lo, hi)
			}
			lines = append(lines, line)
		}
	}
	return lines
}

// runKey names one scheduler's runs of one workload.
type runKey struct{ workload, scheduler string }

// runs are one scheduler's results for one workload, in round order.
type runs []Result

// groupRuns groups results by workload and scheduler, keeping the order in
// which each group first appears.
func groupRuns(results []Result) (map[runKey]runs, []runKey) {
	groups := map[runKey]runs{}
	var order []runKey
	for _, r := range results {
		key := runKey{r.Workload.Name, r.Scheduler}
		if _, seen := groups[key]; !seen {
			order = append(order, key)
		}
		groups[key] = append(groups[key], r)
	}
	return groups, order
}

// summary holds the medians of a group of runs.
type summary struct {
	overall, average, cpuPerPod, rss, p99Latency float64
	overallMin, overallMax                       float64
}

func (rs runs) medians() summary {
	pick := func(f func(Result) float64) []float64 {
		out := make([]float64, 0, len(rs))
		for _, r := range rs {
			out = append(out, f(r))
		}
		return out
	}
	overall := pick(func(r Result) float64 { return r.Throughput.Overall })
	return summary{
		overall:    median(overall),
		overallMin: slices.Min(overall),
		overallMax: slices.Max(overall),
		average:    median(pick(func(r Result) float64 { return r.Throughput.Average })),
		cpuPerPod:  median(pick(func(r Result) float64 { return float64(r.CPUPerPod) })),
		rss:        median(pick(func(r Result) float64 { return float64(r.Proc.PeakRSS) })),
		p99Latency: median(pick(func(r Result) float64 {
			if r.Latency == nil {
				return 0
			}
			return float64(r.Latency.P99)
		})),
	}
}

// roundRatios returns the lowest and highest ratio of a's throughput to b's
// within a round, over the n rounds both ran.
func roundRatios(a, b runs) (lo, hi float64, n int) {
	byRound := map[int]Result{}
	for _, r := range b {
		byRound[r.Round] = r
	}
	for _, r := range a {
		o, ok := byRound[r.Round]
		if !ok || o.Throughput.Overall == 0 {
			continue
		}
		q := r.Throughput.Overall / o.Throughput.Overall
		if n == 0 || q < lo {
			lo = q
		}
		if n == 0 || q > hi {
			hi = q
		}
		n++
	}
	return lo, hi, n
}

// median returns the middle value of xs, the mean of the two middle ones
// for an even count, 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func maxRound(results []Result) int {
	highest := 0
	for _, r := range results {
		highest = max(highest, r.Round)
	}
	return highest
}

// medianTable renders each scheduler's medians over its rounds.
func medianTable(results []Result) string {
	groups, order := groupRuns(results)
	var b strings.Builder
	b.WriteString("\n| Workload | Scheduler | Rounds | Pods/s median | min–max | CPU ms/pod median | Peak RSS MiB median |\n|---|---|--:|--:|--:|--:|--:|\n")
	for _, key := range order {
		m := groups[key].medians()
		fmt.Fprintf(&b, "| %s | %s | %d | %.0f | %.0f–%.0f | %.3f | %.0f |\n", key.workload, key.scheduler, len(groups[key]),
			m.overall, m.overallMin, m.overallMax, m.cpuPerPod/float64(time.Millisecond), m.rss/(1<<20))
	}
	return b.String()
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// perPod returns d per pod in milliseconds.
func perPod(d time.Duration, pods int) float64 {
	if pods == 0 {
		return 0
	}
	return float64(d) / float64(pods) / float64(time.Millisecond)
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }

// JSON renders results as indented JSON.
func JSON(results []Result) ([]byte, error) {
	raw, err := json.MarshalIndent(results, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding results: %w", err)
	}
	return append(raw, '\n'), nil
}

// latencyTable renders the creation-to-bind latencies of the steady-arrival
// results, or nothing when there are none.
func latencyTable(results []Result) string {
	var b strings.Builder
	for _, r := range results {
		if r.Latency == nil {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("\n| Workload | Scheduler | Pods | Pods/s arriving | Latency p50 | p90 | p99 | max |\n|---|---|--:|--:|--:|--:|--:|--:|\n")
		}
		l := r.Latency
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %s | %s | %s | %s |\n", r.Workload.Name, r.Scheduler, r.Workload.Pods,
			r.Workload.ArrivalRate, millis(l.P50), millis(l.P90), millis(l.P99), millis(l.Max))
	}
	return b.String()
}

// bigGangTable renders when each scheduler bound the big gang of the
// workloads with one, or nothing when there are none.
func bigGangTable(results []Result) string {
	var b strings.Builder
	for _, r := range results {
		if r.BigGang == nil {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("\n| Workload | Scheduler | Big gang | Bound after start | First to last member |\n|---|---|--:|--:|--:|\n")
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %s |\n", r.Workload.Name, r.Scheduler, r.Workload.BigGang,
			seconds(r.BigGang.Bound), seconds(r.BigGang.Span))
	}
	return b.String()
}

func millis(d time.Duration) string {
	return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
}

// claimsTable renders what each scheduler did with the claims of the
// workloads with devices, or nothing when there are none.
func claimsTable(results []Result) string {
	var b strings.Builder
	for _, r := range results {
		if r.Claims == nil {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("\n| Workload | Scheduler |" + roundColumn(results) + " Claims | Allocated by last bind | Distinct devices | Pods on their device's node |\n|---|---|" + roundRule(results) + "--:|--:|--:|--:|\n")
		}
		c := r.Claims
		fmt.Fprintf(&b, "| %s | %s |%s %d | %d | %d | %d |\n", r.Workload.Name, r.Scheduler, roundCell(results, r), c.Claims, c.Allocated, c.DistinctDevices, c.OnPodsNode)
	}
	return b.String()
}

// roundColumn, roundRule and roundCell add a Round column when results
// ran in rounds.
func roundColumn(results []Result) string {
	if maxRound(results) > 0 {
		return " Round |"
	}
	return ""
}

func roundRule(results []Result) string {
	if maxRound(results) > 0 {
		return "--:|"
	}
	return ""
}

func roundCell(results []Result, r Result) string {
	if maxRound(results) > 0 {
		return fmt.Sprintf(" %d |", r.Round)
	}
	return ""
}

// BaseScheduler names the runs of a base build that the runs of berth are
// compared with (bench --berth-base-bin, make bench-compare).
const BaseScheduler = "berth-base"

// BaseComparison is berth over berth-base on one workload, round by round:
// each ratio is of two runs that took turns in the same round, so the
// machine's drift from round to round cancels out of it.
type BaseComparison struct {
	// Workload names the workload.
	Workload string
	// Rounds are the rounds both builds ran, in order.
	Rounds []int
	// Throughput holds, per round, berth's pods/s over berth-base's.
	Throughput []float64
	// CPUPerPod holds, per round, berth's CPU per pod over berth-base's.
	CPUPerPod []float64
}

// CompareWithBase pairs each round of berth with the same round of
// berth-base, per workload, in the order the workloads ran. Rounds that one
// build did not run, or where the base bound nothing or used no CPU, are
// left out.
func CompareWithBase(results []Result) []BaseComparison {
	groups, order := groupRuns(results)
	var out []BaseComparison
	for _, key := range order {
		if key.scheduler != "berth" {
			continue
		}
		base, ok := groups[runKey{key.workload, BaseScheduler}]
		if !ok {
			continue
		}
		byRound := map[int]Result{}
		for _, r := range base {
			byRound[r.Round] = r
		}
		c := BaseComparison{Workload: key.workload}
		for _, r := range groups[key] {
			o, ok := byRound[r.Round]
			if !ok || o.Throughput.Overall == 0 || o.CPUPerPod == 0 {
				continue
			}
			c.Rounds = append(c.Rounds, r.Round)
			c.Throughput = append(c.Throughput, r.Throughput.Overall/o.Throughput.Overall)
			c.CPUPerPod = append(c.CPUPerPod, float64(r.CPUPerPod)/float64(o.CPUPerPod))
		}
		if len(c.Rounds) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// baseTable renders CompareWithBase: per workload the per-round ratios,
// their median and their range; nothing without a base.
func baseTable(results []Result) string {
	comparisons := CompareWithBase(results)
	if len(comparisons) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n| Workload | Rounds | Pods/s berth/berth-base per round | median | min–max | CPU ms/pod berth/berth-base per round | median | min–max |\n|---|--:|---|--:|--:|---|--:|--:|\n")
	for _, c := range comparisons {
		fmt.Fprintf(&b, "| %s | %d | %s | %.2f× | %.2f–%.2f× | %s | %.2f× | %.2f–%.2f× |\n", c.Workload, len(c.Rounds),
			ratioList(c.Throughput), median(c.Throughput), slices.Min(c.Throughput), slices.Max(c.Throughput),
			ratioList(c.CPUPerPod), median(c.CPUPerPod), slices.Min(c.CPUPerPod), slices.Max(c.CPUPerPod))
	}
	return b.String()
}

// ratioList renders ratios as "0.91, 1.02".
func ratioList(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf("%.2f", x)
	}
	return strings.Join(parts, ", ")
}
