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

package workloads_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"k8s.io/client-go/kubernetes"

	"github.com/berth-io/berth/scheduler"
	"github.com/berth-io/berth/scheduler/metrics"
	"github.com/berth-io/berth/test/envsuite"
	"github.com/berth-io/berth/test/workloads"
	"github.com/berth-io/berth/test/workloads/reference"
)

// The differential run's settings (make test-differential): the first seed,
// how many seeds, and how many times kube-scheduler plays each.
const (
	differentialSeedEnv = "BERTH_DIFFERENTIAL_SEED"
	differentialNEnv    = "BERTH_DIFFERENTIAL_N"
	differentialRunsEnv = "BERTH_DIFFERENTIAL_RUNS"
)

var _ = Describe("Generated scenarios, compared with kube-scheduler v1.37.1's recorded outcomes", Label("generated"), func() {
	for _, s := range workloads.GeneratedHierarchies() {
		It("plays "+s.Name+" through Kubernetes' PodGroups as kube-scheduler did", func(ctx SpecContext) {
			want, err := workloads.Golden(s.Name)
			Expect(err).NotTo(HaveOccurred())
			_, c := compositeAPI.start(ctx)
			cleanCluster(ctx, c)
			startBerth(ctx, c, nil, scheduler.WithCompositePodGroups(true))
			DeferCleanup(cleanCluster, c)
			expectAgreement(s, want, playGenerated(ctx, s, c), "Kubernetes' PodGroups")
		}, SpecTimeout(4*time.Minute))
	}
	for _, s := range workloads.GeneratedScenarios() {
		It("plays "+s.Name+" through Kubernetes' PodGroups as kube-scheduler did", func(ctx SpecContext) {
			want, err := workloads.Golden(s.Name)
			Expect(err).NotTo(HaveOccurred())
			_, c := nativeAPI.start(ctx)
			startBerth(ctx, c, nil)
			DeferCleanup(cleanCluster, c)
			expectAgreement(s, want, playGenerated(ctx, s, c), "Kubernetes' PodGroups")
		}, SpecTimeout(4*time.Minute))
		It("plays "+s.Name+" through Berth's PodGroups as kube-scheduler did", func(ctx SpecContext) {
			want, err := workloads.Golden(s.Name)
			Expect(err).NotTo(HaveOccurred())
			c, berth, podGroups := berthDoor(ctx)
			startBerth(ctx, c, podGroups)
			DeferCleanup(cleanCluster, c)
			expectAgreement(s, want, playGenerated(ctx, s, c, workloads.WithBerthPodGroups(berth)), "Berth's PodGroups")
		}, SpecTimeout(4*time.Minute))
	}
})

var _ = Describe("Generated scenarios, played live on kube-scheduler v1.37.1 and Berth", Label("differential"), func() {
	first, n, runs := differentialSettings()
	for seed := first; seed < first+n; seed++ {
		s := workloads.Generate(seed)
		It("plays "+s.Name+" as kube-scheduler does", func(ctx SpecContext) {
			want := playReference(ctx, s, runs)
			By("Kubernetes' PodGroups")
			_, c := nativeAPI.start(ctx)
			stop := startBerthUntil(ctx, c, nil)
			native := playGenerated(ctx, s, c)
			stop()
			cleanCluster(ctx, c)
			By("Berth's PodGroups")
			c, berth, podGroups := berthDoor(ctx)
			stop = startBerthUntil(ctx, c, podGroups)
			own := playGenerated(ctx, s, c, workloads.WithBerthPodGroups(berth))
			stop()
			cleanCluster(ctx, c)
			expectAgreement(s, want, native, "Kubernetes' PodGroups")
			expectAgreement(s, want, own, "Berth's PodGroups")
		}, SpecTimeout(time.Duration(runs+2)*2*time.Minute))
		h := workloads.GenerateHierarchy(seed)
		It("plays "+h.Name+" as kube-scheduler does", func(ctx SpecContext) {
			want := playReference(ctx, h, runs)
			_, c := compositeAPI.start(ctx)
			stop := startBerthUntil(ctx, c, nil, scheduler.WithCompositePodGroups(true))
			got := playGenerated(ctx, h, c)
			stop()
			cleanCluster(ctx, c)
			expectAgreement(h, want, got, "Kubernetes' PodGroups")
		}, SpecTimeout(time.Duration(runs+1)*2*time.Minute))
	}
})

