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

// Package envsuite is what Berth's ginkgo suites against envtest's
// kube-apiserver (test/integration) share: finding the control plane,
// sending the logs to the GinkgoWriter, Berth's CRDs, the apiserver flags
// that serve Kubernetes' own PodGroups, starting and stopping the
// apiserver, and a namespace per spec. test/localsuite is its counterpart
// for the suites on a local cluster.
package envsuite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// RepoRoot is the root of Berth's checkout: the nearest directory above the
// test's working directory (its package's directory, as go test and ginkgo
// run it) that holds go.mod. It does not read the source file's path, which
// -trimpath reduces to the module path.
func RepoRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		Fail("cannot tell the working directory: " + err.Error())
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			Fail("no go.mod above the working directory: run the suites from Berth's checkout")
		}
		dir = parent
	}
}

// CRDs is the directory of Berth's CRDs.
func CRDs() string { return filepath.Join(RepoRoot(), "config", "crd", "bases") }

// CheckAssets fails the suite, naming the make target that builds them,
// when KUBEBUILDER_ASSETS holds no kube-apiserver and etcd.
func CheckAssets() {
	GinkgoHelper()
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		Fail("KUBEBUILDER_ASSETS is not set, so there is no kube-apiserver and etcd to test against: run `make test-integration`, which builds them into bin/k8s and points KUBEBUILDER_ASSETS there.")
	}
	for _, binary := range []string{"kube-apiserver", "etcd"} {
		if _, err := os.Stat(filepath.Join(assets, binary)); err != nil {
			Fail("KUBEBUILDER_ASSETS=" + assets + " has no " + binary + " (" + err.Error() + "): run `make test-integration`.")
		}
	}
}

// Logging sends klog's and controller-runtime's logs to the GinkgoWriter,
// which shows them for failed specs only; BERTH_TEST_LOG_V=N shows the
// logs up to verbosity N.
func Logging() {
	logger := Logger()
	klog.SetLogger(logger)
	ctrllog.SetLogger(logger)
}

// Logger returns the suites' logger: GinkgoLogr, or with BERTH_TEST_LOG_V=N
// a logger to the GinkgoWriter that keeps the logs up to verbosity N.
func Logger() logr.Logger {
	v, err := strconv.Atoi(os.Getenv("BERTH_TEST_LOG_V"))
	if err != nil || v <= 0 {
		return GinkgoLogr
	}
	return funcr.New(func(prefix, args string) {
		fmt.Fprintln(GinkgoWriter, prefix, args)
	}, funcr.Options{Verbosity: v, LogTimestamp: true})
}

// NativePodGroups turns on the feature gates and API versions users turn
// on for Kubernetes' own PodGroups (scheduling.k8s.io/v1beta1) and, with
// composite, CompositePodGroups (v1alpha3).
func NativePodGroups(env *envtest.Environment, composite bool) {
	gates, versions := "GenericWorkload=true,TopologyAwareWorkloadScheduling=true", "scheduling.k8s.io/v1beta1=true"
	if composite {
		gates += ",CompositePodGroup=true"
		versions += ",scheduling.k8s.io/v1alpha3=true"
	}
	env.ControlPlane.GetAPIServer().Configure().
		Append("feature-gates", gates).
		Append("runtime-config", versions)
}

// Start checks the control plane, sends the logs to the GinkgoWriter,
// starts env, stops it when the suite ends, and returns its config with no
// client-side rate limit: Berth writes as fast as the apiserver lets it.
func Start(env *envtest.Environment) *rest.Config {
	GinkgoHelper()
	CheckAssets()
	Logging()
	cfg, err := env.Start()
	Expect(err).NotTo(HaveOccurred(), "starting envtest")
	DeferCleanup(func() { Expect(env.Stop()).To(Succeed()) })
	cfg.QPS, cfg.Burst = -1, -1
	return cfg
}

// Namespace creates a namespace for one spec, with labels given as
// key/value pairs, and deletes its pods and itself when the spec ends:
// envtest runs no namespace controller, so the pods are deleted
// explicitly, at once, and cannot land on the next spec's nodes.
func Namespace(ctx context.Context, cs kubernetes.Interface, prefix string, labelPairs ...string) string {
	GinkgoHelper()
	labels := map[string]string{}
	for i := 0; i+1 < len(labelPairs); i += 2 {
		labels[labelPairs[i]] = labelPairs[i+1]
	}
	ns, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-", Labels: labels}}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func(ctx SpecContext) {
		Expect(cs.CoreV1().Pods(ns.Name).DeleteCollection(ctx, *metav1.NewDeleteOptions(0), metav1.ListOptions{})).To(Succeed())
		Expect(cs.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{})).To(Succeed())
	})
	return ns.Name
}
