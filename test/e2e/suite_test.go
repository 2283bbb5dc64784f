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

// Package e2e_test runs Berth end to end on a local cluster: etcd,
// kube-apiserver and kube-controller-manager (so Deployments make pods), kwok
// fake nodes that turn bound pods Running, and `berth manager` as real
// processes, started by the same package that `make run` uses.
//
// `make test-e2e` builds the binaries and runs it; BERTH_BIN_DIR names the
// directory holding berth, kwok, kwok-stages.yaml, metrics-server,
// kwok-usage.yaml and k8s/. metrics-server serves metrics.k8s.io from what
// the kwok nodes report, for the load-aware specs.
package e2e_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/berth-io/berth/internal/localcluster"
	"github.com/berth-io/berth/test/localsuite"
)

// repoRoot is the repository root as seen from this package's directory.
var repoRoot = filepath.Join("..", "..")

// nodes is how many kwok fake nodes the suite's cluster has.
const nodes = 20

var (
	binDir  string
	cluster *localcluster.Cluster
)

func TestE2E(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Berth e2e suite")
}

var _ = BeforeSuite(func(ctx SpecContext) {
	required := append([]string{"berth"}, localsuite.ClusterBinaries...)
	binDir = localsuite.BinDir(repoRoot, "test-e2e", append(required, localsuite.MetricsBinaries...)...)
	cluster = localsuite.StartCluster(ctx, binDir,
		localsuite.Logs{Dir: "e2e-logs", KeepEnv: "BERTH_E2E_KEEP_LOGS", Failures: failures},
		localcluster.WithNodes(nodes),
		localsuite.WithMetricsServer(binDir),
		localcluster.WithFeatureGates(workloadGates),
		localcluster.WithRuntimeConfig(workloadRuntime),
	)

	applier, err := localcluster.NewApplier(cluster.Config)
	Expect(err).NotTo(HaveOccurred())
	Expect(applier.ApplyFiles(ctx, filepath.Join(repoRoot, "config", "samples", "scheduling_v1alpha1_schedulingprofile.yaml"))).To(Succeed())
}, NodeTimeout(4*time.Minute))

// failures records failed specs, so that the cluster's logs are kept.
var failures = localsuite.TrackFailures()

// background is a context for cleanups that run after a spec's context ends.
func background() context.Context { return context.Background() }