var _ = Describe("Generated scenarios under a profile that signs pods, played live on kube-scheduler v1.37.1 and on Berth with batching on and off", Label("differential"), func() {
	first, n, runs := differentialSettings()
	profile := workloads.SigningProfile()
	for seed := first; seed < first+n; seed++ {
		s := workloads.Generate(seed)
		It("plays "+s.Name+" under the "+profile.Name+" profile as kube-scheduler does", func(ctx SpecContext) {
			upstream := map[string]float64{}
			want := playReference(ctx, s, runs, reference.WithProfile(profile), reference.WithMetrics(func(families map[string]*dto.MetricFamily) {
				for result, n := range counterByLabel(families, batchAttempts, "result") {
					upstream[result] += n
				}
			}))
			got := map[bool]workloads.Observation{}
			attempts := map[bool]map[string]float64{}
			for _, batching := range []bool{true, false} {
				By(fmt.Sprintf("Berth with batching %s", onOff(batching)))
				spec, err := profile.BerthSpec(batching)
				Expect(err).NotTo(HaveOccurred())
				reg := prometheus.NewRegistry()
				m, err := metrics.New(reg)
				Expect(err).NotTo(HaveOccurred())
				_, c := nativeAPI.start(ctx)
				stop := startBerthWith(ctx, c, nil, spec, scheduler.WithMetrics(m))
				got[batching] = playGenerated(ctx, s, c)
				stop()
				cleanCluster(ctx, c)
				families, err := reg.Gather()
				Expect(err).NotTo(HaveOccurred())
				attempts[batching] = counterByLabel(familiesByName(families), batchAttempts, "result")
			}
			AddReportEntry("batch attempts by result in "+s.Name+" under the "+profile.Name+" profile",
				fmt.Sprintf("kube-scheduler (%d runs): %v\nBerth: %v", runs, upstream, attempts[true]), ReportEntryVisibilityAlways)
			Expect(attempts[false]).To(BeEmpty(), "Berth asked for batch hints with batching off")
			expectAgreement(s, want, got[true], "Kubernetes' PodGroups under the "+profile.Name+" profile, batching on")
			expectAgreement(s, want, got[false], "Kubernetes' PodGroups under the "+profile.Name+" profile, batching off")
		}, SpecTimeout(time.Duration(runs+3)*2*time.Minute))
	}
})

// onOff says on or off.
func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// batchAttempts counts opportunistic batching's hint lookups by result, in
// kube-scheduler and in Berth alike.
const batchAttempts = "scheduler_batch_attempts_total"

// familiesByName indexes metric families by name.
func familiesByName(families []*dto.MetricFamily) map[string]*dto.MetricFamily {
	out := make(map[string]*dto.MetricFamily, len(families))
	for _, f := range families {
		out[f.GetName()] = f
	}
	return out
}

// counterByLabel sums the counter name of families by the value of its label.
func counterByLabel(families map[string]*dto.MetricFamily, name, label string) map[string]float64 {
	out := map[string]float64{}
	for _, m := range families[name].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == label {
				out[l.GetValue()] += m.GetCounter().GetValue()
			}
		}
	}
	return out
}

// differentialSettings reads the differential run's settings: no seed
// unless BERTH_DIFFERENTIAL_N is set.
func differentialSettings() (first, n uint64, runs int) {
	first, runs = 1, 2
	read := func(env string, into func(string) error) {
		if v := os.Getenv(env); v != "" {
			if err := into(v); err != nil {
				panic(fmt.Sprintf("%s=%q: %v", env, v, err))
			}
		}
	}
	read(differentialSeedEnv, func(v string) (err error) { first, err = strconv.ParseUint(v, 10, 64); return err })
	read(differentialNEnv, func(v string) (err error) { n, err = strconv.ParseUint(v, 10, 64); return err })
	read(differentialRunsEnv, func(v string) (err error) { runs, err = strconv.Atoi(v); return err })
	if runs < 1 {
		panic(differentialRunsEnv + " must be at least 1")
	}
	return first, n, runs
}

