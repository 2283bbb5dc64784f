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

package faults_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/berth-io/berth/internal/localcluster"
)

var pluginWeights = schema.GroupVersionResource{Group: "scheduling.berth.io", Version: "v1alpha1", Resource: "pluginweights"}

// onNodes returns pod, served by profile, restricted to the named nodes.
func onNodes(pod *corev1.Pod, profile string, nodeNames ...string) *corev1.Pod {
	pod.Spec.SchedulerName = profile
	pod.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: nodeNames}},
		}}},
	}}
	return pod
}

// nodeRange returns the names of the kwok nodes from first to last.
func nodeRange(first, last int) []string {
	var out []string
	for i := first; i <= last; i++ {
		out = append(out, localcluster.NodeName(i))
	}
	return out
}

// waitNodesEmpty waits until no pod is bound to the named nodes: the
// previous spec's pods are gone.
func waitNodesEmpty(ctx context.Context, nodeNames []string) {
	GinkgoHelper()
	Eventually(ctx, func() int {
		n := 0
		for _, name := range nodeNames {
			pods, err := client.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + name})
			if err != nil {
				return -1
			}
			n += len(pods.Items)
		}
		return n
	}).WithTimeout(3*time.Minute).WithPolling(time.Second).Should(BeZero(), "pods left on %v", nodeNames)
}

// highPriority creates a PriorityClass above the default 0 for the spec.
func highPriority(ctx context.Context, name string) string {
	GinkgoHelper()
	_, err := client.SchedulingV1().PriorityClasses().Create(ctx, &schedulingv1.PriorityClass{
		ObjectMeta: metav1.ObjectMeta{Name: name}, Value: 1000,
	}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { _ = client.SchedulingV1().PriorityClasses().Delete(background(), name, metav1.DeleteOptions{}) })
	return name
}

// churn edits a profile and a PluginWeight on it as a busy GitOps
// repository and a careless operator would, until stopped.
type churn struct {
	dyn     dynamic.Interface
	profile string
	weight  string

	weightEdits, recreates, invalid, errors atomic.Int64
}

// weights edits the PluginWeight's weight every 20 ms (50 edits/s).
func (c *churn) weights(ctx context.Context) {
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		patch := fmt.Appendf(nil, `{"spec":{"weight":%d}}`, 1+i%100)
		if _, err := c.dyn.Resource(pluginWeights).Patch(ctx, c.weight, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			c.errors.Add(1)
			continue
		}
		c.weightEdits.Add(1)
	}
}

// profiles, every second, either stores an invalid generation (an unknown
// score plugin; the suite runs no webhook to refuse it) and then a valid
// one, or, every third second, deletes the profile and creates it again.
func (c *churn) profiles(ctx context.Context) {
	res := c.dyn.Resource(profiles)
	for i := 1; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
		if i%3 == 0 {
			_ = res.Delete(ctx, c.profile, metav1.DeleteOptions{})
			time.Sleep(300 * time.Millisecond)
			if _, err := res.Create(ctx, profileObject(c.profile, map[string]any{}), metav1.CreateOptions{}); err != nil {
				c.errors.Add(1)
				continue
			}
			c.recreates.Add(1)
			continue
		}
		bad := []byte(`{"spec":{"plugins":{"score":{"enabled":[{"name":"NoSuchPlugin"}]}}}}`)
		if _, err := res.Patch(ctx, c.profile, types.MergePatchType, bad, metav1.PatchOptions{}); err != nil {
			c.errors.Add(1)
			continue
		}
		c.invalid.Add(1)
		time.Sleep(300 * time.Millisecond)
		if err := c.repair(); err != nil {
			c.errors.Add(1)
		}
	}
}

// repair stores a valid generation again, removing the invalid plugin.
func (c *churn) repair() error {
	_, err := c.dyn.Resource(profiles).Patch(background(), c.profile, types.MergePatchType, []byte(`{"spec":{"plugins":null}}`), metav1.PatchOptions{})
	return err
}

// start runs the given churn loops until the returned stop is called.
func (c *churn) start(loops ...func(context.Context)) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, loop := range loops {
		wg.Go(func() { loop(ctx) })
	}
	return func() { cancel(); wg.Wait() }
}

// profileObject is a SchedulingProfile named name with spec.
func profileObject(name string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "scheduling.berth.io/v1alpha1",
		"kind":       "SchedulingProfile",
		"metadata":   map[string]any{"name": name},
		"spec":       spec,
	}}
}

// auditedDeletes counts, per pod of ns, the deletes the apiserver accepted.
func auditedDeletes(ns string) map[string]int { return audited("delete", ns, "") }

