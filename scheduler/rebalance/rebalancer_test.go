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

package rebalance

import (
	"context"
	"maps"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlfake "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/rebalance/strategies/strategytest"
	"github.com/berth-io/berth/scheduler/schedtest"
)

var t0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

// lifetimePolicy evicts pods older than a minute every interval.
func lifetimePolicy(dryRun bool, schedule v1alpha1.RebalanceSchedule) *v1alpha1.RebalancePolicySpec {
	return &v1alpha1.RebalancePolicySpec{
		Schedule: schedule, DryRun: ptr.To(dryRun),
		Strategies: []v1alpha1.Strategy{{Name: "PodLifeTime", Args: k8sruntime.RawExtension{Raw: []byte(`{"maxPodLifeTimeSeconds":60}`)}}},
	}
}

func every(d time.Duration) v1alpha1.RebalanceSchedule {
	return v1alpha1.RebalanceSchedule{Interval: &metav1.Duration{Duration: d}}
}

// start runs a Rebalancer over a fake clientset holding two old pods, one
// guarded by a PodDisruptionBudget, and returns it with its clock and client.
func start(t *testing.T) (*Rebalancer, *clocktesting.FakeClock, *fake.Clientset) {
	t.Helper()
	return startWith(t, nil, nil)
}

// startWith is start with a client of Berth's objects, a function called
// on each eviction before the fake clientset handles it, and options.
func startWith(t *testing.T, objects client.Client, onEviction func(pod string), opts ...Option) (*Rebalancer, *clocktesting.FakeClock, *fake.Clientset) {
	t.Helper()
	old := t0.Add(-time.Hour)
	c := fake.NewClientset(strategytest.Node("n1").Obj(),
		strategytest.Pod("free").NodeName("n1").Created(old).Obj(), strategytest.Pod("guarded").NodeName("n1").Created(old).Obj())
	c.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, k8sruntime.Object, error) {
		if a.GetSubresource() != "eviction" {
			return false, nil, nil
		}
		pod := a.(k8stesting.CreateAction).GetObject().(metav1.Object).GetName()
		if onEviction != nil {
			onEviction(pod)
		}
		if pod == "guarded" {
			return true, nil, apierrors.NewTooManyRequests("disruption budget", 0)
		}
		return true, nil, nil
	})
	clk := clocktesting.NewFakeClock(t0)
	r := New(c, objects, nil, NewInTreeRegistry(), append([]Option{WithClock(clk)}, opts...)...)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return r, clk, c
}

func evictions(c *fake.Clientset) int {
	n := 0
	for _, a := range c.Actions() {
		if a.GetSubresource() == "eviction" {
			n++
		}
	}
	return n
}

// waitRun waits until the policy's last run started at or after since.
func waitRun(t *testing.T, r *Rebalancer, name string, since time.Time) RunResult {
	t.Helper()
	var got RunResult
	err := wait.PollUntilContextTimeout(context.Background(), 5*time.Millisecond, 5*time.Second, true, func(context.Context) (bool, error) {
		res, ok := r.LastRun(name)
		got = res
		return ok && !res.Start.Before(since), nil
	})
	if err != nil {
		t.Fatalf("no run of %s since %s", name, since)
	}
	return got
}

func TestDryRunPlansWithoutEvicting(t *testing.T) {
	r, _, c := start(t)
	if err := r.SetPolicy("p", 1, lifetimePolicy(true, every(10*time.Minute))); err != nil {
		t.Fatal(err)
	}
	res := waitRun(t, r, "p", t0)
	if !res.DryRun || res.Planned != 2 || res.Evicted != 0 || len(res.Plan) != 2 || res.Plan[0].Result != v1alpha1.EvictionPlanned {
		t.Errorf("run = %+v, want a dry run planning two evictions", res)
	}
	if n := evictions(c); n != 0 {
		t.Errorf("a dry run made %d eviction calls", n)
	}
}

