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
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/internal/localcluster"
	"github.com/berth-io/berth/test/faults/faultproxy"
)

// createPodGroup creates the Berth PodGroup name of ns, a gang of minCount.
func createPodGroup(ctx context.Context, ns, name string, minCount int) {
	GinkgoHelper()
	applier, err := localcluster.NewApplier(cluster.Config)
	Expect(err).NotTo(HaveOccurred())
	Expect(applier.Apply(ctx, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": v1alpha1.GroupVersion.String(),
		"kind":       "PodGroup",
		"metadata":   map[string]any{"name": name, "namespace": ns},
		"spec":       map[string]any{"schedulingPolicy": map[string]any{"gang": map[string]any{"minCount": int64(minCount)}}},
	}})).To(Succeed())
}

// createGang creates the PodGroup name of ns, a gang of as many members as
// it needs, and its members, each needing 30 of a node's 32 CPUs on one of
// nodeNames.
func createGang(ctx context.Context, ns, name string, members int, nodeNames []string) []*corev1.Pod {
	GinkgoHelper()
	createPodGroup(ctx, ns, name, members)
	var pods []*corev1.Pod
	for i := range members {
		pods = append(pods, gangMember(ns, name, i, nodeNames))
	}
	createPods(ctx, pods)
	return pods
}

// bindRefuser is a validating admission webhook on pods/binding, served by
// the test process over TLS, that refuses the bindings of some pods until
// it is told to let them through, as a policy webhook of a platform would.
type bindRefuser struct {
	mu      sync.Mutex
	refuse  map[string]bool
	refused map[string]int
}

// refuseBindings registers a bindRefuser for the namespace ns that refuses
// the bindings of the named pods; it is removed after the spec.
func refuseBindings(ctx context.Context, ns string, names ...string) *bindRefuser {
	GinkgoHelper()
	r := &bindRefuser{refuse: map[string]bool{}, refused: map[string]int{}}
	for _, n := range names {
		r.refuse[n] = true
	}
	srv := httptest.NewTLSServer(http.HandlerFunc(r.serve))
	DeferCleanup(srv.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	url := srv.URL + "/validate"
	name := "faults-refuse-bindings-" + ns
	_, err := client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:         "refuse-bindings.faults.berth.io",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: ca},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule: admissionregistrationv1.Rule{
					APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods/binding"},
				},
			}},
			NamespaceSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: ns}},
			FailurePolicy:           ptr.To(admissionregistrationv1.Fail),
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"},
			TimeoutSeconds:          ptr.To[int32](5),
		}},
	}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() {
		_ = client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Delete(background(), name, metav1.DeleteOptions{})
	})
	return r
}

func (r *bindRefuser) serve(w http.ResponseWriter, req *http.Request) {
	var review admissionv1.AdmissionReview
	if err := json.NewDecoder(req.Body).Decode(&review); err != nil || review.Request == nil {
		http.Error(w, "not an AdmissionReview", http.StatusBadRequest)
		return
	}
	resp := &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
	r.mu.Lock()
	if r.refuse[review.Request.Name] {
		r.refused[review.Request.Name]++
		resp.Allowed = false
		resp.Result = &metav1.Status{Code: http.StatusForbidden, Message: fmt.Sprintf("faults: the binding of %s is refused", review.Request.Name)}
	}
	r.mu.Unlock()
	review.Response = resp
	review.Request = nil
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(&review)
}

// letThrough stops refusing any binding.
func (r *bindRefuser) letThrough() {
	r.mu.Lock()
	defer r.mu.Unlock()
	clear(r.refuse)
}

// refusals returns how many bindings of the pod were refused.
func (r *bindRefuser) refusals(name string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.refused[name]
}

// kube-scheduler v1.37.1 binds each member of a placed group in a binding
// cycle of its own: a member whose binding fails is unreserved and
// requeued with backoff, and the members already bound stay bound (its
// GangScheduling plugin has no Unreserve). Berth must do no worse: the
// others bound, the refused member retried, bound once the webhook lets
// it, and no pod bound twice.
var _ = Describe("a gang member's binding refused by an admission webhook", func() {
	It("binds the other members, retries the refused one until the webhook lets it through, and binds each pod once", func(ctx SpecContext) {
		const members = 3
		m := startManager("berth-gang-bind-refused")
		m.waitReady(ctx)
		m.waitLeader(ctx)
		gangNodes := nodeRange(0, members-1)
		waitNodesEmpty(ctx, gangNodes)

		ns := newNamespace(ctx, "gang-refused")
		b := watchBindings(ctx, ns)
		refused := "gang-0"
		refuser := refuseBindings(ctx, ns, refused)
		pods := createGang(ctx, ns, "gang", members, gangNodes)

		// The group is placed whole; every member but the refused one binds.
		b.waitBound(ctx, members-1, 2*time.Minute)
		Eventually(ctx, func() int { return refuser.refusals(refused) }).
			WithTimeout(time.Minute).WithPolling(250*time.Millisecond).Should(BeNumerically(">=", 2), "the refused member is tried again")
		Expect(b.boundAtOf(refused).IsZero()).To(BeTrue(), "the refused member was bound")
		figure("gang-bind-refused/reason-while-refused", podScheduledReason(ctx, ns, refused))

		// Let it through: the member is bound on its next attempt.
		letGo := time.Now()
		refuser.letThrough()
		b.waitBound(ctx, members, 2*time.Minute)
		figure("gang-bind-refused/refusals", refuser.refusals(refused))
		figure("gang-bind-refused/seconds-from-let-through-to-bound", b.boundAtOf(refused).Sub(letGo).Round(100*time.Millisecond).Seconds())

		expectBoundOnce("gang-bind-refused", ns, b, podNames(pods))
		expectNoOvercommit(ctx, "gang-bind-refused")
		m.expectCacheSettles(ctx, "gang-bind-refused")
	}, SpecTimeout(6*time.Minute))
})

