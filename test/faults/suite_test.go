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

// Package faults_test is Berth's fault-injection suite. It runs real
// `berth manager` processes on a local cluster (etcd, kube-apiserver,
// kube-controller-manager and kwok fake nodes, started by
// internal/localcluster as `make run` does), each talking to the apiserver
// through its own faultproxy, and injects faults by real means: signals to
// the processes, and failed, delayed, reset or lost API calls. Each
// scenario prints its figures ("FIGURE name value") and asserts them.
//
// `make test-faults` builds the binaries and runs every scenario; `make
// test-e2e`, which CI runs, runs those labelled "ci": the guarantees that
// must hold on every change (each pod bound once and none lost through
// failed binds, apiserver restarts and failover, the fence of a leader
// past its lease, no gang left bound below minCount). The others (profile
// churn, hostile input, a stuck extender, pods stuck in PreBind,
// rebalancing across failovers, the other binding faults) assert as much
// and measure the figures of docs/reliability.md; make test-faults runs them.
// BERTH_BIN_DIR names the directory holding berth, kwok, kwok-stages.yaml
// and k8s/.
package faults_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/berth-io/berth/internal/localcluster"
	"github.com/berth-io/berth/test/localsuite"
)

// repoRoot is the repository root as seen from this package's directory.
var repoRoot = filepath.Join("..", "..")

// nodes is how many kwok fake nodes the suite's cluster has: 50 nodes of
// 110 pods hold 5,500 pods.
const nodes = 50

// schedulerName is served by the suite's SchedulingProfile.
const schedulerName = "faults"

var (
	binDir  string
	cluster *localcluster.Cluster
	// client creates the specs' objects quickly: pods by the thousand.
	client *kubernetes.Clientset
)

func TestFaults(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Berth fault-injection suite")
}

var _ = BeforeSuite(func(ctx SpecContext) {
	binDir = localsuite.BinDir(repoRoot, "test-faults", append([]string{"berth"}, localsuite.ClusterBinaries...)...)
	cluster = localsuite.StartCluster(ctx, binDir,
		localsuite.Logs{Dir: "faults-logs", KeepEnv: "BERTH_FAULTS_KEEP_LOGS", Failures: failures},
		localcluster.WithNodes(nodes),
		localcluster.WithAudit(),
	)

	cfg := rest.CopyConfig(cluster.Config)
	cfg.QPS, cfg.Burst = 2000, 2000
	var err error
	client, err = kubernetes.NewForConfig(cfg)
	Expect(err).NotTo(HaveOccurred())

	applier, err := localcluster.NewApplier(cluster.Config)
	Expect(err).NotTo(HaveOccurred())
	profile := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "scheduling.berth.io/v1alpha1",
		"kind":       "SchedulingProfile",
		"metadata":   map[string]any{"name": schedulerName},
		"spec":       map[string]any{},
	}}
	Expect(applier.Apply(ctx, profile)).To(Succeed())
}, NodeTimeout(4*time.Minute))

// failures records failed specs, so that the cluster's logs are kept.
var failures = localsuite.TrackFailures()

// background is a context for cleanups that run after a spec's context ends.
func background() context.Context { return context.Background() }

// figure prints one of a scenario's figures in a form the note and
// docs/reliability.md quote.
func figure(name string, value any) {
	GinkgoWriter.Printf("FIGURE %s %v\n", name, value)
	AddReportEntry(name, value)
}