// holdFinalizer keeps a deleted pod terminating until the test releases it.
const holdFinalizer = "faults.berth.io/hold"

// holdVictims is how long the churn goes on with the victims terminating.
const holdVictims = 15 * time.Second

// terminating counts the namespace's pods being deleted.
func terminating(ctx context.Context, ns string) int {
	pods, err := client.CoreV1().Pods(ns).List(ctx, listAll)
	if err != nil {
		return -1
	}
	n := 0
	for _, p := range pods.Items {
		if p.DeletionTimestamp != nil {
			n++
		}
	}
	return n
}

// release removes holdFinalizer from the namespace's terminating pods.
func release(ctx context.Context, ns string) {
	GinkgoHelper()
	pods, err := client.CoreV1().Pods(ns).List(ctx, listAll)
	Expect(err).NotTo(HaveOccurred())
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil || len(p.Finalizers) == 0 {
			continue
		}
		_, err := client.CoreV1().Pods(ns).Patch(ctx, p.Name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			Expect(err).NotTo(HaveOccurred())
		}
	}
}

// podScheduledReason returns the reason of the pod's PodScheduled condition.
func podScheduledReason(ctx context.Context, ns, name string) string {
	p, err := client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return ""
	}
	if c := scheduledCondition(p); c != nil && c.Status == corev1.ConditionFalse {
		return c.Reason
	}
	return ""
}

