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
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
	"k8s.io/client-go/util/workqueue"

	"github.com/berth-io/berth/internal/localcluster"
)

// stopGrace is how long a scheduler may take to exit after SIGTERM.
const stopGrace = 10 * time.Second

// Result is one scheduler's run of one workload.
type Result struct {
	// Scheduler names the scheduler under test.
	Scheduler string `json:"scheduler"`
	// Round numbers the run from 1 when each scheduler ran the workload
	// several times; 0 for a single run.
	Round int `json:"round,omitempty"`
	// Position is the run's place in its round, from 1; 0 for a single run.
	Position int `json:"position,omitempty"`
	// Workload is what was scheduled.
	Workload Workload `json:"workload"`
	// Throughput is measured from the pod watch.
	Throughput Throughput `json:"throughput"`
	// FirstBind is the time from starting the process to the first bind.
	FirstBind time.Duration `json:"firstBindNs"`
	// Total is the time from starting the process to the last bind.
	Total time.Duration `json:"totalNs"`
	// Proc is the process's CPU time and peak RSS, read after the last bind.
	Proc ProcStats `json:"proc"`
	// CPUPerPod is Proc.CPU divided by the pods bound.
	CPUPerPod time.Duration `json:"cpuPerPodNs"`
	// ControlPlaneCPU is the CPU time etcd and kube-apiserver used from the
	// scheduler's start to the last bind.
	ControlPlaneCPU time.Duration `json:"controlPlaneCPUNs"`
	// Latency is the creation-to-bind latency under steady arrival.
	Latency *Latency `json:"latency,omitempty"`
	// BigGang, for a workload with a big gang, is when it was bound.
	BigGang *GangTiming `json:"bigGang,omitempty"`
	// ScheduledEvents counts the Scheduled events in the benchmark's
	// namespace right after the last bind: what the scheduler had written
	// within the measured time.
	ScheduledEvents int `json:"scheduledEvents"`
	// Claims, for a workload with devices, is what the scheduler had done
	// with the pods' claims by the last bind.
	Claims *ClaimStats `json:"claims,omitempty"`
	// APIRequests counts the requests kube-apiserver served from the
	// scheduler's start to the last bind, by kind.
	APIRequests APIRequests `json:"apiRequests,omitempty"`
	// OpenWatches counts the watches (and other long-running requests) open
	// on kube-apiserver at the last bind beyond those open before the
	// scheduler started, by verb and resource.
	OpenWatches APIRequests `json:"openWatches,omitempty"`
}

type runOptions struct {
	k8sBinDir string
	timeout   time.Duration
	workers   int
	logger    logr.Logger
	output    io.Writer
	during    func(ctx context.Context) error
	// apiProfile and apiProfileFor ask for a CPU profile of kube-apiserver.
	apiProfile    string
	apiProfileFor time.Duration
}

// Option configures Run.
type Option func(*runOptions)

// WithK8sBinDir names the directory holding etcd and kube-apiserver.
func WithK8sBinDir(dir string) Option { return func(o *runOptions) { o.k8sBinDir = dir } }

// WithTimeout bounds how long Run waits for every pod to be bound.
func WithTimeout(d time.Duration) Option { return func(o *runOptions) { o.timeout = d } }

// WithLogger makes Run report its progress to logger.
func WithLogger(logger logr.Logger) Option { return func(o *runOptions) { o.logger = logger } }

// WithComponentOutput copies the components' and the scheduler's logs to w.
func WithComponentOutput(w io.Writer) Option { return func(o *runOptions) { o.output = w } }

// WithDuring runs f while the scheduler works, from its start until the
// last bind (ctx is cancelled then), for example to take a CPU profile.
func WithDuring(f func(ctx context.Context) error) Option {
	return func(o *runOptions) { o.during = f }
}

// WithAPIServerCPUProfile writes a CPU profile of kube-apiserver, taken for
// d from the scheduler's start, to path: what the scheduler under test costs
// the control plane, per call site.
func WithAPIServerCPUProfile(path string, d time.Duration) Option {
	return func(o *runOptions) { o.apiProfile, o.apiProfileFor = path, d }
}

