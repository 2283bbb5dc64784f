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

// Package workloads_test plays the PodGroup scenarios of test/workloads
// against Berth in-process and compares what Berth writes with what
// kube-scheduler v1.37.1 wrote (the goldens), field by field: through
// Kubernetes' own PodGroups, on a real kube-apiserver with the feature
// gates users turn on for them, and through Berth's own PodGroups, on a
// kube-apiserver without those gates.
package workloads_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	ctrlcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/controllers"
	"github.com/berth-io/berth/internal/registries"
	"github.com/berth-io/berth/scheduler"
	"github.com/berth-io/berth/scheduler/workload"
	"github.com/berth-io/berth/test/envsuite"
	"github.com/berth-io/berth/test/workloads"
)

func TestWorkloads(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Workloads suite")
}

// The suite's specs run in parallel processes (make test-integration
// gives it several): each process starts, the first time one of its specs
// asks, an apiserver of each kind it needs, and plays its specs one after
// another on it, so no two scenarios share a cluster at once.
var (
	// nativeAPI has the workload gates on: Kubernetes' own PodGroups.
	nativeAPI = &apiserver{name: "native", configure: func(env *envtest.Environment) { envsuite.NativePodGroups(env, false) }}
	// plainAPI has no workload gates: Berth's own PodGroups, whose deletion
	// protection runs beside it.
	plainAPI = &apiserver{name: "plain", protection: true}
	// compositeAPI serves CompositePodGroups too.
	compositeAPI = &apiserver{name: "composite", configure: compositeGates}
)

// compositeGates turns on what CompositePodGroups need.
func compositeGates(env *envtest.Environment) { envsuite.NativePodGroups(env, true) }

var _ = BeforeSuite(func() {
	envsuite.CheckAssets()
	envsuite.Logging()
})

var _ = AfterSuite(func(ctx SpecContext) {
	for _, a := range []*apiserver{nativeAPI, plainAPI, compositeAPI} {
		a.stop()
	}
}, NodeTimeout(2*time.Minute))

// apiserver is a kube-apiserver of this process, started on first use.
type apiserver struct {
	name      string
	configure func(*envtest.Environment)
	// protection runs the controller that keeps Berth's PodGroups while
	// their pods need them (startProtection).
	protection bool

	env      *envtest.Environment
	cfg      *rest.Config
	c        kubernetes.Interface
	stopRest func()
}

// start returns the apiserver's config and client, starting it the first time.
func (a *apiserver) start(ctx context.Context) (*rest.Config, kubernetes.Interface) {
	GinkgoHelper()
	if a.env != nil {
		return a.cfg, a.c
	}
	env := &envtest.Environment{ControlPlaneStartTimeout: 2 * time.Minute, CRDDirectoryPaths: crdPaths, ErrorIfCRDPathMissing: true}
	if a.configure != nil {
		a.configure(env)
	}
	cfg, err := env.Start()
	Expect(err).NotTo(HaveOccurred(), "starting the %s apiserver", a.name)
	a.env = env
	cfg.QPS, cfg.Burst = -1, -1
	a.cfg = cfg
	a.c, err = kubernetes.NewForConfig(cfg)
	Expect(err).NotTo(HaveOccurred())
	if a.protection {
		a.stopRest = startProtection(ctx, cfg)
	}
	return a.cfg, a.c
}

// stop stops the apiserver if it was started.
func (a *apiserver) stop() {
	if a.env == nil {
		return
	}
	if a.stopRest != nil {
		a.stopRest()
	}
	Expect(a.env.Stop()).To(Succeed())
	a.env = nil
}

// crdPaths are Berth's CRDs, which every apiserver serves.
var crdPaths = []string{envsuite.CRDs()}

// notYet are the scenarios Berth does not match yet, each with the reason.
var notYet = map[string]string{}

// notThroughBerth are the scenarios that need a field Berth's own
// PodGroups do not have, each with the reason.
var notThroughBerth = map[string]string{}

var _ = Describe("PodGroup scenarios, compared with kube-scheduler v1.37.1", func() {
	// Scenarios() leaves out the composite ones (workloads.CompositeScenarios):
	// this apiserver does not serve CompositePodGroups.
	for _, s := range workloads.Scenarios() {
		It("plays "+s.Name+" as kube-scheduler does", func(ctx SpecContext) {
			if why, ok := notYet[s.Name]; ok {
				Skip("not yet: " + why)
			}
			_, c := nativeAPI.start(ctx)
			startBerth(ctx, c, nil)
			DeferCleanup(cleanCluster, c)
			playAndCompare(ctx, s, c)
		}, SpecTimeout(4*time.Minute))
	}
})

