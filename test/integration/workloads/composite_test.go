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

package workloads_test

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/berth-io/berth/scheduler"
	"github.com/berth-io/berth/scheduler/workload"
	"github.com/berth-io/berth/test/workloads"
)

// These specs hold Berth to what kube-scheduler v1.37.1 does with its
// CompositePodGroup gate on (docs/design/composite-podgroup.md, section 7,
// scenarios 1-5 and 14): the members of a hierarchy without a root, or
// short of its quorum, are not tried and nothing is written to them or
// their PodGroups; a basic CompositePodGroup keeps the children that fit;
// a gang one places minGroupCount of them together or none. They share an
// apiserver of their own and its four nodes, so they run in order, in one
// process. Then every CompositePodGroup scenario recorded from
// kube-scheduler (goldens test/workloads/testdata/cpg-*.json) is played
// and compared field by field.
var _ = Describe("CompositePodGroups, on an apiserver with the CompositePodGroup gate", Ordered, func() {
	var c kubernetes.Interface
	BeforeAll(func(ctx SpecContext) {
		env := &envtest.Environment{ControlPlaneStartTimeout: 2 * time.Minute, CRDDirectoryPaths: crdPaths, ErrorIfCRDPathMissing: true}
		compositeGates(env)
		cfg, err := env.Start()
		Expect(err).NotTo(HaveOccurred(), "starting the envtest with CompositePodGroups")
		DeferCleanup(func() { Expect(env.Stop()).To(Succeed()) })
		cfg.QPS, cfg.Burst = -1, -1
		c, err = kubernetes.NewForConfig(cfg)
		Expect(err).NotTo(HaveOccurred())
		served, err := workload.CompositeServed(c.Discovery())
		Expect(err).NotTo(HaveOccurred())
		Expect(served).To(BeTrue(), "this apiserver must serve scheduling.k8s.io/v1alpha3 CompositePodGroups")
		for i := range 4 {
			node := workloads.Node{Name: fmt.Sprintf("node-%d", i), CPU: "4", Memory: "8Gi"}.Object()
			Expect(workloads.CreateNode(ctx, c, node)).To(Succeed())
		}
	}, NodeTimeout(3*time.Minute))

	// composite starts Berth following parents, in a fresh namespace.
	composite := func(ctx SpecContext, follow bool) *hierarchyRig {
		GinkgoHelper()
		startBerth(ctx, c, nil, scheduler.WithCompositePodGroups(follow))
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "composite-"}}
		ns, err := c.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func(ctx SpecContext) {
			Expect(c.CoreV1().Pods(ns.Name).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}, metav1.ListOptions{})).To(Succeed())
		})
		return &hierarchyRig{c: c, ns: ns.Name}
	}

	It("holds a PodGroup's members, writing nothing, until its parent exists", func(ctx SpecContext) {
		r := composite(ctx, true)
		r.podGroup(ctx, "a", 2, "root")
		r.pods(ctx, "a", "a-1", "a-2")
		r.untouched(ctx, []string{"a-1", "a-2"}, []string{"a"})
		r.compositeGroup(ctx, "root", 0, "")
		r.bound(ctx, "a-1", "a-2")
		r.scheduled(ctx, "a")
	}, SpecTimeout(2*time.Minute))

	It("holds the members of a hierarchy whose parents form a cycle", func(ctx SpecContext) {
		r := composite(ctx, true)
		r.compositeGroup(ctx, "x", 0, "y")
		r.compositeGroup(ctx, "y", 0, "x")
		r.podGroup(ctx, "a", 0, "x")
		r.pods(ctx, "a", "a-1")
		r.untouched(ctx, []string{"a-1"}, []string{"a"})
	}, SpecTimeout(2*time.Minute))

	It("holds a gang of PodGroups until minGroupCount of them have their pods", func(ctx SpecContext) {
		r := composite(ctx, true)
		r.compositeGroup(ctx, "root", 2, "")
		r.podGroup(ctx, "a", 2, "root")
		r.podGroup(ctx, "b", 2, "root")
		r.pods(ctx, "a", "a-1", "a-2")
		r.pods(ctx, "b", "b-1")
		r.untouched(ctx, []string{"a-1", "a-2", "b-1"}, []string{"a", "b"})
		r.pods(ctx, "b", "b-2")
		r.bound(ctx, "a-1", "a-2", "b-1", "b-2")
		r.scheduled(ctx, "a", "b")
	}, SpecTimeout(2*time.Minute))

	It("keeps the PodGroup of a basic CompositePodGroup that fits when another does not", func(ctx SpecContext) {
		r := composite(ctx, true)
		r.compositeGroup(ctx, "root", 0, "")
		r.podGroup(ctx, "a", 2, "root")
		r.podGroup(ctx, "b", 3, "root")
		// Each node holds one of these; a takes two of the four.
		r.bigPods(ctx, "a", "a-1", "a-2")
		r.bigPods(ctx, "b", "b-1", "b-2", "b-3")
		r.bound(ctx, "a-1", "a-2")
		r.scheduled(ctx, "a")
		r.unschedulable(ctx, "b", "pod group is unschedulable, 0/1 placements are available, first placement status: minCount (3) cannot be satisfied: 2 scheduled, 0 remaining")
		r.unbound(ctx, "b-1", "b-2", "b-3")
	}, SpecTimeout(2*time.Minute))

	It("places a gang of PodGroups all together or not at all", func(ctx SpecContext) {
		r := composite(ctx, true)
		r.compositeGroup(ctx, "root", 2, "")
		r.podGroup(ctx, "a", 2, "root")
		r.podGroup(ctx, "b", 3, "root")
		r.bigPods(ctx, "a", "a-1", "a-2")
		r.bigPods(ctx, "b", "b-1", "b-2", "b-3")
		r.unschedulable(ctx, "b", "pod group is unschedulable, 0/1 placements are available, first placement status: minCount (3) cannot be satisfied: 2 scheduled, 0 remaining")
		r.unschedulable(ctx, "a", "pod group is unschedulable, 0/1 placements are available, first placement status: minCount (2) cannot be satisfied: 1 scheduled, 0 remaining")
		r.unbound(ctx, "a-1", "a-2", "b-1", "b-2", "b-3")
		// One more node makes room for the whole hierarchy.
		node := workloads.Node{Name: "node-extra", CPU: "4", Memory: "8Gi"}.Object()
		Expect(workloads.CreateNode(ctx, c, node)).To(Succeed())
		DeferCleanup(func(ctx SpecContext) {
			Expect(c.CoreV1().Nodes().Delete(ctx, node.Name, metav1.DeleteOptions{})).To(Succeed())
		})
		r.bound(ctx, "a-1", "a-2", "b-1", "b-2", "b-3")
		r.scheduled(ctx, "a", "b")
	}, SpecTimeout(2*time.Minute))

	It("ignores parents when it does not follow them, as kube-scheduler with its gate off", func(ctx SpecContext) {
		r := composite(ctx, false)
		r.podGroup(ctx, "a", 2, "nosuch")
		r.pods(ctx, "a", "a-1", "a-2")
		r.bound(ctx, "a-1", "a-2")
		r.scheduled(ctx, "a")
	}, SpecTimeout(2*time.Minute))

})

