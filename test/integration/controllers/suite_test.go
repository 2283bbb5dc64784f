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

// Package controllers_test runs Berth's controllers with its scheduler, wired
// by internal/manager as `berth manager` wires them, in one
// controller-runtime manager against a real kube-apiserver (envtest), with
// the CRDs installed and no webhook.
package controllers_test

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
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/berth-io/berth/controllers"
	"github.com/berth-io/berth/internal/manager"
	"github.com/berth-io/berth/internal/registries"
	"github.com/berth-io/berth/scheduler"
)

var (
	cfg       *rest.Config
	clientset kubernetes.Interface
	k8sClient client.Client
	sched     *scheduler.Scheduler
)

func TestControllers(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Controllers suite")
}

var _ = BeforeSuite(func(ctx SpecContext) {
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		Fail("KUBEBUILDER_ASSETS is not set; run `make test-integration`, which builds the control plane into bin/k8s.")
	}
	if _, err := os.Stat(filepath.Join(assets, "kube-apiserver")); err != nil {
		Fail("no kube-apiserver in KUBEBUILDER_ASSETS=" + assets + ": run `make test-integration`.")
	}
	klog.SetLogger(GinkgoLogr)
	ctrl.SetLogger(GinkgoLogr)

	testEnv := &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join("..", "..", "..", "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
	}
	var err error
	cfg, err = testEnv.Start()
	Expect(err).NotTo(HaveOccurred(), "starting envtest")
	DeferCleanup(func() { Expect(testEnv.Stop()).To(Succeed()) })
	cfg.QPS, cfg.Burst = -1, -1

	scheme, err := manager.NewScheme()
	Expect(err).NotTo(HaveOccurred())
	clientset, err = kubernetes.NewForConfig(cfg)
	Expect(err).NotTo(HaveOccurred())
	k8sClient, err = client.New(cfg, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())

	runCtx, cancel := context.WithCancel(klog.NewContext(context.Background(), GinkgoLogr))
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	})
	Expect(err).NotTo(HaveOccurred())
	// Berth's one wiring, as `berth manager` runs it; shadow profiles'
	// figures reach their status every second here.
	berth, err := manager.Setup(runCtx, mgr, cfg, manager.SetupOptions{
		Registries:        registries.InTree(),
		ControllerOptions: []controllers.Option{controllers.WithShadowStatusInterval(time.Second)},
	})
	Expect(err).NotTo(HaveOccurred())
	sched = berth.Scheduler
	done := make(chan error, 1)
	go func() { done <- mgr.Start(runCtx) }()
	DeferCleanup(func() {
		cancel()
		Eventually(done).WithTimeout(30 * time.Second).Should(Receive(BeNil()))
	})
	Expect(sched.WaitForCacheSync(ctx)).To(BeTrue())
}, NodeTimeout(3*time.Minute))

// createNamespace creates a namespace for one spec and deletes it and its pods after.
func createNamespace(ctx context.Context, prefix string) string {
	GinkgoHelper()
	ns, err := clientset.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func(ctx SpecContext) {
		// envtest runs no namespace controller: delete the pods explicitly.
		Expect(clientset.CoreV1().Pods(ns.Name).DeleteCollection(ctx, *metav1.NewDeleteOptions(0), metav1.ListOptions{})).To(Succeed())
		Expect(clientset.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{})).To(Succeed())
	})
	return ns.Name
}
