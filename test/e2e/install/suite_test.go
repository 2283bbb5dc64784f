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

// Package install_test installs Berth as its users do, on a local cluster,
// and runs what the install created: `helm install` of charts/berth and
// `kubectl apply -k config/default` against a real kube-apiserver, then the
// manager Deployment's pods as a kubelet would run them. Each pod's process
// is the image's ENTRYPOINT (read from the Dockerfile) followed by the
// container's args, with the container's environment, volumes, user and
// read-only root, in its own network namespace, and with a token of the
// installed ServiceAccount; so the chart's and kustomize's flags, RBAC,
// probes, Services and webhook configuration are what is tested. The binary
// is built from exactly what the Dockerfile copies, with its flags.
//
// Local pods need root (namespaces and mounts). `make test-e2e` runs this
// suite; BERTH_BIN_DIR names the directory with the built tools.
package install_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	"k8s.io/client-go/dynamic"

	"github.com/berth-io/berth/internal/localcluster"
	"github.com/berth-io/berth/test/imagebuild"
	"github.com/berth-io/berth/test/localsuite"
)

// repoRoot is the repository root as seen from this package's directory.
var repoRoot = filepath.Join("..", "..", "..")

// imageRepository is the repository of Berth's image in the chart and in kustomize.
const imageRepository = "ghcr.io/berth-io/berth"

var (
	binDir  string
	cluster *localcluster.Cluster
	images  map[string]localcluster.PodImage
	certs   *certManager
	dyn     dynamic.Interface
)

func TestInstall(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Berth install suite")
}

var _ = BeforeSuite(func(ctx SpecContext) {
	if os.Geteuid() != 0 {
		Fail("the install suite runs the manager's pods in their own namespaces, which needs root")
	}
	binDir = localsuite.BinDir(repoRoot, "test-e2e", append([]string{"localcluster", "helm", "k8s/kubectl"}, localsuite.ClusterBinaries...)...)

	By("building the image's binary from the Dockerfile's context")
	root, err := filepath.Abs(repoRoot)
	Expect(err).NotTo(HaveOccurred())
	df, err := imagebuild.Parse(filepath.Join(root, "Dockerfile"))
	Expect(err).NotTo(HaveOccurred())
	binary := filepath.Join(binDir, "image", "berth")
	Expect(df.BuildBinary(ctx, root, binary)).To(Succeed())
	entrypoint := df.Entrypoint()
	Expect(entrypoint).NotTo(BeEmpty(), "the Dockerfile has no ENTRYPOINT")
	images = map[string]localcluster.PodImage{imageRepository: {
		Entrypoint: entrypoint,
		User:       df.User(),
		Files:      map[string]string{df.BinaryPath(): binary},
	}}

	By("starting a local cluster without Berth's CRDs")
	cluster = localsuite.StartCluster(ctx, binDir,
		localsuite.Logs{Dir: "e2e-install-logs", KeepEnv: "BERTH_E2E_KEEP_LOGS", Failures: failures},
		localcluster.WithNodes(5),
		localcluster.WithoutCRDs(),
		localcluster.WithPodNetwork(filepath.Join(binDir, "localcluster")),
	)

	ext, err := apiextensionsclient.NewForConfig(cluster.Config)
	Expect(err).NotTo(HaveOccurred())
	dyn, err = dynamic.NewForConfig(cluster.Config)
	Expect(err).NotTo(HaveOccurred())
	certs, err = installCertManager(ctx, cluster.Clientset, ext, dyn)
	Expect(err).NotTo(HaveOccurred())
	certCtx, stopCerts := context.WithCancel(context.Background())
	go certs.run(certCtx)
	DeferCleanup(stopCerts)
}, NodeTimeout(8*time.Minute))

// failures records failed specs, so that the cluster's logs are kept.
var failures = localsuite.TrackFailures()

// run runs a tool from binDir against the local cluster and returns its
// combined output; it fails the spec when the tool fails.
func run(ctx context.Context, tool string, args ...string) string {
	GinkgoHelper()
	out, err := tryRun(ctx, tool, args...)
	Expect(err).NotTo(HaveOccurred(), "%s %s:\n%s", tool, strings.Join(args, " "), out)
	return out
}

// tryRun is run without the failure.
func tryRun(ctx context.Context, tool string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, tool), args...)
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "KUBECONFIG="+cluster.Kubeconfig, "HELM_CACHE_HOME="+filepath.Join(cluster.Dir, "helm"),
		"HELM_CONFIG_HOME="+filepath.Join(cluster.Dir, "helm"), "HELM_DATA_HOME="+filepath.Join(cluster.Dir, "helm"))
	out, err := cmd.CombinedOutput()
	GinkgoWriter.Printf("$ %s %s\n%s", tool, strings.Join(args, " "), out)
	return string(out), err
}

// background is a context for cleanups that run after a spec's context ends.
func background() context.Context { return context.Background() }