// Every CompositePodGroup scenario recorded from kube-scheduler, on this
// process's apiserver with the CompositePodGroup gate (each from an empty
// cluster).
var _ = Describe("CompositePodGroup scenarios, compared with kube-scheduler v1.37.1", func() {
	for _, s := range workloads.CompositeScenarios() {
		It("plays "+s.Name+" as kube-scheduler does", func(ctx SpecContext) {
			if why, ok := notYet[s.Name]; ok {
				Skip("not yet: " + why)
			}
			_, c := compositeAPI.start(ctx)
			cleanCluster(ctx, c)
			startBerth(ctx, c, nil, scheduler.WithCompositePodGroups(true))
			DeferCleanup(cleanCluster, c)
			playAndCompare(ctx, s, c)
		}, SpecTimeout(4*time.Minute))
	}
})

// hierarchyRig creates a hierarchy's objects in one namespace and checks
// what the scheduler did with them.
type hierarchyRig struct {
	c  kubernetes.Interface
	ns string
}

// workloadRef is the reference every object with a parent must carry; no
// Workload needs to exist for it.
func workloadRef(template string) *schedulingv1beta1.WorkloadReference {
	return &schedulingv1beta1.WorkloadReference{WorkloadName: "training", TemplateName: template}
}

// podGroup creates a PodGroup: a gang of minCount, basic when 0, a child
// of parent unless that is "".
func (r *hierarchyRig) podGroup(ctx context.Context, name string, minCount int32, parent string) {
	GinkgoHelper()
	pg := workloads.PodGroup{Name: name, MinCount: minCount}.Object(r.ns)
	pg.Spec.WorkloadRef = workloadRef(name)
	if parent != "" {
		pg.Spec.ParentCompositePodGroupName = ptr.To(parent)
	}
	_, err := r.c.SchedulingV1beta1().PodGroups(r.ns).Create(ctx, pg, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
}

// compositeGroup creates a CompositePodGroup: a gang of minGroupCount
// children, basic when 0, a child of parent unless that is "".
func (r *hierarchyRig) compositeGroup(ctx context.Context, name string, minGroupCount int32, parent string) {
	GinkgoHelper()
	cpg := &schedulingv1alpha3.CompositePodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: r.ns, Name: name},
		Spec: schedulingv1alpha3.CompositePodGroupSpec{
			WorkloadRef: &schedulingv1alpha3.WorkloadReference{WorkloadName: "training", TemplateName: name},
		},
	}
	if minGroupCount > 0 {
		cpg.Spec.SchedulingPolicy.Gang = &schedulingv1alpha3.CompositeGangSchedulingPolicy{MinGroupCount: minGroupCount}
	} else {
		cpg.Spec.SchedulingPolicy.Basic = &schedulingv1alpha3.CompositeBasicSchedulingPolicy{}
	}
	if parent != "" {
		cpg.Spec.ParentCompositePodGroupName = ptr.To(parent)
	}
	_, err := r.c.SchedulingV1alpha3().CompositePodGroups(r.ns).Create(ctx, cpg, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
}

