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
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/internal/localcluster"
)

// poolLabel holds back pods that select it until the test labels nodes.
const poolLabel = "faults.berth.io/pool"

// webhookDown registers a validating webhook for Berth's kinds, as the
// chart does (failurePolicy Fail), whose server never answers: Berth's
// webhook pods are all down. It is removed after the spec, or by restore.
func webhookDown(ctx context.Context, name string) (restore func()) {
	GinkgoHelper()
	rule := func(resource string) admissionregistrationv1.RuleWithOperations {
		return admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
			Rule: admissionregistrationv1.Rule{
				APIGroups: []string{v1alpha1.GroupVersion.Group}, APIVersions: []string{v1alpha1.GroupVersion.Version},
				Resources: []string{resource},
			},
		}
	}
	url := "https" + blackhole()[len("http"):] + "/validate"
	_, err := client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:                    "vschedulingprofile.faults.berth.io",
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: &url},
			Rules:                   []admissionregistrationv1.RuleWithOperations{rule("schedulingprofiles"), rule("pluginweights")},
			FailurePolicy:           ptr.To(admissionregistrationv1.Fail),
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"},
			TimeoutSeconds:          ptr.To[int32](5),
		}},
	}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	restore = func() {
		_ = client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete(background(), name, metav1.DeleteOptions{})
	}
	DeferCleanup(restore)
	return restore
}

// labelNodes sets (value non-empty) or removes the pool label on the nodes.
func labelNodes(ctx context.Context, nodeNames []string, value string) {
	GinkgoHelper()
	patch := fmt.Appendf(nil, `{"metadata":{"labels":{%q:%q}}}`, poolLabel, value)
	if value == "" {
		patch = fmt.Appendf(nil, `{"metadata":{"labels":{%q:null}}}`, poolLabel)
	}
	for _, name := range nodeNames {
		_, err := client.CoreV1().Nodes().Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
		Expect(err).NotTo(HaveOccurred())
	}
}

// pooledPods creates n small pods of the suite's profile that select the
// pool and waits until the scheduler has found each unschedulable.
func pooledPods(ctx context.Context, ns, pool string, n int) {
	GinkgoHelper()
	pods := manyPods(ns, pool, n, "10m", "16Mi")
	for _, p := range pods {
		p.Spec.NodeSelector = map[string]string{poolLabel: pool}
	}
	createPods(ctx, pods)
	Eventually(ctx, func() int { return countUnschedulable(ctx, ns) }).
		WithTimeout(2*time.Minute).WithPolling(time.Second).Should(Equal(n), "pods found unschedulable")
}

// countUnschedulable counts the namespace's pods whose PodScheduled
// condition is False with reason Unschedulable.
func countUnschedulable(ctx context.Context, ns string) int {
	return countNotScheduled(ctx, ns, corev1.PodReasonUnschedulable)
}

// countTurnedDown counts the namespace's pods whose PodScheduled condition
// is False because a scheduling cycle turned them down: reason
// Unschedulable, or SchedulerError, which a gang too small for its
// minCount reads as under kube-scheduler v1.37.1 (its cycle tries no
// member, and DynamicResources' PodGroupPostFilter then fails).
func countTurnedDown(ctx context.Context, ns string) int {
	return countNotScheduled(ctx, ns, corev1.PodReasonUnschedulable, corev1.PodReasonSchedulerError)
}

// countNotScheduled counts the namespace's pods whose PodScheduled
// condition is False with one of the reasons; -1 when they cannot be listed.
func countNotScheduled(ctx context.Context, ns string, reasons ...string) int {
	pods, err := client.CoreV1().Pods(ns).List(ctx, listAll)
	if err != nil {
		return -1
	}
	n := 0
	for i := range pods.Items {
		if c := scheduledCondition(&pods.Items[i]); c != nil && c.Status == corev1.ConditionFalse && slices.Contains(reasons, c.Reason) {
			n++
		}
	}
	return n
}

