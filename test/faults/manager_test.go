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

package faults_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/berth-io/berth/internal/localcluster"
	"github.com/berth-io/berth/test/faults/faultproxy"
	"github.com/berth-io/berth/test/localsuite"
)

// Leader election: the managers' Lease, shortened from 15 s to 10 s so that
// failovers fit the specs' budgets with a margin on a loaded machine.
const (
	leaseNamespace = "kube-system"
	leaseDuration  = 10 * time.Second
	renewDeadline  = 8 * time.Second
	retryPeriod    = 2 * time.Second
)

// manager is one `berth manager` process and the proxy it reaches the
// apiserver through.
type manager struct {
	*localcluster.Process
	proxy     *faultproxy.Proxy
	healthURL string
}

// startManager runs berth manager with leader election, logging JSON,
// through a fault proxy of its own; its stop is a cleanup.
func startManager(name string, extraArgs ...string) *manager {
	GinkgoHelper()
	m := launchManager(name, extraArgs...)
	DeferCleanup(m.stop)
	return m
}

// stop resumes the manager if it is paused, stops it and closes its proxy.
func (m *manager) stop() {
	_ = m.Signal(syscall.SIGCONT)
	m.Stop(30 * time.Second)
	_ = m.proxy.Close()
}

// launchManager is startManager without the cleanup.
func launchManager(name string, extraArgs ...string) *manager {
	GinkgoHelper()
	proxy, err := faultproxy.New(cluster.Config)
	Expect(err).NotTo(HaveOccurred())
	Expect(proxy.Start()).To(Succeed())
	kubeconfig := filepath.Join(cluster.Dir, name+".kubeconfig")
	Expect(proxy.Kubeconfig(kubeconfig)).To(Succeed())

	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	port := l.Addr().(*net.TCPAddr).Port
	Expect(l.Close()).To(Succeed())
	args := append([]string{
		"manager",
		"--kubeconfig=" + kubeconfig,
		"--leader-elect=true",
		"--leader-elect-namespace=" + leaseNamespace,
		"--leader-elect-lease-duration=" + leaseDuration.String(),
		"--leader-elect-renew-deadline=" + renewDeadline.String(),
		"--leader-elect-retry-period=" + retryPeriod.String(),
		"--enable-webhook=false",
		"--metrics-bind-address=0",
		"--health-probe-bind-address=127.0.0.1:" + strconv.Itoa(port),
		"--zap-encoder=json",
		"--kube-api-qps=1000",
		"--kube-api-burst=1000",
	}, extraArgs...)
	// BERTH_FAULTS_MANAGER_ARGS adds flags to every manager, such as
	// --zap-log-level=4 to see each scheduling and rebalancing decision.
	args = append(args, strings.Fields(os.Getenv("BERTH_FAULTS_MANAGER_ARGS"))...)
	p, err := localcluster.StartProcess(name, cluster.LogDir(), GinkgoWriter, filepath.Join(binDir, "berth"), args...)
	Expect(err).NotTo(HaveOccurred())
	return &manager{Process: p, proxy: proxy, healthURL: fmt.Sprintf("http://127.0.0.1:%d/readyz", port)}
}

// replicas runs managers as a Deployment would: one that exits (it lost
// its Lease, say) is replaced by a new one a second later.
type replicas struct {
	prefix  string
	stopped atomic.Bool
	mu      sync.Mutex
	all     []*manager
}

// startReplicas starts n supervised managers; they stop with the spec.
func startReplicas(prefix string, n int) *replicas {
	GinkgoHelper()
	r := &replicas{prefix: prefix}
	for range n {
		r.launch()
	}
	DeferCleanup(func() {
		r.stopped.Store(true)
		for _, m := range r.managers() {
			m.stop()
		}
	})
	return r
}

func (r *replicas) launch() {
	r.mu.Lock()
	name := fmt.Sprintf("%s-%d", r.prefix, len(r.all))
	r.mu.Unlock()
	m := launchManager(name)
	r.mu.Lock()
	r.all = append(r.all, m)
	r.mu.Unlock()
	go func() {
		defer GinkgoRecover()
		<-m.Done()
		_ = m.proxy.Close()
		if r.stopped.Load() {
			return
		}
		GinkgoWriter.Printf("%s exited (%v); starting a replacement\n", m.Name, m.Err())
		time.Sleep(time.Second)
		if !r.stopped.Load() {
			r.launch()
		}
	}()
}