// pods creates small members of the PodGroup group.
func (r *hierarchyRig) pods(ctx context.Context, group string, names ...string) {
	GinkgoHelper()
	r.members(ctx, group, "100m", names)
}

// bigPods creates members of the PodGroup group of which each node holds one.
func (r *hierarchyRig) bigPods(ctx context.Context, group string, names ...string) {
	GinkgoHelper()
	r.members(ctx, group, "3", names)
}

// members creates members of the PodGroup group asking for cpu each.
func (r *hierarchyRig) members(ctx context.Context, group, cpu string, names []string) {
	GinkgoHelper()
	for _, n := range names {
		pod := workloads.Pod{Name: n, Group: group, CPU: cpu, Memory: "64Mi"}.Object(r.ns)
		_, err := r.c.CoreV1().Pods(r.ns).Create(ctx, pod, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
	}
}

// unschedulable waits for the PodGroup to read
// PodGroupInitiallyScheduled=False, Unschedulable, with a message that
// starts with prefix (what the PodGroupPostFilter plugins add follows it).
func (r *hierarchyRig) unschedulable(ctx context.Context, group, prefix string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		pg, err := r.c.SchedulingV1beta1().PodGroups(r.ns).Get(ctx, group, metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		c := apimeta.FindStatusCondition(pg.Status.Conditions, schedulingv1beta1.PodGroupInitiallyScheduled)
		g.Expect(c).NotTo(BeNil(), "PodGroup %s", group)
		g.Expect(c.Status).To(Equal(metav1.ConditionFalse), "PodGroup %s", group)
		g.Expect(c.Reason).To(Equal(schedulingv1beta1.PodGroupReasonUnschedulable), "PodGroup %s", group)
		g.Expect(c.Message).To(HavePrefix(prefix), "PodGroup %s", group)
	}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
}

// unbound checks for a while that the pods stay unbound.
func (r *hierarchyRig) unbound(ctx context.Context, pods ...string) {
	GinkgoHelper()
	r.stay(ctx, pods, nil, false)
}

// untouched checks for a while that the pods stay unbound without a
// PodScheduled condition and the PodGroups without conditions.
func (r *hierarchyRig) untouched(ctx context.Context, pods, groups []string) {
	GinkgoHelper()
	r.stay(ctx, pods, groups, true)
}

// stay checks for a while that the pods stay unbound and, when untouched
// is set, that nothing is written to them or to the PodGroups.
func (r *hierarchyRig) stay(ctx context.Context, pods, groups []string, untouched bool) {
	GinkgoHelper()
	Consistently(func(g Gomega) {
		for _, n := range pods {
			pod, err := r.c.CoreV1().Pods(r.ns).Get(ctx, n, metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(pod.Spec.NodeName).To(BeEmpty(), "pod %s", n)
			if untouched {
				g.Expect(pod.Status.Conditions).To(BeEmpty(), "pod %s", n)
			}
		}
		for _, n := range groups {
			pg, err := r.c.SchedulingV1beta1().PodGroups(r.ns).Get(ctx, n, metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(pg.Status.Conditions).To(BeEmpty(), "PodGroup %s", n)
		}
	}).WithContext(ctx).WithTimeout(3 * time.Second).WithPolling(250 * time.Millisecond).Should(Succeed())
}

// bound waits for the pods to be bound.
func (r *hierarchyRig) bound(ctx context.Context, pods ...string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		for _, n := range pods {
			pod, err := r.c.CoreV1().Pods(r.ns).Get(ctx, n, metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(pod.Spec.NodeName).NotTo(BeEmpty(), "pod %s", n)
		}
	}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
}

// scheduled waits for the PodGroups to read PodGroupInitiallyScheduled=True.
func (r *hierarchyRig) scheduled(ctx context.Context, groups ...string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		for _, n := range groups {
			pg, err := r.c.SchedulingV1beta1().PodGroups(r.ns).Get(ctx, n, metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(apimeta.IsStatusConditionTrue(pg.Status.Conditions, schedulingv1beta1.PodGroupInitiallyScheduled)).To(BeTrue(), "PodGroup %s", n)
		}
	}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
}
