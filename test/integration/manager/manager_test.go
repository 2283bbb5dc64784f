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

package manager_test

import (
	"context"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	authenticationv1 "k8s.io/api/authentication/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/berth-io/berth/test/berthtest"
)

// The specs share one apiserver and run in order: each starts its own manager.
var _ = Describe("berth manager", Ordered, func() {
	BeforeAll(func(ctx SpecContext) {
		// Admission taints new nodes not-ready and no node controller runs:
		// lift the taint as the controller would for a Ready node.
		node := berthtest.NewNode("node-1").Obj()
		status := node.Status
		Expect(k8s.Create(ctx, node)).To(Succeed())
		node.Spec.Taints = nil
		Expect(k8s.Update(ctx, node)).To(Succeed())
		node.Status = status
		Expect(k8s.Status().Update(ctx, node)).To(Succeed())
		// The webhook admits profiles only while a manager runs: a first
		// manager admits the profile that the next one finds at start, and
		// /readyz waits for.
		m := startManager()
		Eventually(func() (int, error) { return m.probe(ctx, "/readyz") }).WithTimeout(60 * time.Second).Should(Equal(http.StatusOK))
		Expect(k8s.Create(ctx, profile("preexisting", "preexisting"))).To(Succeed())
		m.signal(syscall.SIGTERM)
		Expect(m.waitExit(20*time.Second)).To(Equal(0), m.logs.String())
		Expect(k8s.Create(ctx, pod("waits-for-preexisting", "preexisting"))).To(Succeed())
	}, NodeTimeout(2*time.Minute))

	It("schedules, reports ready, holds the Lease, secures metrics and exits 0 on SIGTERM", func(ctx SpecContext) {
		m := startManager()

		By("answering /healthz and turning ready")
		Eventually(func() (int, error) { return m.probe(ctx, "/healthz") }).WithTimeout(30 * time.Second).Should(Equal(http.StatusOK))
		Eventually(func() (int, error) { return m.probe(ctx, "/readyz") }).WithTimeout(60 * time.Second).Should(Equal(http.StatusOK))

		By("binding the pod of the profile present at start")
		expectBound(ctx, "waits-for-preexisting")

		By("holding the Lease as this host")
		host, err := os.Hostname()
		Expect(err).NotTo(HaveOccurred())
		lease := &coordinationv1.Lease{}
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: leaseNamespace, Name: leaseName}, lease)).To(Succeed())
		Expect(ptr.Deref(lease.Spec.HolderIdentity, "")).To(HavePrefix(host + "_"))

		By("placing a pod with a profile applied after start")
		Expect(k8s.Create(ctx, profile("applied", "applied"))).To(Succeed())
		Expect(k8s.Create(ctx, pod("placed", "applied"))).To(Succeed())
		expectBound(ctx, "placed")

		By("rejecting an invalid profile through its webhook")
		err = k8s.Create(ctx, invalidProfile("broken"))
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("NoSuchPlugin"))

		By("refusing unauthenticated metrics requests")
		// The metrics server starts listening once its authn/authz filter is built.
		Eventually(func() (int, error) {
			code, _, err := m.metrics(ctx, "")
			return code, err
		}).WithTimeout(30 * time.Second).Should(Equal(http.StatusUnauthorized))

		By("forbidding metrics to a service account without the permission")
		code, _, err := m.metrics(ctx, serviceAccountToken(ctx, "nobody"))
		Expect(err).NotTo(HaveOccurred())
		Expect(code).To(Equal(http.StatusForbidden))

		By("serving metrics to an authorized service account")
		token := metricsReaderToken(ctx)
		code, body, err := m.metrics(ctx, token)
		Expect(err).NotTo(HaveOccurred())
		Expect(code).To(Equal(http.StatusOK), body)
		Expect(body).To(ContainSubstring("scheduler_schedule_attempts_total"))
		Expect(body).To(ContainSubstring("controller_runtime_reconcile_total"))
		Expect(body).To(ContainSubstring("berth_build_info{go_version="), "the build is labelled")
		Expect(body).To(ContainSubstring("berth_leader 1"), "the leader says it runs the loop")

		By("exiting 0 promptly on SIGTERM and releasing the Lease")
		m.signal(syscall.SIGTERM)
		Expect(m.waitExit(20*time.Second)).To(Equal(0), m.logs.String())
		Expect(k8s.Get(ctx, client.ObjectKey{Namespace: leaseNamespace, Name: leaseName}, lease)).To(Succeed())
		Expect(ptr.Deref(lease.Spec.HolderIdentity, "")).To(BeEmpty())
	}, SpecTimeout(3*time.Minute))

	It("keeps a standby replica ready and not scheduling while another holds the Lease", func(ctx SpecContext) {
		holder := "someone-else"
		Expect(takeLease(ctx, holder, 60)).To(Succeed())
		m := startManager()
		Eventually(func() (int, error) { return m.probe(ctx, "/readyz") }).WithTimeout(60 * time.Second).Should(Equal(http.StatusOK))

		// Standbys serve the webhook too.
		Expect(k8s.Create(ctx, profile("standby", "standby"))).To(Succeed())
		Expect(k8s.Create(ctx, pod("held-back", "standby"))).To(Succeed())
		Consistently(func(g Gomega) {
			p := &corev1.Pod{}
			g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: "default", Name: "held-back"}, p)).To(Succeed())
			g.Expect(p.Spec.NodeName).To(BeEmpty())
		}).WithTimeout(3 * time.Second).Should(Succeed())

		By("taking over once the Lease is free, and scheduling")
		Expect(takeLease(ctx, "", 1)).To(Succeed())
		expectBound(ctx, "held-back")

		m.signal(syscall.SIGINT)
		Expect(m.waitExit(20*time.Second)).To(Equal(0), m.logs.String())
	}, SpecTimeout(3*time.Minute))

	It("exits non-zero when it loses the Lease", func(ctx SpecContext) {
		m := startManager()
		Eventually(func() (string, error) { return leaseHolder(ctx) }).WithTimeout(30 * time.Second).Should(HavePrefix(hostname()))

		Expect(takeLease(ctx, "thief", 60)).To(Succeed())
		Expect(m.waitExit(30*time.Second)).To(Equal(1), m.logs.String())
		Expect(m.logs.String()).To(ContainSubstring("leader election lost"))
	}, SpecTimeout(2*time.Minute))

	It("schedules as config/default's ServiceAccount, with only its RBAC", func(ctx SpecContext) {
		Expect(takeLease(ctx, "", 1)).To(Succeed())
		saKubeconfig := installRBAC(ctx)
		m := startManager("--kubeconfig", saKubeconfig)
		Eventually(func() (int, error) { return m.probe(ctx, "/readyz") }).WithTimeout(60 * time.Second).Should(Equal(http.StatusOK))
		Eventually(func() (string, error) { return leaseHolder(ctx) }).WithTimeout(30 * time.Second).Should(HavePrefix(hostname()))

		Expect(k8s.Create(ctx, profile("least-privilege", "least-privilege"))).To(Succeed())
		Expect(k8s.Create(ctx, pod("least-privilege", "least-privilege"))).To(Succeed())
		expectBound(ctx, "least-privilege")
		// Metrics need TokenReviews and SubjectAccessReviews.
		Eventually(func() (int, error) {
			code, _, err := m.metrics(ctx, metricsReaderToken(ctx))
			return code, err
		}).WithTimeout(30 * time.Second).Should(Equal(http.StatusOK))
		// The leader writes the profile's status.
		Eventually(func(g Gomega) {
			p := profile("least-privilege", "")
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(p), p)).To(Succeed())
			g.Expect(p.Status.ObservedGeneration).To(Equal(p.Generation))
		}).WithTimeout(30 * time.Second).Should(Succeed())

		m.signal(syscall.SIGTERM)
		Expect(m.waitExit(20*time.Second)).To(Equal(0), m.logs.String())
		Expect(strings.ToLower(m.logs.String())).NotTo(ContainSubstring("forbidden"))
	}, SpecTimeout(3*time.Minute))

	It("exits at once on a second signal while shutdown waits", func(ctx SpecContext) {
		Expect(takeLease(ctx, "", 1)).To(Succeed())
		m := startManager()
		Eventually(func() (int, error) { return m.probe(ctx, "/readyz") }).WithTimeout(60 * time.Second).Should(Equal(http.StatusOK))

		// A request that never finishes its headers keeps the probe server,
		// and so the graceful shutdown, waiting for its 20 s timeout.
		conn, err := net.Dial("tcp", m.probeAddr)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(conn.Close)
		_, err = conn.Write([]byte("GET /healthz HTTP/1.1\r\nHost: x\r\n"))
		Expect(err).NotTo(HaveOccurred())
		time.Sleep(200 * time.Millisecond)

		m.signal(syscall.SIGTERM)
		Consistently(m.exited).WithTimeout(2*time.Second).Should(BeFalse(), "the first signal starts a graceful shutdown")
		m.signal(syscall.SIGTERM)
		Expect(m.waitExit(5 * time.Second)).To(Equal(1))
	}, SpecTimeout(2*time.Minute))

	It("rejects unknown flags with exit code 2", func(ctx SpecContext) {
		m := startManager("--no-such-flag")
		Expect(m.waitExit(10 * time.Second)).To(Equal(2))
		Expect(m.logs.String()).To(ContainSubstring("flag provided but not defined: -no-such-flag"))
	}, SpecTimeout(time.Minute))
})