// managers returns every manager started so far, exited or not.
func (r *replicas) managers() []*manager {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*manager(nil), r.all...)
}

// leader returns the running manager that last renewed the Lease.
func (r *replicas) leader(ctx context.Context) *manager {
	GinkgoHelper()
	var leader *manager
	Eventually(ctx, func() *manager {
		leader = nil
		var last time.Time
		for _, m := range r.managers() {
			if renewed := lastRenewal(m); !m.Exited() && renewed.After(last) {
				leader, last = m, renewed
			}
		}
		return leader
	}).WithTimeout(time.Minute).WithPolling(200 * time.Millisecond).ShouldNot(BeNil())
	return leader
}

// waitReady waits until the manager answers /readyz with 200.
func (m *manager) waitReady(ctx context.Context) {
	GinkgoHelper()
	localsuite.WaitReady(ctx, m.Process, m.healthURL)
}

// waitLeader waits until m holds the Lease: its proxy has seen it write the
// Lease naming itself, which the holder's identity cannot tell (it is the
// host name and a random suffix).
func (m *manager) waitLeader(ctx context.Context) {
	GinkgoHelper()
	Eventually(ctx, func() bool {
		for _, verb := range []string{"create", "update"} {
			for _, r := range m.proxy.Requests(faultproxy.Match{Resource: "leases", Verb: verb}) {
				if r.Code >= 200 && r.Code < 300 {
					return true
				}
			}
		}
		return false
	}).WithTimeout(time.Minute).WithPolling(200*time.Millisecond).Should(BeTrue(), "%s never wrote the Lease", m.Name)
}

// cacheReport is the log line of the manager's cache comparison (SIGUSR2).
type cacheReport struct {
	Msg         string `json:"msg"`
	Nodes       int    `json:"nodes"`
	Pods        int    `json:"pods"`
	AssumedPods int    `json:"assumedPods"`
	Consistent  bool   `json:"consistent"`
	Differences string `json:"differences"`
}

const cacheReportMsg = "Compared the scheduler's cache with its informers"

// compareCache asks the manager to compare its cache with its informers
// and returns the report it logs.
func (m *manager) compareCache(ctx context.Context) cacheReport {
	GinkgoHelper()
	before := len(m.cacheReports())
	Expect(m.Signal(syscall.SIGUSR2)).To(Succeed())
	var reports []cacheReport
	Eventually(ctx, func() int {
		reports = m.cacheReports()
		return len(reports)
	}).WithTimeout(10*time.Second).WithPolling(100*time.Millisecond).Should(BeNumerically(">", before), "%s logged no cache comparison", m.Name)
	return reports[len(reports)-1]
}

// cacheReports reads the cache comparisons the manager has logged.
func (m *manager) cacheReports() []cacheReport {
	f, err := os.Open(m.LogFile)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []cacheReport
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if !strings.Contains(string(line), cacheReportMsg) {
			continue
		}
		var r cacheReport
		if json.Unmarshal(line, &r) == nil && r.Msg == cacheReportMsg {
			out = append(out, r)
		}
	}
	return out
}

// expectCacheSettles checks, within a minute, that the manager's cache
// holds no assumed pod and matches its informers; it reports both figures.
func (m *manager) expectCacheSettles(ctx context.Context, scenario string) {
	GinkgoHelper()
	var r cacheReport
	Eventually(ctx, func(g Gomega) {
		r = m.compareCache(ctx)
		g.Expect(r.AssumedPods).To(BeZero())
		g.Expect(r.Consistent).To(BeTrue(), r.Differences)
	}).WithTimeout(time.Minute).WithPolling(2 * time.Second).Should(Succeed())
	figure(scenario+"/assumed-pods-left", r.AssumedPods)
	figure(scenario+"/cache-differences", boolCount(!r.Consistent))
}

func boolCount(b bool) int {
	if b {
		return 1
	}
	return 0
}