var _ = Describe("The same scenarios through Berth's own PodGroups, on an apiserver without the workload gates", func() {
	for _, s := range workloads.Scenarios() {
		It("plays "+s.Name+" as kube-scheduler does", func(ctx SpecContext) {
			if why, ok := notYet[s.Name]; ok {
				Skip("not yet: " + why)
			}
			if why, ok := notThroughBerth[s.Name]; ok {
				Skip("not through Berth's PodGroups: " + why)
			}
			c, berth, podGroups := berthDoor(ctx)
			startBerth(ctx, c, podGroups)
			DeferCleanup(cleanCluster, c)
			playAndCompare(ctx, s, c, workloads.WithBerthPodGroups(berth))
		}, SpecTimeout(4*time.Minute))
	}
})

// berthDoor returns the clients of the plain apiserver: the clientset,
// a client of Berth's PodGroups for the scenario's player, and the REST
// client the scheduler watches them through.
func berthDoor(ctx SpecContext) (kubernetes.Interface, client.Client, rest.Interface) {
	GinkgoHelper()
	cfg, c := plainAPI.start(ctx)
	served, err := workload.Served(c.Discovery())
	Expect(err).NotTo(HaveOccurred())
	Expect(served).To(BeFalse(), "this apiserver must not serve scheduling.k8s.io/v1beta1 PodGroups")
	scheme := runtime.NewScheme()
	Expect(v1alpha1.AddToScheme(scheme)).To(Succeed())
	berth, err := client.New(cfg, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
	podGroups, err := workload.NewBerthClient(cfg)
	Expect(err).NotTo(HaveOccurred())
	return c, berth, podGroups
}

// playAndCompare plays s on the cluster c reaches and expects what the
// golden of s recorded.
func playAndCompare(ctx context.Context, s workloads.Scenario, c kubernetes.Interface, opts ...workloads.PlayOption) {
	GinkgoHelper()
	want, err := workloads.Golden(s.Name)
	Expect(err).NotTo(HaveOccurred())
	got, err := workloads.Play(ctx, c, s, append([]workloads.PlayOption{workloads.WithLogger(envsuite.Logger())}, opts...)...)
	Expect(err).NotTo(HaveOccurred())
	var diffs, noted []string
	for _, d := range workloads.Compare(want, got) {
		if outsideComparison(d) {
			noted = append(noted, d)
			continue
		}
		diffs = append(diffs, d)
	}
	if len(noted) > 0 {
		AddReportEntry("differences in events and transient nominations (not compared)", strings.Join(noted, "\n"))
	}
	if h := conditionHistories(got); len(diffs) > 0 && h != "" {
		// A difference names one value of a history; the whole histories
		// show where Berth's groups went another way.
		AddReportEntry("condition histories of the groups under Berth", h)
	}
	Expect(diffs).To(BeEmpty(), "differences from kube-scheduler v1.37.1:\n%s", strings.Join(diffs, "\n"))
}

// conditionHistories lists, checkpoint by checkpoint, the conditions each
// PodGroup and CompositePodGroup of o went through, in order, with the
// paths differences name them by.
func conditionHistories(o workloads.Observation) string {
	var b strings.Builder
	for _, cp := range o.Checkpoints {
		for _, g := range cp.PodGroups {
			for i, c := range g.ConditionHistory {
				fmt.Fprintf(&b, "%s/podgroup/%s/history/%d: %s %s %s: %s\n", cp.Name, g.Name, i, c.Type, c.Status, c.Reason, c.Message)
			}
		}
		for _, g := range cp.CompositePodGroups {
			for i, c := range g.ConditionHistory {
				fmt.Fprintf(&b, "%s/compositepodgroup/%s/history/%d: %s %s %s: %s\n", cp.Name, g.Name, i, c.Type, c.Status, c.Reason, c.Message)
			}
		}
	}
	return b.String()
}

// outsideComparison reports whether a difference is one this suite does
// not hold Berth to: events (Berth's Scheduled event names the profile and
// generation that placed the pod, on purpose, and how many retries a pod
// gets while a new node is still tainted not-ready depends on timing) and
// nominations seen only while settling (a gang member waiting at Permit for
// a few milliseconds). Placement, pod conditions and PodGroup conditions
// are compared in full.
func outsideComparison(diff string) bool {
	return strings.Contains(diff, "/event/") || strings.Contains(diff, "/everNominated")
}

// startBerth runs Berth's scheduler with the default profile on the
// cluster c reaches until the spec ends; with podGroups it also serves
// Berth's own PodGroups. extra are further scheduler options.
func startBerth(ctx context.Context, c kubernetes.Interface, podGroups rest.Interface, extra ...scheduler.Option) {
	GinkgoHelper()
	DeferCleanup(startBerthUntil(ctx, c, podGroups, extra...))
}

// startBerthUntil runs Berth's scheduler as startBerth does until the
// function it returns is called.
func startBerthUntil(ctx context.Context, c kubernetes.Interface, podGroups rest.Interface, extra ...scheduler.Option) (stop func()) {
	GinkgoHelper()
	return startBerthWith(ctx, c, podGroups, &v1alpha1.SchedulingProfileSpec{}, extra...)
}

// startBerthWith runs Berth's scheduler as startBerthUntil does, with
// spec as the default scheduler's profile.
func startBerthWith(ctx context.Context, c kubernetes.Interface, podGroups rest.Interface, spec *v1alpha1.SchedulingProfileSpec, extra ...scheduler.Option) (stop func()) {
	GinkgoHelper()
	runCtx, cancel := context.WithCancel(klog.NewContext(context.WithoutCancel(ctx), envsuite.Logger()))
	opts := append([]scheduler.Option{scheduler.WithRegistry(registries.InTree().Plugins)}, extra...)
	if podGroups != nil {
		opts = append(opts, scheduler.WithPodGroupClient(podGroups))
	}
	s, err := scheduler.New(runCtx, c, opts...)
	Expect(err).NotTo(HaveOccurred())
	Expect(s.SetProfile(runCtx, corev1.DefaultSchedulerName, corev1.DefaultSchedulerName, 1, spec)).To(Succeed())
	done := make(chan error, 1)
	go func() { done <- s.Start(runCtx) }()
	stop = func() {
		cancel()
		Eventually(done).WithTimeout(30 * time.Second).Should(Receive(BeNil()))
	}
	if !s.WaitForCacheSync(ctx) {
		stop()
		Fail("Berth's caches did not sync")
	}
	return stop
}

// startProtection runs the controller of Berth's manager that keeps a
// Berth PodGroup being deleted while its pods need it, as kube-apiserver
// and kube-controller-manager keep native ones (the group-deleted
// scenario), until the function it returns is called. Its cache holds the
// member pods only, as the manager's does.
func startProtection(ctx context.Context, cfg *rest.Config) (stop func()) {
	GinkgoHelper()
	scheme := runtime.NewScheme()
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	Expect(v1alpha1.AddToScheme(scheme)).To(Succeed())
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache:                  ctrlcache.Options{ByObject: map[client.Object]ctrlcache.ByObject{&corev1.Pod{}: {Label: controllers.MemberPodSelector()}}},
	})
	Expect(err).NotTo(HaveOccurred())
	Expect(controllers.SetupPodGroupProtection(mgr, controllers.WithSkipNameValidation())).To(Succeed())
	runCtx, cancel := context.WithCancel(klog.NewContext(context.WithoutCancel(ctx), envsuite.Logger()))
	done := make(chan error, 1)
	go func() { done <- mgr.Start(runCtx) }()
	Expect(mgr.GetCache().WaitForCacheSync(ctx)).To(BeTrue())
	return func() {
		cancel()
		Eventually(done).WithTimeout(30 * time.Second).Should(Receive(BeNil()))
	}
}