// kube-scheduler v1.37.1 killed while a placed group's bindings are in
// flight leaves the members whose binding landed bound and the others
// pending; its successor schedules those with the bound members counted
// towards minCount. Berth must do no worse: every member bound by the
// standby, none twice, no node overcommitted.
var _ = Describe("the leader killed in the middle of a gang's binding", func() {
	It("leaves the members it did not bind to the standby, which binds them, each pod once", func(ctx SpecContext) {
		const members = 4
		gangNodes := nodeRange(0, members-1)
		waitNodesEmpty(ctx, gangNodes)
		leader, standby := startPair(ctx, "gang-binding")
		ns := newNamespace(ctx, "gang-binding")
		b := watchBindings(ctx, ns)
		// The leader's first two bindings of the namespace are held, so
		// that it dies with them in flight; the others go through.
		held := leader.proxy.Inject(faultproxy.Rule{
			Match: faultproxy.Match{Verb: "create", Resource: "pods", Subresource: "binding", Namespace: ns},
			Fault: faultproxy.FaultDelay, Delay: time.Minute, Count: 2,
		})
		pods := createGang(ctx, ns, "gang", members, gangNodes)
		b.waitBound(ctx, members-2, 2*time.Minute)
		Eventually(held.Applied).WithTimeout(30*time.Second).Should(Equal(2), "bindings held in flight")
		figure("gang-binding/bound-when-the-leader-died", b.count())

		// As a crash would: the Lease is not released, the held bindings
		// never reach the apiserver.
		leader.Kill()
		killed := time.Now()
		b.waitBoundBy(ctx, standby, members, 2*time.Minute)
		figure("gang-binding/seconds-from-kill-to-gang-whole", time.Since(killed).Round(100*time.Millisecond).Seconds())

		expectBoundOnce("gang-binding", ns, b, podNames(pods))
		expectNoOvercommit(ctx, "gang-binding")
		standby.expectCacheSettles(ctx, "gang-binding")
	}, SpecTimeout(6*time.Minute))
})

// kube-scheduler v1.37.1 whose apiserver restarts while groups are being
// placed and bound loses the bindings in flight (they fail, and their
// members are requeued) and, past its renew deadline, its leadership; what
// was bound stays bound. Berth must do no worse: every gang whole in the
// end, no pod bound twice, no node overcommitted.
var _ = Describe("the apiserver restarted while gangs are being bound", func() {
	It("binds every member of every gang in the end, each pod once", func(ctx SpecContext) {
		const (
			gangs   = 6
			members = 4
		)
		gangNodes := nodeRange(0, gangs*members-1)
		waitNodesEmpty(ctx, gangNodes)
		rs := startReplicas("berth-apiserver-gangs", 2)
		leader := rs.leader(ctx)
		ns := newNamespace(ctx, "apiserver-gangs")
		b := watchBindings(ctx, ns)
		// Each binding takes 2 s through the leader's proxy, so that the
		// restart finds bindings in flight.
		leader.proxy.Inject(faultproxy.Rule{
			Match: faultproxy.Match{Verb: "create", Resource: "pods", Subresource: "binding", Namespace: ns},
			Fault: faultproxy.FaultDelay, Delay: 2 * time.Second,
		})
		var all []*corev1.Pod
		for g := range gangs {
			all = append(all, createGang(ctx, ns, fmt.Sprintf("gang-%d", g), members, gangNodes)...)
		}
		Eventually(ctx, func() int { return b.count() + nominatedUnbound(ctx, ns) }).
			WithTimeout(time.Minute).WithPolling(100*time.Millisecond).Should(BeNumerically(">", 0), "no gang placed")
		figure("apiserver-gangs/bound-when-the-apiserver-went-down", b.count())

		down, err := cluster.RestartAPIServer(ctx, 10*time.Second)
		Expect(err).NotTo(HaveOccurred())
		back := time.Now()
		figure("apiserver-gangs/seconds-unavailable", down.Round(100*time.Millisecond).Seconds())
		b.waitBound(ctx, len(all), 3*time.Minute)
		figure("apiserver-gangs/seconds-from-ready-to-every-gang-whole", lastBound(ctx, ns, all).Sub(back).Round(100*time.Millisecond).Seconds())
		figure("apiserver-gangs/manager-restarts", len(rs.managers())-2)

		expectBoundOnce("apiserver-gangs", ns, b, podNames(all))
		expectNoOvercommit(ctx, "apiserver-gangs")
		rs.leader(ctx).expectCacheSettles(ctx, "apiserver-gangs")
	}, SpecTimeout(10*time.Minute))
})
