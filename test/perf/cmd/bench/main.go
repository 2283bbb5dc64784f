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

// Command bench runs the scheduler throughput benchmark: for each scheduler
// under test (Berth, upstream kube-scheduler, a null binder without and with
// Scheduled events) it starts a fresh
// etcd and kube-apiserver, creates nodes and pending pods, starts the
// scheduler and measures binds per second, CPU time and peak RSS. It prints a
// Markdown table and can write it and the raw results as JSON.
//
// `bench null-binder --kubeconfig=PATH [--events]` is the null binder's own process.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2/textlogger"

	"github.com/berth-io/berth/test/perf/throughput"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger := textlogger.NewLogger(textlogger.NewConfig())
	var err error
	if len(os.Args) > 1 && os.Args[1] == "null-binder" {
		err = nullBinder(ctx, os.Args[2:], logger)
	} else {
		err = bench(ctx, os.Args[1:], logger)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// nullBinder runs throughput.NullBind until it is signalled.
func nullBinder(ctx context.Context, args []string, logger logr.Logger) error {
	fs := flag.NewFlagSet("null-binder", flag.ContinueOnError)
	kubeconfig := fs.String("kubeconfig", "", "path of the kubeconfig")
	workers := fs.Int("workers", 32, "concurrent binding calls")
	scheduledEvents := fs.Bool("events", false, "record a Scheduled event for every bound pod")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		return fmt.Errorf("loading the kubeconfig: %w", err)
	}
	cfg.QPS, cfg.Burst = -1, -1
	// Protobuf, as kube-scheduler and Berth use: the cheapest encoding for the apiserver.
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("building a clientset: %w", err)
	}
	opts := []throughput.NullBindOption{throughput.WithBindWorkers(*workers)}
	if *scheduledEvents {
		opts = append(opts, throughput.WithScheduledEvents())
	}
	return throughput.NullBind(ctx, client, logger, opts...)
}

type benchFlags struct {
	quick       bool
	nodes, pods int
	schedulers  string
	berthBin    string
	baseBin     string
	k8sBinDir   string
	outJSON     string
	outMD       string
	timeout     time.Duration
	verbose     bool
	pprofFile   string
	pprofSecs   int
	heapFile    string
	apiProfile  string
	apiProfSecs int
	berthArgs   string
	workloads   string
	rate        int
	arrivalFor  time.Duration
	repeat      int
	devices     int
	gangSize    int
	bigGang     int
}