// Run starts a fresh control plane, creates w's nodes and pending pods,
// starts s and measures until every pod is bound, then stops everything.
func Run(ctx context.Context, w Workload, s Scheduler, opts ...Option) (Result, error) {
	o := runOptions{timeout: 10 * time.Minute, workers: 32, logger: logr.Discard()}
	for _, opt := range opts {
		opt(&o)
	}
	if err := w.check(); err != nil {
		return Result{}, err
	}
	logger := o.logger.WithValues("scheduler", s.Name)
	clusterOpts := []localcluster.Option{localcluster.WithControlPlaneOnly(),
		localcluster.WithK8sBinDir(o.k8sBinDir), localcluster.WithLogger(logger)}
	if w.gangs() {
		clusterOpts = append(clusterOpts, localcluster.WithFeatureGates(WorkloadFeatureGates), localcluster.WithRuntimeConfig(workloadRuntimeConfig))
	}
	cluster, err := localcluster.Start(ctx, clusterOpts...)
	if err != nil {
		return Result{}, fmt.Errorf("starting the control plane: %w", err)
	}
	defer cluster.Stop()
	client := cluster.Clientset

	start := time.Now()
	if err := parallel(ctx, w.Nodes, o.workers, func(ctx context.Context, i int) error {
		if _, err := client.CoreV1().Nodes().Create(ctx, w.node(i), metav1.CreateOptions{}); err != nil {
			return err
		}
		// The TaintNodesByCondition admission plugin taints a new node
		// not-ready; without a node lifecycle controller nothing would lift it.
		_, err := client.CoreV1().Nodes().Patch(ctx, nodeName(i), types.MergePatchType, []byte(`{"spec":{"taints":null}}`), metav1.PatchOptions{})
		return err
	}); err != nil {
		return Result{}, fmt.Errorf("creating nodes: %w", err)
	}
	if err := w.createDevices(ctx, client, o.workers); err != nil {
		return Result{}, err
	}
	if err := w.createGroups(ctx, client, o.workers); err != nil {
		return Result{}, err
	}
	if w.ArrivalRate <= 0 {
		if err := parallel(ctx, w.Pods, o.workers, func(ctx context.Context, i int) error {
			_, err := client.CoreV1().Pods(Namespace).Create(ctx, w.pod(i), metav1.CreateOptions{})
			return err
		}); err != nil {
			return Result{}, fmt.Errorf("creating pods: %w", err)
		}
	}
	logger.Info("Created the workload", "nodes", w.Nodes, "pods", w.Pods, "took", time.Since(start).Round(time.Millisecond))

	env := Env{Kubeconfig: cluster.Kubeconfig, Dir: cluster.Dir, Cluster: cluster}
	if w.gangs() {
		env.FeatureGates = WorkloadFeatureGates
	}
	if s.Setup != nil {
		// What Setup starts (an endpoint the scheduler reads) lives until
		// the run returns.
		setupCtx, stopSetup := context.WithCancel(ctx)
		defer stopSetup()
		if err := s.Setup(setupCtx, env); err != nil {
			return Result{}, err
		}
	}
	args, err := s.Args(env)
	if err != nil {
		return Result{}, err
	}

	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	binds, err := watchBinds(ctx, client, w.Pods)
	if err != nil {
		return Result{}, err
	}
	controlPlaneBefore, err := componentsCPU(cluster.Components())
	if err != nil {
		return Result{}, err
	}
	requestsBefore, openBefore, err := readAPIRequests(ctx, client)
	if err != nil {
		return Result{}, err
	}
	proc, err := localcluster.StartProcess(s.Name, cluster.LogDir(), o.output, s.Binary, args...)
	if err != nil {
		return Result{}, fmt.Errorf("starting %s: %w", s.Name, err)
	}
	started := time.Now()
	defer proc.Stop(stopGrace)
	logger.Info("Started the scheduler", "pid", proc.Pid())

	duringCtx, stopDuring := context.WithCancel(ctx)
	defer stopDuring()
	var during sync.WaitGroup
	var duringErr error
	if o.during != nil {
		during.Go(func() { duringErr = o.during(duringCtx) })
	}
	var apiProfileErr error
	if o.apiProfile != "" {
		during.Go(func() { apiProfileErr = apiServerProfile(ctx, client, o.apiProfile, o.apiProfileFor) })
	}

	var arrivals *arrival
	if w.ArrivalRate > 0 {
		if err := warmUp(ctx, client, proc); err != nil {
			return Result{}, fmt.Errorf("%s: %w\nlast lines of its log:\n%s", s.Name, err, tail(proc.LogFile))
		}
		logger.Info("The scheduler bound a first pod; pods now arrive", "perSecond", w.ArrivalRate, "pods", w.Pods)
		arrivals = startArrivals(ctx, client, w)
	}
	times, err := binds.wait(ctx, proc)
	stats, statErr := ReadProcStats(proc.Pid())
	controlPlaneAfter, cpErr := componentsCPU(cluster.Components())
	statErr = errors.Join(statErr, cpErr)
	requestsAfter, openAfter, reqErr := readAPIRequests(ctx, client)
	statErr = errors.Join(statErr, reqErr)
	events, evErr := countScheduledEvents(ctx, client)
	statErr = errors.Join(statErr, evErr)
	var claims *ClaimStats
	if w.DevicesPerNode > 0 && err == nil {
		var claimErr error
		claims, claimErr = readClaimStats(ctx, client)
		statErr = errors.Join(statErr, claimErr)
	}
	stopDuring()
	during.Wait()
	if err != nil {
		return Result{}, fmt.Errorf("%s bound %d of %d pods: %w\nlast lines of its log:\n%s", s.Name, len(times), w.Pods, err, tail(proc.LogFile))
	}
	if statErr != nil {
		return Result{}, statErr
	}
	if duringErr != nil {
		logger.Error(duringErr, "The side task failed")
	}
	if apiProfileErr != nil {
		logger.Error(apiProfileErr, "Profiling kube-apiserver failed")
	}
	r := Result{Scheduler: s.Name, Workload: w, Throughput: Summarize(times), Proc: stats}
	first, last := times[0], times[0]
	for _, t := range times {
		first, last = minTime(first, t), maxTime(last, t)
	}
	r.FirstBind, r.Total = first.Sub(started), last.Sub(started)
	r.CPUPerPod = stats.CPU / time.Duration(len(times))
	r.ScheduledEvents = events
	r.Claims = claims
	r.ControlPlaneCPU = controlPlaneAfter - controlPlaneBefore
	r.APIRequests = requestsAfter.since(requestsBefore)
	r.OpenWatches = openAfter.since(openBefore)
	if w.BigGang > 0 {
		r.BigGang = gangTiming(binds.bound, w.BigGang, started)
	}
	if arrivals != nil {
		created, err := arrivals.wait()
		if err != nil {
			return Result{}, err
		}
		latencies := make([]time.Duration, 0, len(created))
		for i, c := range created {
			latencies = append(latencies, binds.bound[podName(i)].Sub(c))
		}
		l := SummarizeLatency(latencies)
		r.Latency = &l
	}
	logger.Info("Every pod is bound", "podsPerSecond", fmt.Sprintf("%.1f", r.Throughput.Overall), "cpu", stats.CPU, "peakRSSMiB", stats.PeakRSS>>20)
	return r, nil
}

