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
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
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
	"github.com/berth-io/berth/test/envsuite"
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
	cfg = envsuite.Start(&envtest.Environment{CRDDirectoryPaths: []string{envsuite.CRDs()}, ErrorIfCRDPathMissing: true})

	scheme, err := manager.NewScheme()
	Expect(err).NotTo(HaveOccurred())
	clientset, err = kubernetes.NewForConfig(cfg)
	Expect(err).NotTo(HaveOccurred())
	k8sClient, err = client.New(cfg, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())

	runCtx, cancel := context.WithCancel(klog.NewContext(context.Background(), envsuite.Logger()))
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
	return envsuite.Namespace(ctx, clientset, prefix)
}
