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

// Package localsuite is what Berth's ginkgo suites on a local cluster
// (test/e2e, test/e2e/install, test/faults) share: finding the binaries,
// starting the cluster and keeping its logs when a spec failed, and waiting
// for a manager process to be ready.
package localsuite

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr/funcr"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/berth-io/berth/internal/localcluster"
)

// ClusterBinaries are the files every local cluster needs in the bin directory.
var ClusterBinaries = []string{"kwok", "kwok-stages.yaml", "k8s/etcd", "k8s/kube-apiserver", "k8s/kube-controller-manager"}

// MetricsBinaries are the files a local cluster that runs metrics-server
// (WithMetricsServer) needs too.
var MetricsBinaries = []string{"metrics-server", "kwok-usage.yaml"}

// WithMetricsServer is localcluster.WithMetricsServer with the files in binDir.
func WithMetricsServer(binDir string) localcluster.Option {
	return localcluster.WithMetricsServer(filepath.Join(binDir, "metrics-server"), filepath.Join(binDir, "kwok-usage.yaml"))
}

// BinDir returns the absolute directory holding the binaries, BERTH_BIN_DIR
// or else repoRoot's bin/, and fails the suite, naming the make target that
// builds them, when one of the required files is missing.
func BinDir(repoRoot, makeTarget string, required ...string) string {
	GinkgoHelper()
	dir := os.Getenv("BERTH_BIN_DIR")
	if dir == "" {
		dir = filepath.Join(repoRoot, "bin")
	}
	dir, err := filepath.Abs(dir)
	Expect(err).NotTo(HaveOccurred())
	for _, f := range required {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			Fail(fmt.Sprintf("missing %s: run `make %s`, which builds it", filepath.Join(dir, f), makeTarget))
		}
	}
	return dir
}

// Failures records whether a spec of the suite failed: a suite-level
// cleanup sees only its own report.
type Failures struct{ failed atomic.Bool }

// TrackFailures registers an AfterEach that records failed specs; call it
// at the top level of a suite.
func TrackFailures() *Failures {
	f := &Failures{}
	AfterEach(func() {
		if CurrentSpecReport().Failed() {
			f.failed.Store(true)
		}
	})
	return f
}

// Failed reports whether a spec failed so far.
func (f *Failures) Failed() bool { return f.failed.Load() }

// Logs says where a suite keeps the cluster's logs and when.
type Logs struct {
	// Dir is the directory, under the bin directory, the logs are copied to.
	Dir string
	// KeepEnv names the variable that keeps them even when every spec passed.
	KeepEnv string
	// Failures decides, with KeepEnv, whether they are kept.
	Failures *Failures
}

// StartCluster starts a local cluster with kwok nodes from binDir, logging
// to the GinkgoWriter, and registers its stop as a cleanup that first keeps
// its logs as logs says. opts come after the defaults and may override them.
func StartCluster(ctx context.Context, binDir string, logs Logs, opts ...localcluster.Option) *localcluster.Cluster {
	GinkgoHelper()
	logger := funcr.New(func(prefix, args string) { GinkgoWriter.Printf("%s %s\n", prefix, args) }, funcr.Options{})
	all := append([]localcluster.Option{
		localcluster.WithK8sBinDir(filepath.Join(binDir, "k8s")),
		localcluster.WithKwok(filepath.Join(binDir, "kwok"), filepath.Join(binDir, "kwok-stages.yaml")),
		localcluster.WithLogger(logger),
		localcluster.WithStartTimeout(3 * time.Minute),
	}, opts...)
	cluster, err := localcluster.Start(ctx, all...)
	Expect(err).NotTo(HaveOccurred(), "starting the local cluster")
	DeferCleanup(func() {
		if logs.Failures.Failed() || CurrentSpecReport().Failed() || os.Getenv(logs.KeepEnv) != "" {
			dst := filepath.Join(binDir, logs.Dir)
			if err := cluster.CopyLogs(dst); err != nil {
				GinkgoWriter.Printf("keeping the logs: %v\n", err)
			} else {
				GinkgoWriter.Printf("component logs kept in %s\n", dst)
			}
		}
		cluster.Stop()
	})
	return cluster
}

// WaitReady waits up to a minute until the process answers healthURL with
// 200, and stops waiting at once if it exits.
func WaitReady(ctx context.Context, p *localcluster.Process, healthURL string) {
	GinkgoHelper()
	Eventually(ctx, func() error {
		if p.Exited() {
			return StopTrying(p.Name + " exited: " + fmt.Sprint(p.Err()) + " (log: " + p.LogFile + ")")
		}
		resp, err := http.Get(healthURL)
		if err != nil {
			return err
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("answered %d", resp.StatusCode)
		}
		return nil
	}).WithTimeout(time.Minute).WithPolling(250 * time.Millisecond).Should(Succeed())
}
