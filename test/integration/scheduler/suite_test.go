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

// Package scheduler_test runs Berth's scheduler in-process against a real
// kube-apiserver (envtest) and checks where pods land.
package scheduler_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

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

var (
	testEnv   *envtest.Environment
	cfg       *rest.Config
	clientset kubernetes.Interface
)

func TestScheduler(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Scheduler suite")
}

var _ = BeforeSuite(func(ctx SpecContext) {
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		Fail("KUBEBUILDER_ASSETS is not set; run `make test-integration`, which builds the control plane into bin/k8s.")
	}
	if _, err := os.Stat(filepath.Join(assets, "kube-apiserver")); err != nil {
		Fail("no kube-apiserver in KUBEBUILDER_ASSETS=" + assets + ": run `make test-integration`.")
	}
	// Logs go to the GinkgoWriter, which shows them for failed specs only.
	klog.SetLogger(GinkgoLogr)
	ctrllog.SetLogger(GinkgoLogr)
	// PodGroups are a Berth CRD; gang scheduling needs them served. The
	// apiserver also serves Kubernetes' own PodGroups, with the feature
	// gates users turn on for them, so both front doors run here.
	testEnv = &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join("..", "..", "..", "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
	}
	testEnv.ControlPlane.GetAPIServer().Configure().
		Append("feature-gates", "GenericWorkload=true,TopologyAwareWorkloadScheduling=true").
		Append("runtime-config", "scheduling.k8s.io/v1beta1=true")
	var err error
	cfg, err = testEnv.Start()
	Expect(err).NotTo(HaveOccurred(), "starting envtest")
	DeferCleanup(func() { Expect(testEnv.Stop()).To(Succeed()) })

	// The scheduler binds as fast as the apiserver lets it; no client-side limit.
	cfg.QPS, cfg.Burst = -1, -1
	clientset, err = kubernetes.NewForConfig(cfg)
	Expect(err).NotTo(HaveOccurred())
}, NodeTimeout(3*time.Minute))

// createNamespace creates a namespace for one spec and deletes it after.
func createNamespace(ctx context.Context, prefix string) string {
	GinkgoHelper()
	return createLabelledNamespace(ctx, prefix)
}

// createLabelledNamespace is createNamespace with labels given as key/value pairs.
func createLabelledNamespace(ctx context.Context, prefix string, labelPairs ...string) string {
	GinkgoHelper()
	nsLabels := map[string]string{}
	for i := 0; i+1 < len(labelPairs); i += 2 {
		nsLabels[labelPairs[i]] = labelPairs[i+1]
	}
	ns, err := clientset.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-", Labels: nsLabels}}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func(ctx SpecContext) {
		// envtest runs no namespace controller: delete the pods explicitly,
		// at once, so they cannot land on the next spec's nodes.
		Expect(clientset.CoreV1().Pods(ns.Name).DeleteCollection(ctx, *metav1.NewDeleteOptions(0), metav1.ListOptions{})).To(Succeed())
		Expect(clientset.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{})).To(Succeed())
	})
	return ns.Name
}
