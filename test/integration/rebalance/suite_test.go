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

// Package rebalance_test runs the rebalancer and the RebalancePolicy
// controller with Berth's scheduler, wired by internal/manager as `berth
// manager` wires them, against a real kube-apiserver (envtest), with the
// CRDs installed.
package rebalance_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	corelisters "k8s.io/client-go/listers/core/v1"
	resourcelisters "k8s.io/client-go/listers/resource/v1"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/internal/manager"
	"github.com/berth-io/berth/internal/registries"
	"github.com/berth-io/berth/scheduler/rebalance"
	"github.com/berth-io/berth/test/envsuite"
)

var (
	clientset kubernetes.Interface
	k8sClient client.Client
	podLister corelisters.PodLister
	// nodeLister reads the node informer the rebalancer reads.
	nodeLister corelisters.NodeLister
	// claimLister reads the ResourceClaim informer nodeFit's DynamicResources reads.
	claimLister resourcelisters.ResourceClaimLister
	// evictionCalls counts the eviction requests the rebalancer sent.
	evictionCalls atomic.Int64
	// gangs is the scheduler's view of gangs, which the rebalancer reads.
	gangs rebalance.Gangs
)

func TestRebalance(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Rebalance suite")
}

// countEvictions counts POSTs to the pods/eviction subresource.
type countEvictions struct{ next http.RoundTripper }

func (c countEvictions) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/eviction") {
		evictionCalls.Add(1)
	}
	return c.next.RoundTrip(req)
}

var _ = BeforeSuite(func(ctx SpecContext) {
	cfg := envsuite.Start(&envtest.Environment{CRDDirectoryPaths: []string{envsuite.CRDs()}, ErrorIfCRDPathMissing: true})

	scheme := k8sruntime.NewScheme()
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	Expect(v1alpha1.AddToScheme(scheme)).To(Succeed())
	var err error
	clientset, err = kubernetes.NewForConfig(cfg)
	Expect(err).NotTo(HaveOccurred())
	k8sClient, err = client.New(cfg, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())

	// Berth's one wiring, as `berth manager` runs it, on a config that
	// counts the eviction calls.
	counted := rest.CopyConfig(cfg)
	counted.Wrap(func(rt http.RoundTripper) http.RoundTripper { return countEvictions{next: rt} })
	runCtx, cancel := context.WithCancel(klog.NewContext(context.Background(), envsuite.Logger()))
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	})
	Expect(err).NotTo(HaveOccurred())
	berth, err := manager.Setup(runCtx, mgr, counted, manager.SetupOptions{Registries: registries.InTree()})
	Expect(err).NotTo(HaveOccurred())
	sched := berth.Scheduler
	gangs = sched
	// The rebalancer reads the scheduler's informers; the specs wait on
	// them before they create a policy, so that its first run sees their pods.
	podLister = sched.InformerFactory().Core().V1().Pods().Lister()
	nodeLister = sched.InformerFactory().Core().V1().Nodes().Lister()
	claimLister = sched.InformerFactory().Resource().V1().ResourceClaims().Lister()

	done := make(chan error, 1)
	go func() { done <- mgr.Start(runCtx) }()
	DeferCleanup(func() {
		cancel()
		Eventually(done).WithTimeout(30 * time.Second).Should(Receive(BeNil()))
	})
	Expect(sched.WaitForCacheSync(ctx)).To(BeTrue())
}, NodeTimeout(3*time.Minute))