// playReference plays s on kube-scheduler v1.37.1 runs times, each on a
// fresh control plane, with opts, and returns the first run's outcome with the paths
// the runs disagreed on marked nondeterministic.
func playReference(ctx context.Context, s workloads.Scenario, runs int, opts ...reference.Option) workloads.Observation {
	GinkgoHelper()
	binDir, err := filepath.Abs(os.Getenv("KUBEBUILDER_ASSETS"))
	Expect(err).NotTo(HaveOccurred())
	if _, err := os.Stat(filepath.Join(binDir, "kube-scheduler")); err != nil {
		Fail("no kube-scheduler in KUBEBUILDER_ASSETS=" + binDir + ": run `make test-differential`.")
	}
	var obs []workloads.Observation
	for range runs {
		o, err := reference.Run(ctx, s, append([]reference.Option{reference.WithBinDir(binDir), reference.WithLogger(envsuite.Logger())}, opts...)...)
		Expect(err).NotTo(HaveOccurred(), "kube-scheduler could not play %s", s.Name)
		obs = append(obs, o)
	}
	want := obs[0]
	want.MarkNondeterministic(obs[1:]...)
	return want
}

// playGenerated plays s on the cluster c reaches, where Berth runs.
func playGenerated(ctx context.Context, s workloads.Scenario, c kubernetes.Interface, opts ...workloads.PlayOption) workloads.Observation {
	GinkgoHelper()
	got, err := workloads.Play(ctx, c, s, append([]workloads.PlayOption{workloads.WithLogger(envsuite.Logger())}, opts...)...)
	Expect(err).NotTo(HaveOccurred())
	return got
}

// expectAgreement expects Berth's outcome got of the generated scenario s
// to be kube-scheduler's, want, where that is determined (CompareOutcomes),
// and to break no hard constraint (Invariants). A scenario either
// scheduler could not run (a step refused, a checkpoint not settled) fails
// as such: it is no agreement. What kube-scheduler itself breaks is
// reported, not failed on, and so is Berth's breaking of the same
// constraint of the same pod.
func expectAgreement(s workloads.Scenario, want, got workloads.Observation, door string) {
	GinkgoHelper()
	var problems []string
	for who, o := range map[string]workloads.Observation{"kube-scheduler": want, "Berth": got} {
		for _, cp := range o.Checkpoints {
			if cp.Unsettled || len(cp.StepErrors) > 0 {
				problems = append(problems, fmt.Sprintf("%s could not run the scenario: checkpoint %s unsettled=%v, step errors %q", who, cp.Name, cp.Unsettled, cp.StepErrors))
			}
		}
	}
	for _, d := range workloads.CompareOutcomes(want, got) {
		problems = append(problems, "differs from kube-scheduler: "+d)
	}
	upstream, err := workloads.Invariants(s, "final", want)
	Expect(err).NotTo(HaveOccurred())
	if len(upstream) > 0 {
		AddReportEntry("hard constraints kube-scheduler v1.37.1 breaks in "+s.Name, strings.Join(upstream, "\n"), ReportEntryVisibilityAlways)
	}
	berth, err := workloads.Invariants(s, "final", got)
	Expect(err).NotTo(HaveOccurred())
	// A constraint of a pod that kube-scheduler's final state breaks too
	// is no difference: a topology spread is checked when its pod is
	// placed, and a pod placed after it without the constraint may skew it.
	shared := map[string]bool{}
	for _, v := range upstream {
		shared[workloads.ViolationKey(v)] = true
	}
	var alike []string
	for _, v := range berth {
		if shared[workloads.ViolationKey(v)] {
			alike = append(alike, v)
			continue
		}
		problems = append(problems, "breaks a hard constraint: "+v)
	}
	if len(alike) > 0 {
		AddReportEntry("hard constraints Berth breaks as kube-scheduler v1.37.1 does in "+s.Name, strings.Join(alike, "\n"), ReportEntryVisibilityAlways)
	}
	if len(problems) == 0 {
		return
	}
	// The conditions' messages and histories, which the comparison leaves
	// out, say why.
	var details []string
	for _, d := range workloads.Compare(want, got) {
		if strings.Contains(d, "/condition/") || strings.Contains(d, "/history/") {
			details = append(details, d)
		}
	}
	reproduce := "SEED=" + strings.TrimPrefix(s.Name, "generated-") + " N=1"
	if seed, ok := strings.CutPrefix(s.Name, "generated-hierarchy-"); ok {
		reproduce = "SEED=" + seed + " N=1 FOCUS=hierarchy"
	}
	Fail(fmt.Sprintf("%s through %s (reproduce: make test-differential %s):\n%s\n\nconditions, kube-scheduler's != Berth's:\n%s\n\nthe scenario:\n%s",
		s.Name, door, reproduce, strings.Join(problems, "\n"), strings.Join(details, "\n"), workloads.DescribeGenerated(s)))
}