func bench(ctx context.Context, args []string, logger logr.Logger) error {
	var f benchFlags
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.BoolVar(&f.quick, "quick", false, "a small run that proves the harness works (make test runs it): 1,000 nodes, 1,000 pods, SchedulingBasic and 5 s of SteadyArrival, 2 minutes per scheduler at most")
	fs.IntVar(&f.nodes, "nodes", 1000, "nodes (ignored with --quick)")
	fs.IntVar(&f.pods, "pods", 3000, "pending pods (ignored with --quick)")
	fs.StringVar(&f.schedulers, "schedulers", "berth,berth-no-events,kube-scheduler,null-binder,null-binder-events", "comma-separated schedulers under test, run in this order (berth-shadow: berth with a shadow of its profile at 100% sampling; berth-load-aware: berth whose profile adds TargetLoadPacking and LoadAwareScheduling, reading node usage from a Prometheus endpoint the bench serves)")
	fs.StringVar(&f.berthBin, "berth-bin", "bin/berth", "the berth binary")
	fs.StringVar(&f.baseBin, "berth-base-bin", "", "the berth binary of a base build, run as the scheduler berth-base with the same arguments as berth: the tables then compare berth with berth-base round by round (make bench-compare)")
	fs.StringVar(&f.k8sBinDir, "k8s-bin-dir", "bin/k8s", "directory with etcd, kube-apiserver and kube-scheduler")
	fs.StringVar(&f.outJSON, "out-json", "", "write the results as JSON to this file")
	fs.StringVar(&f.outMD, "out-md", "", "write the Markdown table to this file")
	fs.DurationVar(&f.timeout, "timeout", 10*time.Minute, "how long one scheduler may take to bind every pod")
	fs.BoolVar(&f.verbose, "v", false, "copy the components' logs to stderr")
	fs.StringVar(&f.pprofFile, "berth-cpu-profile", "", "write a CPU profile of Berth, taken from its start, to this file (each round's named after it, -rN before the extension, when --repeat > 1)")
	fs.IntVar(&f.pprofSecs, "berth-cpu-profile-seconds", 10, "length of Berth's CPU profile")
	fs.StringVar(&f.apiProfile, "apiserver-cpu-profile", "", "write a CPU profile of kube-apiserver, taken from the scheduler's start, to this file with the scheduler's name before the extension")
	fs.IntVar(&f.apiProfSecs, "apiserver-cpu-profile-seconds", 10, "length of kube-apiserver's CPU profile")
	fs.StringVar(&f.heapFile, "berth-heap-profile", "", "write a heap profile of Berth, taken right after the last bind, to this file")
	fs.StringVar(&f.workloads, "workloads", "SchedulingBasic", "comma-separated workloads: SchedulingBasic, TopologySpreading, PodAntiAffinity (which gets a fifth of --pods, at most one per node), SteadyArrival, DynamicResources (each pod claims one of --devices-per-node devices published per node), Gangs (pods in gangs of --gang-size, each in one rack, plus one of --big-gang; the control plane and kube-scheduler run with GenericWorkload and TopologyAwareWorkloadScheduling)")
	fs.IntVar(&f.rate, "arrival-rate", 100, "SteadyArrival: pods created per second")
	fs.DurationVar(&f.arrivalFor, "arrival-duration", time.Minute, "SteadyArrival: how long pods arrive (5s with --quick)")
	fs.StringVar(&f.berthArgs, "berth-args", "", "space-separated extra arguments of `berth manager`")
	fs.IntVar(&f.devices, "devices-per-node", throughput.DefaultDevicesPerNode, "DynamicResources: devices each node offers in its ResourceSlice")
	fs.IntVar(&f.gangSize, "gang-size", throughput.DefaultGangSize, "Gangs: pods per gang (scheduling.k8s.io PodGroup, minCount its size, one rack of 50 nodes)")
	fs.IntVar(&f.bigGang, "big-gang", 0, "Gangs: the size of one more gang that the first pods form (0: none)")
	fs.IntVar(&f.repeat, "repeat", 1, "rounds: every scheduler runs each workload this many times, the schedulers taking turns (in the order given in odd rounds, reversed in even ones), and the ratios compare medians")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if f.repeat < 1 {
		return fmt.Errorf("--repeat must be at least 1, not %d", f.repeat)
	}
	if f.quick {
		applyQuick(&f, fs)
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding this executable: %w", err)
	}
	if err := checkBase(ctx, f, self); err != nil {
		return err
	}
	opts := []throughput.Option{
		throughput.WithK8sBinDir(f.k8sBinDir), throughput.WithTimeout(f.timeout), throughput.WithLogger(logger),
	}
	if f.verbose {
		opts = append(opts, throughput.WithComponentOutput(os.Stderr))
	}
	var results []throughput.Result
	for wname := range strings.SplitSeq(f.workloads, ",") {
		pods := f.pods
		if wname == "PodAntiAffinity" {
			pods = min(f.pods/5, f.nodes)
		}
		workload, err := throughput.WorkloadNamed(wname, f.nodes, pods)
		switch wname {
		case "SteadyArrival":
			workload, err = throughput.SteadyArrival(f.nodes, f.rate, f.arrivalFor), nil
		case "DynamicResources":
			workload, err = throughput.DynamicResources(f.nodes, pods, f.devices), nil
		case "Gangs":
			workload, err = throughput.Gangs(f.nodes, pods, f.gangSize, f.bigGang), nil
		}
		if err != nil {
			return err
		}
		for round := 1; round <= f.repeat; round++ {
			rf := f
			if f.repeat > 1 {
				// Each round's profiles are kept, named after the round.
				suffix := fmt.Sprintf("r%d", round)
				rf.pprofFile, rf.heapFile, rf.apiProfile = perScheduler(f.pprofFile, suffix), perScheduler(f.heapFile, suffix), perScheduler(f.apiProfile, suffix)
			}
			for position, name := range roundOrder(strings.Split(f.schedulers, ","), round) {
				s, runOpts, err := scheduler(name, rf, self)
				if err != nil {
					return err
				}
				if rf.apiProfile != "" {
					runOpts = append(runOpts, throughput.WithAPIServerCPUProfile(perScheduler(rf.apiProfile, name), time.Duration(f.apiProfSecs)*time.Second))
				}
				r, err := throughput.Run(ctx, workload, s, append(opts, runOpts...)...)
				if err != nil {
					return fmt.Errorf("running %s on %s: %w", name, wname, err)
				}
				if f.repeat > 1 {
					r.Round, r.Position = round, position+1
				}
				results = append(results, r)
			}
		}
	}
	table := throughput.Markdown(results)
	fmt.Print(table)
	if f.outMD != "" {
		if err := os.WriteFile(f.outMD, []byte(table), 0o644); err != nil {
			return fmt.Errorf("writing the table: %w", err)
		}
	}
	if f.outJSON != "" {
		raw, err := throughput.JSON(results)
		if err != nil {
			return err
		}
		if err := os.WriteFile(f.outJSON, raw, 0o644); err != nil {
			return fmt.Errorf("writing the results: %w", err)
		}
	}
	return nil
}

// Sizes of a --quick run.
const (
	quickNodes   = 1000
	quickPods    = 1000
	quickArrival = 5 * time.Second
	quickTimeout = 2 * time.Minute
)