// expectBound waits for the pod in default to be bound to a node.
func expectBound(ctx context.Context, name string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		p := &corev1.Pod{}
		g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: "default", Name: name}, p)).To(Succeed())
		g.Expect(p.Spec.NodeName).To(Equal("node-1"), "pod status: %+v", p.Status)
	}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
}

// takeLease makes holder the Lease's holder, renewed now for seconds; an
// empty holder frees it.
func takeLease(ctx context.Context, holder string, seconds int32) error {
	return retryOnConflict(func() error {
		lease := &coordinationv1.Lease{}
		err := k8s.Get(ctx, client.ObjectKey{Namespace: leaseNamespace, Name: leaseName}, lease)
		create := apierrors.IsNotFound(err)
		if err != nil && !create {
			return err
		}
		lease.Namespace, lease.Name = leaseNamespace, leaseName
		now := metav1.NewMicroTime(time.Now())
		lease.Spec.HolderIdentity = ptr.To(holder)
		lease.Spec.LeaseDurationSeconds = ptr.To(seconds)
		lease.Spec.AcquireTime, lease.Spec.RenewTime = &now, &now
		if create {
			return k8s.Create(ctx, lease)
		}
		return k8s.Update(ctx, lease)
	})
}

func retryOnConflict(f func() error) error {
	for {
		err := f()
		if !apierrors.IsConflict(err) {
			return err
		}
	}
}