func TestLiveRunEvictsAndRecordsBlocked(t *testing.T) {
	r, _, c := start(t)
	if err := r.SetPolicy("p", 1, lifetimePolicy(false, every(10*time.Minute))); err != nil {
		t.Fatal(err)
	}
	res := waitRun(t, r, "p", t0)
	if res.Planned != 2 || res.Evicted != 1 || res.Blocked != 1 || res.Failed != 0 {
		t.Errorf("run = %+v, want one evicted and one blocked", res)
	}
	results := map[string]v1alpha1.EvictionResult{}
	for _, e := range res.Plan {
		results[e.Pod] = e.Result
	}
	if results["free"] != v1alpha1.EvictionEvicted || results["guarded"] != v1alpha1.EvictionBlocked {
		t.Errorf("plan = %v", results)
	}
	if n := evictions(c); n != 2 {
		t.Errorf("%d eviction calls, want 2 (a blocked eviction is not retried)", n)
	}
}

func TestRunsAndEvictionsAreCounted(t *testing.T) {
	reg, m := schedtest.Metrics(t)
	r, _, _ := startWith(t, nil, nil, WithMetrics(m))
	if err := r.SetPolicy("p", 1, lifetimePolicy(false, every(10*time.Minute))); err != nil {
		t.Fatal(err)
	}
	waitRun(t, r, "p", t0)
	if got := schedtest.CounterByLabel(t, reg, "berth_rebalance_runs_total", "result"); got["succeeded"] != 1 || got["failed"] != 0 || len(got) != 2 {
		t.Errorf("rebalance_runs_total by result = %v, want 1 succeeded, 0 failed", got)
	}
	got := schedtest.CounterByLabel(t, reg, "berth_rebalance_evictions_total", "result")
	if want := map[string]float64{"evicted": 1, "blocked": 1, "failed": 0}; !maps.Equal(got, want) {
		t.Errorf("rebalance_evictions_total by result = %v, want %v", got, want)
	}
	if s := schedtest.CounterByLabel(t, reg, "berth_rebalance_evictions_total", "strategy"); len(s) != 1 {
		t.Errorf("rebalance_evictions_total strategies = %v, want PodLifeTime only", s)
	} else if _, ok := s["PodLifeTime"]; !ok {
		t.Errorf("rebalance_evictions_total strategies = %v, want PodLifeTime", s)
	}
	r.RemovePolicy("p")
	if got := schedtest.CounterByLabel(t, reg, "berth_rebalance_runs_total", "policy"); len(got) != 0 {
		t.Errorf("rebalance_runs_total of a removed policy = %v, want none", got)
	}
}

func TestIntervalScheduleAndEdits(t *testing.T) {
	r, clk, _ := start(t)
	if err := r.SetPolicy("p", 1, lifetimePolicy(true, every(10*time.Minute))); err != nil {
		t.Fatal(err)
	}
	first := waitRun(t, r, "p", t0)
	if next, _ := r.NextRun("p"); !next.Equal(first.End.Add(10 * time.Minute)) {
		t.Errorf("next run at %s, want ten minutes after the first ended", next)
	}
	// An edit takes effect at the next run, which stays due on the schedule.
	if err := r.SetPolicy("p", 2, lifetimePolicy(true, every(10*time.Minute))); err != nil {
		t.Fatal(err)
	}
	clk.Step(5 * time.Minute)
	time.Sleep(20 * time.Millisecond)
	if res, _ := r.LastRun("p"); res.Generation != 1 {
		t.Fatalf("generation %d ran before the interval passed", res.Generation)
	}
	clk.Step(5 * time.Minute)
	if res := waitRun(t, r, "p", t0.Add(10*time.Minute)); res.Generation != 2 {
		t.Errorf("second run used generation %d, want 2", res.Generation)
	}
}