// cleanCluster deletes what a scenario created outside its namespace (nodes
// and priority classes) and the pods in its namespace, so the next
// scenario starts on an empty cluster. Berth's PodGroups stay in their
// namespaces, which no later scenario reuses.
func cleanCluster(ctx SpecContext, clientset kubernetes.Interface) {
	served, err := workload.Served(clientset.Discovery())
	Expect(err).NotTo(HaveOccurred())
	composite := false
	if served {
		composite, err = workload.CompositeServed(clientset.Discovery())
		Expect(err).NotTo(HaveOccurred())
	}
	nss, err := clientset.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	Expect(err).NotTo(HaveOccurred())
	for _, ns := range nss.Items {
		if strings.HasPrefix(ns.Name, "kube-") || ns.Name == "default" {
			continue
		}
		Expect(clientset.CoreV1().Pods(ns.Name).DeleteCollection(ctx, *metav1.NewDeleteOptions(0), metav1.ListOptions{})).To(Succeed())
		if served {
			Expect(clientset.SchedulingV1beta1().PodGroups(ns.Name).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})).To(Succeed())
		}
		if composite {
			Expect(clientset.SchedulingV1alpha3().CompositePodGroups(ns.Name).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})).To(Succeed())
		}
		Expect(clientset.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{})).To(Succeed())
	}
	Expect(clientset.CoreV1().Nodes().DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})).To(Succeed())
	pcs, err := clientset.SchedulingV1().PriorityClasses().List(ctx, metav1.ListOptions{})
	Expect(err).NotTo(HaveOccurred())
	for _, pc := range pcs.Items {
		if !isSystemPriorityClass(pc) {
			Expect(clientset.SchedulingV1().PriorityClasses().Delete(ctx, pc.Name, metav1.DeleteOptions{})).To(Succeed())
		}
	}
}

func isSystemPriorityClass(pc schedulingv1.PriorityClass) bool {
	return strings.HasPrefix(pc.Name, "system-")
}