// leaseHolder returns the Lease's holder.
func leaseHolder(ctx context.Context) (string, error) {
	lease := &coordinationv1.Lease{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: leaseNamespace, Name: leaseName}, lease); err != nil {
		return "", err
	}
	return ptr.Deref(lease.Spec.HolderIdentity, ""), nil
}

func hostname() string {
	GinkgoHelper()
	h, err := os.Hostname()
	Expect(err).NotTo(HaveOccurred())
	return h + "_"
}

// metricsReaderToken returns a token of a service account allowed to GET /metrics.
func metricsReaderToken(ctx context.Context) string {
	GinkgoHelper()
	token := serviceAccountToken(ctx, "prometheus")
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "metrics-reader"},
		Rules:      []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}},
	}
	Expect(client.IgnoreAlreadyExists(k8s.Create(ctx, role))).To(Succeed())
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "prometheus-metrics-reader"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: "default", Name: "prometheus"}},
	}
	Expect(client.IgnoreAlreadyExists(k8s.Create(ctx, binding))).To(Succeed())
	return token
}

// serviceAccountToken creates the service account name in default and
// returns a token of it.
func serviceAccountToken(ctx context.Context, name string) string {
	GinkgoHelper()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}}
	Expect(client.IgnoreAlreadyExists(k8s.Create(ctx, sa))).To(Succeed())
	tr, err := clientset.CoreV1().ServiceAccounts(sa.Namespace).CreateToken(ctx, sa.Name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](600)}}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	Expect(strings.TrimSpace(tr.Status.Token)).NotTo(BeEmpty())
	return tr.Status.Token
}