func TestFirstRunFollowsTheRecordedLastRun(t *testing.T) {
	tests := []struct {
		name      string
		recorded  *v1alpha1.RebalanceRun
		wantFirst time.Time
	}{
		{name: "never ran: at once", wantFirst: t0},
		{name: "ended two minutes ago, on another leader: eight minutes on",
			recorded:  &v1alpha1.RebalanceRun{StartTime: metav1.NewTime(t0.Add(-3 * time.Minute)), CompletionTime: ptr.To(metav1.NewTime(t0.Add(-2 * time.Minute)))},
			wantFirst: t0.Add(8 * time.Minute)},
		{name: "started and never completed: from its start",
			recorded:  &v1alpha1.RebalanceRun{StartTime: metav1.NewTime(t0.Add(-4 * time.Minute))},
			wantFirst: t0.Add(6 * time.Minute)},
		{name: "overdue: at once", recorded: &v1alpha1.RebalanceRun{StartTime: metav1.NewTime(t0.Add(-time.Hour))}, wantFirst: t0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scheme := k8sruntime.NewScheme()
			if err := v1alpha1.AddToScheme(scheme); err != nil {
				t.Fatal(err)
			}
			policy := &v1alpha1.RebalancePolicy{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Status: v1alpha1.RebalancePolicyStatus{LastRun: tt.recorded}}
			objects := ctrlfake.NewClientBuilder().WithScheme(scheme).WithObjects(policy).WithStatusSubresource(policy).Build()
			r, clk, _ := startWith(t, objects, nil)
			if err := r.SetPolicy("p", 1, lifetimePolicy(true, every(10*time.Minute))); err != nil {
				t.Fatal(err)
			}
			if tt.wantFirst.After(t0) {
				err := wait.PollUntilContextTimeout(context.Background(), 5*time.Millisecond, 5*time.Second, true, func(context.Context) (bool, error) {
					next, ok := r.NextRun("p")
					return ok && next.Equal(tt.wantFirst), nil
				})
				if err != nil {
					next, _ := r.NextRun("p")
					t.Fatalf("next run at %s, want %s", next, tt.wantFirst)
				}
				time.Sleep(20 * time.Millisecond)
				if _, ran := r.LastRun("p"); ran {
					t.Fatal("the policy ran before an interval had passed since its recorded run")
				}
				clk.Step(tt.wantFirst.Sub(t0))
			}
			waitRun(t, r, "p", tt.wantFirst)
		})
	}
}

// policyObjects returns a fake client of Berth's objects holding policy p
// with an empty status, with funcs intercepting its calls.
func policyObjects(t *testing.T, funcs interceptor.Funcs) client.Client {
	t.Helper()
	scheme := k8sruntime.NewScheme()
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	policy := &v1alpha1.RebalancePolicy{ObjectMeta: metav1.ObjectMeta{Name: "p"}}
	return ctrlfake.NewClientBuilder().WithScheme(scheme).WithObjects(policy).WithStatusSubresource(policy).
		WithInterceptorFuncs(funcs).Build()
}

func TestRunIsRecordedBeforeItEvicts(t *testing.T) {
	objects := policyObjects(t, interceptor.Funcs{})
	var seen []*v1alpha1.RebalanceRun
	r, _, _ := startWith(t, objects, func(string) {
		var p v1alpha1.RebalancePolicy
		if err := objects.Get(context.Background(), client.ObjectKey{Name: "p"}, &p); err != nil {
			t.Error(err)
		}
		seen = append(seen, p.Status.LastRun)
	})
	if err := r.SetPolicy("p", 1, lifetimePolicy(false, every(10*time.Minute))); err != nil {
		t.Fatal(err)
	}
	waitRun(t, r, "p", t0)
	if len(seen) != 2 {
		t.Fatalf("%d evictions, want 2", len(seen))
	}
	for i, run := range seen {
		if run == nil || !run.StartTime.Time.Equal(t0) || run.CompletionTime != nil || run.DryRun || run.Result != v1alpha1.RunRunning {
			t.Errorf("eviction %d saw lastRun %+v, want a live run started at %s, Running and not completed", i, run, t0)
		}
	}
}

func TestRunWaitsUntilItsStartIsRecorded(t *testing.T) {
	var refuse atomic.Bool
	refuse.Store(true)
	objects := policyObjects(t, interceptor.Funcs{
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			if refuse.Load() {
				return apierrors.NewServiceUnavailable("the apiserver is down")
			}
			return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
		},
	})
	r, clk, c := startWith(t, objects, nil)
	if err := r.SetPolicy("p", 1, lifetimePolicy(false, every(10*time.Minute))); err != nil {
		t.Fatal(err)
	}
	// The worker waits to retry on the clock: the run did not start.
	err := wait.PollUntilContextTimeout(context.Background(), 5*time.Millisecond, 5*time.Second, true, func(context.Context) (bool, error) {
		return clk.HasWaiters(), nil
	})
	if err != nil {
		t.Fatal("the worker is not waiting to retry")
	}
	if _, ran := r.LastRun("p"); ran || evictions(c) != 0 {
		t.Fatalf("ran (%v) and evicted %d pods without recording the run's start", ran, evictions(c))
	}
	refuse.Store(false)
	clk.Step(10 * time.Second)
	if res := waitRun(t, r, "p", t0); res.Evicted != 1 {
		t.Errorf("run = %+v, want one eviction once the start is recorded", res)
	}
}