// parkedRelease is one throughput measure: n pods of a namespace of their
// own, parked on a pool label, then released at once by labelling nodes
// empty of pods into the pool.
type parkedRelease struct {
	ns, pool string
	nodes    []string
	bound    *bindings
}

// parkReleases creates, for each set of nodes, a namespace of n pods parked
// on a pool of its own, and waits until the scheduler found them all
// unschedulable.
func parkReleases(ctx context.Context, prefix string, n int, nodeSets ...[]string) []parkedRelease {
	GinkgoHelper()
	var rs []parkedRelease
	for i, nodeNames := range nodeSets {
		ns := newNamespace(ctx, prefix)
		r := parkedRelease{ns: ns, pool: fmt.Sprintf("%s-%d", prefix, i), nodes: nodeNames, bound: watchBindings(ctx, ns)}
		pooledPods(ctx, ns, r.pool, n)
		rs = append(rs, r)
	}
	return rs
}

// bestThroughput releases the backlogs one after the other and returns the
// best rate in pods bound per second, from the first bind to the last: the
// scheduler's rate, not the test's creation rate nor the labelling's
// latency. The best of several releases, because one release on this
// 2-core machine varies by 20%.
func bestThroughput(ctx context.Context, name string, n int, rs []parkedRelease) float64 {
	GinkgoHelper()
	best := 0.0
	for i, r := range rs {
		labelNodes(ctx, r.nodes, r.pool)
		r.bound.waitBound(ctx, n, 3*time.Minute)
		rate := r.bound.rate()
		figure(fmt.Sprintf("%s-release-%d", name, i+1), int(rate))
		best = max(best, rate)
	}
	return best
}

// clearReleases deletes the releases' pods and empties their nodes of pods
// and of the pool label.
func clearReleases(ctx context.Context, rs []parkedRelease) {
	GinkgoHelper()
	for _, r := range rs {
		Expect(client.CoreV1().Pods(r.ns).DeleteCollection(ctx, deleteNow, listAll)).To(Succeed())
		labelNodes(ctx, r.nodes, "")
		waitNodesEmpty(ctx, r.nodes)
	}
}

// gangMember is member i of the PodGroup group, needing 30 of a node's 32
// CPUs on one of nodeNames.
func gangMember(ns, group string, i int, nodeNames []string) *corev1.Pod {
	p := onNodes(podSpec(ns, fmt.Sprintf("%s-%d", group, i), "30", "1Gi"), schedulerName, nodeNames...)
	p.Labels[v1alpha1.PodGroupLabel] = group
	return p
}

// nominatedUnbound counts the namespace's pods that have a nominated node
// and no node: pods waiting at Permit or in PreBind.
func nominatedUnbound(ctx context.Context, ns string) int {
	pods, err := client.CoreV1().Pods(ns).List(ctx, listAll)
	if err != nil {
		return -1
	}
	n := 0
	for _, p := range pods.Items {
		if p.Spec.NodeName == "" && p.Status.NominatedNodeName != "" {
			n++
		}
	}
	return n
}