var _ = Describe("profile churn", func() {
	It("during preemption (50 PluginWeight edits/s, deletes and recreates, invalid generations): each pod bound once, no extra victim, an unblocking edit placing its pod within 5 s", func(ctx SpecContext) {
		const (
			profile    = "churn"
			perNode    = 4  // victims on each node, 8 CPUs of the node's 32 each
			nodeCount  = 5  // nodes the victims and preemptors may use
			preemptors = 10 // each needs one victim's room
		)
		m := startManager("berth-churn")
		m.waitReady(ctx)
		m.waitLeader(ctx)
		dyn, err := dynamic.NewForConfig(cluster.Config)
		Expect(err).NotTo(HaveOccurred())
		high := highPriority(ctx, "faults-churn-high")
		applyProfile(ctx, profile, map[string]any{})
		applier, err := localcluster.NewApplier(cluster.Config)
		Expect(err).NotTo(HaveOccurred())
		Expect(applier.Apply(ctx, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "scheduling.berth.io/v1alpha1",
			"kind":       "PluginWeight",
			"metadata":   map[string]any{"name": profile},
			"spec": map[string]any{
				"profileRef": map[string]any{"name": profile},
				"plugin":     "NodeResourcesBalancedAllocation",
				"weight":     int64(1),
			},
		}})).To(Succeed())
		DeferCleanup(func() { _ = dyn.Resource(pluginWeights).Delete(background(), profile, metav1.DeleteOptions{}) })

		ns := newNamespace(ctx, "churn")
		b := watchBindings(ctx, ns)
		nodeNames := nodeRange(40, 40+nodeCount-1)
		waitNodesEmpty(ctx, nodeNames)
		var victims, placed []*corev1.Pod
		for i := range perNode * nodeCount {
			v := onNodes(podSpec(ns, fmt.Sprintf("victim-%d", i), "8", "1Gi"), profile, nodeNames...)
			v.Finalizers = []string{holdFinalizer}
			victims = append(victims, v)
		}
		DeferCleanup(func() {
			_ = client.CoreV1().Pods(ns).DeleteCollection(background(), deleteNow, listAll)
			release(background(), ns)
		})
		createPods(ctx, victims)
		b.waitBound(ctx, len(victims), time.Minute)

		c := &churn{dyn: dyn, profile: profile, weight: profile}
		churned := time.Now()
		stop := c.start(c.weights, c.profiles)
		stopped := false
		defer func() {
			if !stopped {
				stop()
			}
		}()
		time.Sleep(2 * time.Second)
		for i := range preemptors {
			p := onNodes(podSpec(ns, fmt.Sprintf("preemptor-%d", i), "8", "1Gi"), profile, nodeNames...)
			p.Spec.PriorityClassName = high
			placed = append(placed, p)
		}
		createPods(ctx, placed)
		// The victims terminate slowly (a finalizer holds each): the
		// preemptions stay in flight, their preemptors nominated, through
		// the churn.
		Eventually(ctx, func() int { return terminating(ctx, ns) }).
			WithTimeout(time.Minute).WithPolling(250*time.Millisecond).Should(Equal(preemptors), "victims chosen")
		time.Sleep(holdVictims)
		figure("churn/victims-terminating-at-the-end-of-the-churn", terminating(ctx, ns))
		stop()
		stopped = true
		elapsed := time.Since(churned).Seconds()
		release(ctx, ns)
		b.waitBound(ctx, len(victims)+preemptors, 2*time.Minute)
		figure("churn/pluginweight-edits-per-second", int(float64(c.weightEdits.Load())/elapsed))
		figure("churn/profile-deletes-and-recreates", c.recreates.Load())
		figure("churn/invalid-generations-stored", c.invalid.Load())
		// Writes refused while the profile is being recreated, say; reported,
		// not asserted.
		figure("churn/churn-writes-refused", c.errors.Load())
		Expect(c.weightEdits.Load()).To(BeNumerically(">", 0))
		Expect(c.recreates.Load()).To(BeNumerically(">", 0))
		Expect(c.invalid.Load()).To(BeNumerically(">", 0))

		// Each preemptor needs the room of one victim; any further victim
		// was evicted for nothing.
		var deleted map[string]int
		Eventually(func() int {
			deleted = auditedDeletes(ns)
			return len(deleted)
		}).WithTimeout(10 * time.Second).WithPolling(time.Second).Should(BeNumerically(">=", preemptors))
		figure("churn/preemption-victims", len(deleted))
		figure("churn/extra-preemption-victims", len(deleted)-preemptors)
		figure("churn/victim-delete-calls", total(deleted))
		Expect(deleted).To(HaveLen(preemptors))
		expectBoundOnce("churn", ns, b, append(podNames(victims), podNames(placed)...))

		// An edit that unblocks a pod places it within seconds, while the
		// PluginWeight keeps changing. The node is tainted before the
		// profile's repair, so that the manager's node watch has delivered
		// the taint by the time the pod comes: the pod and node watches are
		// not ordered, and a pod seen first would be bound past the taint.
		tainted := localcluster.NodeName(45)
		taint := corev1.Taint{Key: "faults.berth.io/churn", Effect: corev1.TaintEffectNoSchedule}
		setTaints(ctx, tainted, taint)
		DeferCleanup(func() { setTaints(background(), tainted) })
		Expect(c.repair()).To(Succeed())
		waitProfileLive(ctx, profile)
		blocked := onNodes(podSpec(ns, "blocked", "100m", "128Mi"), profile, tainted)
		createPods(ctx, []*corev1.Pod{blocked})
		Eventually(ctx, func() string { return podScheduledReason(ctx, ns, blocked.Name) }).
			WithTimeout(time.Minute).WithPolling(250 * time.Millisecond).Should(Equal(corev1.PodReasonUnschedulable))
		stop = c.start(c.weights)
		defer stop()
		time.Sleep(2 * time.Second)
		_, err = dyn.Resource(profiles).Patch(ctx, profile, types.MergePatchType,
			[]byte(`{"spec":{"plugins":{"filter":{"disabled":[{"name":"TaintToleration"}]}}}}`), metav1.PatchOptions{})
		Expect(err).NotTo(HaveOccurred())
		edited := time.Now()
		b.waitBound(ctx, len(victims)+preemptors+1, 30*time.Second)
		toBind := b.boundAtOf(blocked.Name).Sub(edited)
		figure("churn/seconds-from-unblocking-edit-to-bind", toBind.Round(100*time.Millisecond).Seconds())
		Expect(toBind).To(BeNumerically("<=", 5*time.Second))

		expectNoOvercommit(ctx, "churn")
		m.expectCacheSettles(ctx, "churn")
	}, SpecTimeout(10*time.Minute))
})

// waitProfileLive waits until the profile's current generation is live.
func waitProfileLive(ctx context.Context, name string) {
	GinkgoHelper()
	dyn, err := dynamic.NewForConfig(cluster.Config)
	Expect(err).NotTo(HaveOccurred())
	Eventually(ctx, func(g Gomega) {
		u, err := dyn.Resource(profiles).Get(ctx, name, metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		conditions, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		ready := false
		for _, c := range conditions {
			c, _ := c.(map[string]any)
			if c["type"] == "Ready" && c["status"] == "True" && c["observedGeneration"] == u.GetGeneration() {
				ready = true
			}
		}
		g.Expect(ready).To(BeTrue(), "profile %s generation %d is not Ready", name, u.GetGeneration())
	}).WithTimeout(30 * time.Second).WithPolling(250 * time.Millisecond).Should(Succeed())
}

// setTaints replaces the node's taints.
func setTaints(ctx context.Context, name string, taints ...corev1.Taint) {
	GinkgoHelper()
	Eventually(ctx, func() error {
		n, err := client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		n.Spec.Taints = taints
		_, err = client.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
		return err
	}).WithTimeout(30 * time.Second).Should(Succeed())
}