func TestCronScheduleWaitsForItsTime(t *testing.T) {
	r, clk, _ := start(t)
	if err := r.SetPolicy("p", 1, lifetimePolicy(true, v1alpha1.RebalanceSchedule{Cron: "@hourly"})); err != nil {
		t.Fatal(err)
	}
	err := wait.PollUntilContextTimeout(context.Background(), 5*time.Millisecond, 5*time.Second, true, func(context.Context) (bool, error) {
		next, ok := r.NextRun("p")
		return ok && next.Equal(t0.Add(time.Hour)), nil
	})
	if err != nil {
		t.Fatalf("cron policy not scheduled for the next hour")
	}
	if _, ran := r.LastRun("p"); ran {
		t.Fatal("a cron policy ran before its time")
	}
	clk.Step(time.Hour)
	waitRun(t, r, "p", t0.Add(time.Hour))
}

func TestObserversAreToldOfTheFirstNextRun(t *testing.T) {
	clk := clocktesting.NewFakeClock(t0)
	r := New(fake.NewClientset(), nil, nil, NewInTreeRegistry(), WithClock(clk))
	told := make(chan time.Time, 4)
	r.OnRun(func(_ context.Context, name string) {
		next, _ := r.NextRun(name)
		told <- next
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	if err := r.SetPolicy("p", 1, lifetimePolicy(true, v1alpha1.RebalanceSchedule{Cron: "@hourly"})); err != nil {
		t.Fatal(err)
	}
	select {
	case next := <-told:
		if !next.Equal(t0.Add(time.Hour)) {
			t.Errorf("observer told of next run %s, want %s", next, t0.Add(time.Hour))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the observer was not told of the cron policy's first next run")
	}
	if _, ran := r.LastRun("p"); ran {
		t.Error("a cron policy ran before its time")
	}
}

func TestValidate(t *testing.T) {
	r := New(fake.NewClientset(), nil, nil, NewInTreeRegistry())
	bad := func(mutate func(*v1alpha1.RebalancePolicySpec)) *v1alpha1.RebalancePolicySpec {
		s := lifetimePolicy(true, every(time.Minute))
		mutate(s)
		return s
	}
	tests := map[string]struct {
		spec    *v1alpha1.RebalancePolicySpec
		wantErr bool
	}{
		"valid":              {spec: lifetimePolicy(true, every(time.Minute))},
		"not implemented":    {spec: bad(func(s *v1alpha1.RebalancePolicySpec) { s.Strategies[0].Name = "HighNodeUtilization" }), wantErr: true},
		"bad args":           {spec: bad(func(s *v1alpha1.RebalancePolicySpec) { s.Strategies[0].Args.Raw = []byte(`{}`) }), wantErr: true},
		"bad cron":           {spec: bad(func(s *v1alpha1.RebalancePolicySpec) { s.Schedule = v1alpha1.RebalanceSchedule{Cron: "61 * * * *"} }), wantErr: true},
		"no schedule":        {spec: bad(func(s *v1alpha1.RebalancePolicySpec) { s.Schedule = v1alpha1.RebalanceSchedule{} }), wantErr: true},
		"duplicate strategy": {spec: bad(func(s *v1alpha1.RebalancePolicySpec) { s.Strategies = append(s.Strategies, s.Strategies[0]) }), wantErr: true},
		"bad evictor selector": {spec: bad(func(s *v1alpha1.RebalancePolicySpec) {
			s.Evictor = &v1alpha1.EvictorOptions{LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "Nope"}}}}
		}), wantErr: true},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			if err := r.Validate(tt.spec); (err != nil) != tt.wantErr {
				t.Errorf("Validate() = %v, want error %v", err, tt.wantErr)
			}
		})
	}
}