var _ = Describe("the webhook down", Label("ci"), func() {
	It("and a gang of 8 with room for 7 whose leader is killed while the gang is pending: throughput unchanged, no member bound, no room held", func(ctx SpecContext) {
		const (
			n       = 1500
			members = 8
		)
		leader, standby := startPair(ctx, "gang")
		gangNodes := nodeRange(0, members-2) // room for 7 members
		// Two releases each with and without the faults, on nodes empty
		// when each starts.
		poolA, poolB := nodeRange(10, 29), nodeRange(30, nodes-1)
		DeferCleanup(func() { labelNodes(background(), nodeRange(10, nodes-1), "") })
		waitNodesEmpty(ctx, gangNodes)

		// Berth's webhook is down: what it guards is refused, and nothing
		// else is.
		applier, err := localcluster.NewApplier(cluster.Config)
		Expect(err).NotTo(HaveOccurred())
		webhookUp := webhookDown(ctx, "berth-faults-down")
		Eventually(ctx, func() error {
			return applier.Apply(ctx, profileObject("refused", map[string]any{}))
		}).WithTimeout(30 * time.Second).WithPolling(time.Second).Should(MatchError(ContainSubstring("failed calling webhook")))
		faulted := parkReleases(ctx, "gang-fault", n, poolA, poolB)

		// The gang: its group cycle gives up on the seven members it has,
		// since the eighth, which a scheduling gate holds back, is needed
		// for minCount.
		ns := newNamespace(ctx, "gang")
		gang := watchBindings(ctx, ns)
		createPodGroup(ctx, ns, "gang", members)
		var gangPods []*corev1.Pod
		for i := range members {
			gangPods = append(gangPods, gangMember(ns, "gang", i, gangNodes))
		}
		last := gangPods[members-1]
		last.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "faults.berth.io/hold"}}
		createPods(ctx, gangPods)
		Eventually(ctx, func() int { return countTurnedDown(ctx, ns) }).
			WithTimeout(time.Minute).WithPolling(250*time.Millisecond).Should(Equal(members-1), "members the group cycle turned down")
		Expect(nominatedUnbound(ctx, ns)).To(BeZero(), "a member of a gang that cannot fit holds room")

		// The leader dies; the eighth is let go, so the new leader finds a
		// gang of 8 with room for 7.
		leader.Kill()
		killed := time.Now()
		_, err = client.CoreV1().Pods(ns).Patch(ctx, last.Name, types.JSONPatchType,
			[]byte(`[{"op":"remove","path":"/spec/schedulingGates"}]`), metav1.PatchOptions{})
		Expect(err).NotTo(HaveOccurred())
		standby.waitLeader(ctx)
		figure("gang/seconds-from-kill-to-takeover", time.Since(killed).Round(100*time.Millisecond).Seconds())
		// Let the new leader try its queue once (the gang, the pending pods).
		time.Sleep(5 * time.Second)

		rate := bestThroughput(ctx, "gang/pods-per-second-webhook-down-gang-cycling", n, faulted)

		// With the gang one member short (the eighth deleted), no member
		// holds room: seven pods the size of a member all bind on the
		// gang's nodes.
		Expect(client.CoreV1().Pods(ns).Delete(ctx, last.Name, deleteNow)).To(Succeed())
		fillNS := newNamespace(ctx, "gang-fill")
		fill := watchBindings(ctx, fillNS)
		var fillers []*corev1.Pod
		for i := range members - 1 {
			fillers = append(fillers, onNodes(podSpec(fillNS, fmt.Sprintf("fill-%d", i), "30", "1Gi"), schedulerName, gangNodes...))
		}
		start := time.Now()
		createPods(ctx, fillers)
		fill.waitBound(ctx, members-1, time.Minute)
		figure("gang/seconds-to-bind-7-pods-in-the-gangs-room", time.Since(start).Round(100*time.Millisecond).Seconds())
		figure("gang/members-bound", gang.count())
		Expect(gang.count()).To(BeZero(), "a member of a gang that cannot fit was bound")
		Expect(total(auditedBinds(ns))).To(BeZero(), "a bind of a member was accepted")

		// The same measure on the same leader, the webhook back and the
		// gang gone.
		webhookUp()
		Expect(client.CoreV1().Pods(ns).DeleteCollection(ctx, deleteNow, listAll)).To(Succeed())
		clearReleases(ctx, faulted)
		base := parkReleases(ctx, "gang-base", n, poolA, poolB)
		baseRate := bestThroughput(ctx, "gang/pods-per-second-without-fault", n, base)
		figure("gang/throughput-ratio", float64(int(100*rate/baseRate))/100)
		// The best of two releases still varies by up to 30% on this
		// 2-core machine (0.71 to 1.2 in CI runs with no change to the
		// scheduler); a fault that held the loop (a member keeping a binding
		// slot, a call waiting on the webhook) would show far more, so
		// only a collapse fails the spec and the ratio is a figure.
		Expect(rate / baseRate).To(BeNumerically(">=", 0.5))

		expectNoOvercommit(ctx, "gang")
		standby.expectCacheSettles(ctx, "gang")
	}, SpecTimeout(10*time.Minute))
})