// applyQuick sets a --quick run's sizes. Workloads and the timeout keep the
// values given on the command line; by default a quick run is
// SchedulingBasic and a short SteadyArrival, and fails if a scheduler has
// not bound every pod within quickTimeout.
func applyQuick(f *benchFlags, fs *flag.FlagSet) {
	f.nodes, f.pods, f.arrivalFor = quickNodes, quickPods, quickArrival
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if !set["workloads"] {
		f.workloads = "SchedulingBasic,SteadyArrival"
	}
	if !set["timeout"] {
		f.timeout = quickTimeout
	}
}

// scheduler returns the scheduler under test called name.
func scheduler(name string, f benchFlags, self string) (throughput.Scheduler, []throughput.Option, error) {
	switch name {
	case "berth", "berth-no-events", "berth-shadow", "berth-load-aware", baseScheduler:
		extra := strings.Fields(f.berthArgs)
		if name == "berth-no-events" {
			extra = append(extra, "--scheduled-events=false")
		}
		berth := throughput.Berth
		if name == "berth-shadow" {
			// A shadow identical to the live profile, sampling every attempt.
			berth = throughput.BerthWithShadow
		}
		if name == "berth-load-aware" {
			berth = throughput.BerthLoadAware
		}
		bin, cpuProfile, heapProfile := f.berthBin, f.pprofFile, f.heapFile
		if name == baseScheduler {
			if f.baseBin == "" {
				return throughput.Scheduler{}, nil, fmt.Errorf("scheduler %s needs --berth-base-bin", baseScheduler)
			}
			// The base's profiles go beside this build's, named after it.
			bin, cpuProfile, heapProfile = f.baseBin, perScheduler(f.pprofFile, name), perScheduler(f.heapFile, name)
		}
		if cpuProfile == "" && heapProfile == "" {
			return berth(name, bin, extra...), nil, nil
		}
		addr, err := freeAddr()
		if err != nil {
			return throughput.Scheduler{}, nil, err
		}
		s := berth(name, bin, append(extra, "--pprof-bind-address="+addr)...)
		return s, []throughput.Option{throughput.WithDuring(func(ctx context.Context) error {
			var errs []error
			if cpuProfile != "" {
				errs = append(errs, fetchProfile(ctx, fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", addr, f.pprofSecs), cpuProfile))
			}
			if heapProfile != "" {
				// The heap as it is once every pod is bound: wait for the
				// last bind, then ask the still running process.
				<-ctx.Done()
				heapCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
				errs = append(errs, fetchProfile(heapCtx, fmt.Sprintf("http://%s/debug/pprof/heap", addr), heapProfile))
				cancel()
			}
			return errors.Join(errs...)
		})}, nil
	case "kube-scheduler":
		return throughput.KubeScheduler(filepath.Join(f.k8sBinDir, "kube-scheduler")), nil, nil
	case "null-binder":
		return throughput.NullBinder("null-binder", self, "null-binder"), nil, nil
	case "null-binder-events":
		return throughput.NullBinder("null-binder-events", self, "null-binder", "--events"), nil, nil
	default:
		return throughput.Scheduler{}, nil, fmt.Errorf("unknown scheduler %q (want berth, berth-no-events, berth-shadow, berth-load-aware, berth-base, kube-scheduler, null-binder or null-binder-events)", name)
	}
}

// roundOrder returns the order in which schedulers run in round: as given
// in odd rounds, reversed in even ones, so that over an even number of
// rounds each runs as often first as last and what the position costs
// (the previous run's leftovers on the machine) cancels out of the medians.
func roundOrder(schedulers []string, round int) []string {
	if round%2 == 1 {
		return schedulers
	}
	reversed := slices.Clone(schedulers)
	slices.Reverse(reversed)
	return reversed
}

// perScheduler names a scheduler's own copy of the file path: the
// scheduler's name goes before the extension (api.pprof becomes
// api-null-binder.pprof). An empty path stays empty.
func perScheduler(path, scheduler string) string {
	if path == "" {
		return ""
	}
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + "-" + scheduler + ext
}

// freeAddr returns a local address with a port nobody listens on.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("finding a free port: %w", err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().String(), nil
}

// fetchProfile fetches a profile from url, a pprof endpoint (retrying until
// it listens), and writes it to path.
func fetchProfile(ctx context.Context, url, path string) error {
	for {
		req, err := http.NewRequestWithContext(context.WithoutCancel(ctx), http.MethodGet, url, nil)
		if err != nil {
			return fmt.Errorf("building the profile request: %w", err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			defer func() { _ = resp.Body.Close() }()
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("profile request: %s", resp.Status)
			}
			raw, err := io.ReadAll(resp.Body)
			if err != nil {
				return fmt.Errorf("reading the profile: %w", err)
			}
			if err := os.WriteFile(path, raw, 0o644); err != nil {
				return fmt.Errorf("writing the profile: %w", err)
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return errors.Join(ctx.Err(), err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
