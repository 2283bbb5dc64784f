package throughput

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// result returns a result of SchedulingBasic for scheduler with the given
// overall throughput, CPU per pod and peak RSS.
func result(scheduler string, podsPerSecond float64, cpuPerPod time.Duration, rssMiB int64) Result {
	return Result{
		Scheduler:  scheduler,
		Workload:   SchedulingBasic(10, 20),
		Throughput: Throughput{Overall: podsPerSecond, Average: podsPerSecond},
		Proc:       ProcStats{CPU: 20 * cpuPerPod, PeakRSS: rssMiB << 20},
		CPUPerPod:  cpuPerPod,
	}
}

func TestMarkdown(t *testing.T) {
	got := Markdown([]Result{
		result("berth", 800, time.Millisecond, 100),
		result("kube-scheduler", 400, 2*time.Millisecond, 50),
		result("null-binder", 1000, time.Millisecond/4, 25),
	})
	for _, want := range []string{
		"| SchedulingBasic | berth | 10 | 20 | 800 | 800 |",
		"| 0.02 | 1.000 | 100 |",
		"Berth/kube-scheduler: throughput 2.00× (1-s avg 2.00×), CPU per pod 0.50×, peak RSS 2.00×",
		"Berth/null-binder: throughput 0.80× (1-s avg 0.80×), CPU per pod 4.00×, peak RSS 4.00×",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Markdown() lacks %q:\n%s", want, got)
		}
	}
	if lines := strings.Count(got, "\n"); lines != 2+3+1+2 {
		t.Errorf("Markdown() has %d lines, want 8:\n%s", lines, got)
	}
}

func TestMarkdownWithoutBerthHasNoRatios(t *testing.T) {
	got := Markdown([]Result{result("null-binder", 1000, time.Millisecond, 25)})
	if strings.Contains(got, "Berth/") {
		t.Errorf("Markdown() has ratios without Berth:\n%s", got)
	}
}

func TestJSONRoundTrips(t *testing.T) {
	in := []Result{result("berth", 800, time.Millisecond, 100)}
	raw, err := JSON(in)
	if err != nil {
		t.Fatal(err)
	}
	var out []Result
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || out[0] != in[0] {
		t.Errorf("round trip = %+v, want %+v", out, in)
	}
}
