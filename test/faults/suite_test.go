// Package faults_test is Berth's fault-injection suite. It runs real
// `berth manager` processes on a local cluster (etcd, kube-apiserver,
// kube-controller-manager and kwok fake nodes, started by
// internal/localcluster as `make run` does), each talking to the apiserver
// through its own faultproxy, and injects faults by real means: signals to
// the processes, and failed, delayed, reset or lost API calls. Each
// scenario prints its figures ("FIGURE name value") and asserts them.
//
// `make test-faults` builds the binaries and runs every scenario; `make
// test-e2e`, which CI runs, runs those labelled "ci". BERTH_BIN_DIR names
// the directory holding berth, kwok, kwok-stages.yaml and k8s/.
package faults_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/berth-io/berth/internal/localcluster"
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
	binDir = os.Getenv("BERTH_BIN_DIR")
	if binDir == "" {
		binDir = filepath.Join(repoRoot, "bin")
	}
	var err error
	binDir, err = filepath.Abs(binDir)
	Expect(err).NotTo(HaveOccurred())
	for _, f := range []string{"berth", "kwok", "kwok-stages.yaml", "k8s/etcd", "k8s/kube-apiserver", "k8s/kube-controller-manager"} {
		if _, err := os.Stat(filepath.Join(binDir, f)); err != nil {
			Fail("missing " + filepath.Join(binDir, f) + ": run `make test-faults`, which builds it (hack/local-cluster.sh build)")
		}
	}
	logger := funcr.New(func(prefix, args string) { GinkgoWriter.Printf("%s %s\n", prefix, args) }, funcr.Options{})
	cluster, err = localcluster.Start(ctx,
		localcluster.WithK8sBinDir(filepath.Join(binDir, "k8s")),
		localcluster.WithKwok(filepath.Join(binDir, "kwok"), filepath.Join(binDir, "kwok-stages.yaml")),
		localcluster.WithNodes(nodes),
		localcluster.WithLogger(logger),
		localcluster.WithStartTimeout(3*time.Minute),
		localcluster.WithAudit(),
	)
	Expect(err).NotTo(HaveOccurred(), "starting the local cluster")
	DeferCleanup(func() {
		if anyFailed || CurrentSpecReport().Failed() || os.Getenv("BERTH_FAULTS_KEEP_LOGS") != "" {
			keepLogs()
		}
		cluster.Stop()
	})

	cfg := rest.CopyConfig(cluster.Config)
	cfg.QPS, cfg.Burst = 2000, 2000
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

// anyFailed records that a spec failed: the suite's cleanup, which keeps
// the logs, sees its own report only.
var anyFailed bool

var _ = AfterEach(func() {
	if CurrentSpecReport().Failed() {
		anyFailed = true
	}
})

// keepLogs copies the components' and managers' logs into bin/faults-logs
// so that a failed run can be diagnosed.
func keepLogs() {
	dst := filepath.Join(binDir, "faults-logs")
	if err := cluster.CopyLogs(dst); err != nil {
		GinkgoWriter.Printf("keeping the logs: %v\n", err)
		return
	}
	GinkgoWriter.Printf("component logs kept in %s\n", dst)
}

// background is a context for cleanups that run after a spec's context ends.
func background() context.Context { return context.Background() }

// figure prints one of a scenario's figures in a form the note and
// docs/reliability.md quote.
func figure(name string, value any) {
	GinkgoWriter.Printf("FIGURE %s %v\n", name, value)
	AddReportEntry(name, value)
}
