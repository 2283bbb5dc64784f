package throughput

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Markdown renders results as a Markdown table, one row per result, with
// the ratios of Berth's overall throughput and CPU per pod to upstream's and
// to the null binder's when those are among the results of the same workload.
func Markdown(results []Result) string {
	var b strings.Builder
	b.WriteString("| Workload | Scheduler | Nodes | Pods | Pods/s (first→last) | 1-s avg | p50 | p90 | p99 | First bind | Total | CPU s | CPU ms/pod | Peak RSS MiB | API+etcd CPU ms/pod |\n")
	b.WriteString("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, r := range results {
		t := r.Throughput
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %.0f | %.0f | %.0f | %.0f | %.0f | %s | %s | %.2f | %.3f | %.0f | %.3f |\n",
			r.Workload.Name, r.Scheduler, r.Workload.Nodes, r.Workload.Pods,
			t.Overall, t.Average, t.P50, t.P90, t.P99,
			seconds(r.FirstBind), seconds(r.Total), r.Proc.CPU.Seconds(),
			float64(r.CPUPerPod)/float64(time.Millisecond), float64(r.Proc.PeakRSS)/(1<<20),
			perPod(r.ControlPlaneCPU, r.Workload.Pods))
	}
	b.WriteString(latencyTable(results))
	if ratios := ratioLines(results); len(ratios) > 0 {
		b.WriteString("\n")
		for _, l := range ratios {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// ratioLines compares each Berth run (berth, berth-no-events) with
// upstream and the null binders, per workload.
func ratioLines(results []Result) []string {
	byKey := make(map[string]Result, len(results))
	type berthRun struct{ workload, name string }
	var berths []berthRun
	for _, r := range results {
		key := r.Workload.Name + "/" + r.Scheduler
		if _, seen := byKey[key]; !seen && strings.HasPrefix(r.Scheduler, "berth") {
			berths = append(berths, berthRun{r.Workload.Name, r.Scheduler})
		}
		byKey[key] = r
	}
	var lines []string
	for _, b := range berths {
		berth := byKey[b.workload+"/"+b.name]
		label := "Berth"
		if b.name != "berth" {
			label = b.name
		}
		for _, other := range []string{"kube-scheduler", "null-binder", "null-binder-events"} {
			o, ok := byKey[b.workload+"/"+other]
			if !ok || o.Throughput.Overall == 0 || o.CPUPerPod == 0 {
				continue
			}
			lines = append(lines, fmt.Sprintf("- %s, %s/%s: throughput %.2f× (1-s avg %.2f×), CPU per pod %.2f×, peak RSS %.2f×",
				b.workload, label, other, berth.Throughput.Overall/o.Throughput.Overall, ratio(berth.Throughput.Average, o.Throughput.Average),
				float64(berth.CPUPerPod)/float64(o.CPUPerPod), ratio(float64(berth.Proc.PeakRSS), float64(o.Proc.PeakRSS))))
			if berth.Latency != nil && o.Latency != nil {
				lines[len(lines)-1] += fmt.Sprintf(", latency p99 %.2f×", ratio(float64(berth.Latency.P99), float64(o.Latency.P99)))
			}
		}
	}
	return lines
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

func millis(d time.Duration) string {
	return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
}
