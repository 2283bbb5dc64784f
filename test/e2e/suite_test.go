// Package e2e_test runs Berth end to end on a local cluster: etcd,
// kube-apiserver and kube-controller-manager (so Deployments make pods), kwok
// fake nodes that turn bound pods Running, and `berth manager` as real
// processes, started by the same package that `make run` uses.
//
// `make test-e2e` builds the binaries and runs it; BERTH_BIN_DIR names the
// directory holding berth, kwok, kwok-stages.yaml and k8s/.
package e2e_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/berth-io/berth/internal/localcluster"
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
	binDir = os.Getenv("BERTH_BIN_DIR")
	if binDir == "" {
		binDir = filepath.Join(repoRoot, "bin")
	}
	var err error
	binDir, err = filepath.Abs(binDir)
	Expect(err).NotTo(HaveOccurred())
	for _, f := range []string{"berth", "kwok", "kwok-stages.yaml", "k8s/etcd", "k8s/kube-apiserver", "k8s/kube-controller-manager"} {
		if _, err := os.Stat(filepath.Join(binDir, f)); err != nil {
			Fail("missing " + filepath.Join(binDir, f) + ": run `make test-e2e`, which builds it (hack/local-cluster.sh build)")
		}
	}
	logger := funcr.New(func(prefix, args string) { GinkgoWriter.Printf("%s %s\n", prefix, args) }, funcr.Options{})
	cluster, err = localcluster.Start(ctx,
		localcluster.WithK8sBinDir(filepath.Join(binDir, "k8s")),
		localcluster.WithKwok(filepath.Join(binDir, "kwok"), filepath.Join(binDir, "kwok-stages.yaml")),
		localcluster.WithNodes(nodes),
		localcluster.WithLogger(logger),
		localcluster.WithStartTimeout(3*time.Minute),
	)
	Expect(err).NotTo(HaveOccurred(), "starting the local cluster")
	DeferCleanup(func() {
		if anyFailed || CurrentSpecReport().Failed() || os.Getenv("BERTH_E2E_KEEP_LOGS") != "" {
			keepLogs()
		}
		cluster.Stop()
	})

	applier, err := localcluster.NewApplier(cluster.Config)
	Expect(err).NotTo(HaveOccurred())
	Expect(applier.ApplyFiles(ctx, filepath.Join(repoRoot, "config", "samples", "scheduling_v1alpha1_schedulingprofile.yaml"))).To(Succeed())
}, NodeTimeout(4*time.Minute))

// anyFailed records that a spec failed: the suite's cleanup, which keeps
// the logs, sees its own report only, which fails with BeforeSuite alone.
var anyFailed bool

var _ = AfterEach(func() {
	if CurrentSpecReport().Failed() {
		anyFailed = true
	}
})

// keepLogs copies the components' and pods' logs out of the temporary run
// directory into bin/e2e-logs so that a failed CI run can be diagnosed.
func keepLogs() {
	dst := filepath.Join(binDir, "e2e-logs")
	if err := cluster.CopyLogs(dst); err != nil {
		GinkgoWriter.Printf("keeping the logs: %v\n", err)
		return
	}
	GinkgoWriter.Printf("component logs kept in %s\n", dst)
}

// background is a context for cleanups that run after a spec's context ends.
func background() context.Context { return context.Background() }