// countScheduledEvents counts the Scheduled events in the benchmark's
// namespace, a page at a time.
func countScheduledEvents(ctx context.Context, client kubernetes.Interface) (int, error) {
	opts := metav1.ListOptions{FieldSelector: "reason=Scheduled", Limit: 5000}
	n := 0
	for {
		list, err := client.CoreV1().Events(Namespace).List(ctx, opts)
		if err != nil {
			return 0, fmt.Errorf("counting Scheduled events: %w", err)
		}
		n += len(list.Items)
		if list.Continue == "" {
			return n, nil
		}
		opts.Continue = list.Continue
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// parallel calls f for 0..n-1 with workers calls at once and returns the first error.
func parallel(ctx context.Context, n, workers int, f func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var once sync.Once
	var first error
	workqueue.ParallelizeUntil(ctx, workers, n, func(i int) {
		if err := f(ctx, i); err != nil {
			once.Do(func() { first = err; cancel() })
		}
	})
	if first == nil {
		return ctx.Err()
	}
	return first
}

// bindWatch records when each benchmark pod is first seen bound.
type bindWatch struct {
	w     watch.Interface
	want  int
	bound map[string]time.Time
	times []time.Time
}

// watchBinds starts watching the benchmark's pods from a fresh list.
func watchBinds(ctx context.Context, client kubernetes.Interface, want int) (*bindWatch, error) {
	pods := client.CoreV1().Pods(Namespace)
	sel := metav1.ListOptions{LabelSelector: WorkloadLabel}
	list, err := pods.List(ctx, sel)
	if err != nil {
		return nil, fmt.Errorf("listing pods: %w", err)
	}
	b := &bindWatch{want: want, bound: make(map[string]time.Time, want), times: make([]time.Time, 0, want)}
	for i := range list.Items {
		if list.Items[i].Spec.NodeName != "" {
			return nil, fmt.Errorf("pod %s is bound before the scheduler started", list.Items[i].Name)
		}
	}
	b.w, err = watchtools.NewRetryWatcherWithContext(ctx, list.ResourceVersion, &cache.ListWatch{
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			opts.LabelSelector = sel.LabelSelector
			return pods.Watch(ctx, opts)
		},
	})
	if err != nil {
		return nil, fmt.Errorf("watching pods: %w", err)
	}
	return b, nil
}

// wait returns the bind times once want pods are bound; it fails when ctx
// ends or the scheduler process exits first.
func (b *bindWatch) wait(ctx context.Context, proc *localcluster.Process) ([]time.Time, error) {
	defer b.w.Stop()
	for len(b.times) < b.want {
		select {
		case <-ctx.Done():
			return b.times, ctx.Err()
		case <-proc.Done():
			return b.times, fmt.Errorf("the scheduler exited: %w", errors.Join(proc.Err(), errors.New("exited early")))
		case ev, ok := <-b.w.ResultChan():
			if !ok {
				return b.times, errors.New("the pod watch closed")
			}
			now := time.Now()
			pod, isPod := ev.Object.(*corev1.Pod)
			if !isPod || pod.Spec.NodeName == "" {
				continue
			}
			if _, seen := b.bound[pod.Name]; seen {
				continue
			}
			b.bound[pod.Name] = now
			b.times = append(b.times, now)
		}
	}
	return b.times, nil
}

// tail returns the last lines of a log file.
func tail(path string) string {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	const keep = 3000
	if len(raw) > keep {
		raw = raw[len(raw)-keep:]
	}
	return string(raw)
}
