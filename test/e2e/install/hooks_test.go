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

package install_test

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
)

// helmTest runs `helm test` and does a kubelet's part for its test pod,
// which lands on a kwok node: once the scheduler has bound the pod and kwok
// has started it, the pod's container runs here, and its exit becomes the
// pod's terminal phase, which helm test waits for. It returns helm's output.
func helmTest(ctx context.Context, namespace, testPod string) string {
	GinkgoHelper()
	type result struct {
		out string
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := tryRun(ctx, "helm", "test", release, "--namespace", namespace, "--timeout", "2m")
		done <- result{out, err}
	}()

	var pod *corev1.Pod
	Eventually(ctx, func() (corev1.PodPhase, error) {
		p, err := cluster.Clientset.CoreV1().Pods(namespace).Get(ctx, testPod, metav1.GetOptions{})
		if err != nil {
			return "", err
		}
		pod = p
		return p.Status.Phase, nil
	}).WithTimeout(time.Minute).Should(Equal(corev1.PodRunning), "Berth binds the test pod and kwok starts it")
	Expect(pod.Spec.NodeName).To(HavePrefix("kwok-node-"))

	started := metav1.Now()
	local, err := cluster.RunPod(ctx, pod, images)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { local.Kill() })
	Eventually(ctx, local.Done()).WithTimeout(30*time.Second).Should(BeClosed(), "the test container exits")
	code, phase, reason := int32(0), corev1.PodSucceeded, "Completed"
	if err := local.Err(); err != nil {
		code, phase, reason = 1, corev1.PodFailed, "Error"
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = int32(exit.ExitCode())
		}
	}
	GinkgoWriter.Printf("test pod %s exited %d:\n%s\n", testPod, code, tail(local.LogFile, 20))

	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		p, err := cluster.Clientset.CoreV1().Pods(namespace).Get(ctx, testPod, metav1.GetOptions{})
		if err != nil {
			return err
		}
		c := p.Spec.Containers[0]
		p.Status.Phase = phase
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{
			Name: c.Name, Image: c.Image,
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: code, Reason: reason, StartedAt: started, FinishedAt: metav1.Now(),
			}},
		}}
		_, err = cluster.Clientset.CoreV1().Pods(namespace).UpdateStatus(ctx, p, metav1.UpdateOptions{})
		return err
	})).To(Succeed())

	var r result
	Eventually(ctx, done).WithTimeout(time.Minute).Should(Receive(&r))
	Expect(r.err).NotTo(HaveOccurred(), "helm test:\n%s", r.out)
	return r.out
}

// expectAggregatedRoles checks that kube-controller-manager aggregated the
// chart's ClusterRoles into the built-in view, edit and admin, by asking the
// apiserver what users bound to them in one namespace may do.
func expectAggregatedRoles(ctx context.Context) {
	GinkgoHelper()
	ns, err := cluster.Clientset.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-rbac-"}}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() {
		_ = cluster.Clientset.CoreV1().Namespaces().Delete(background(), ns.Name, metav1.DeleteOptions{})
	})
	for _, role := range []string{"view", "edit", "admin"} {
		binding := &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "e2e-" + role, Namespace: ns.Name},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
			Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "e2e-" + role}},
		}
		_, err := cluster.Clientset.RbacV1().RoleBindings(ns.Name).Create(ctx, binding, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
	}
	// A ClusterRoleBinding to view reads the cluster-scoped kinds too.
	clusterView := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "e2e-cluster-view"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "e2e-cluster-view"}},
	}
	_, err = cluster.Clientset.RbacV1().ClusterRoleBindings().Create(ctx, clusterView, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() {
		_ = cluster.Clientset.RbacV1().ClusterRoleBindings().Delete(background(), clusterView.Name, metav1.DeleteOptions{})
	})
	for _, c := range []struct {
		user, verb, resource string
		namespaced, allowed  bool
	}{
		{"e2e-view", "list", "podgroups", true, true},
		{"e2e-view", "watch", "podgroups", true, true},
		{"e2e-view", "create", "podgroups", true, false},
		{"e2e-edit", "create", "podgroups", true, true},
		{"e2e-edit", "delete", "podgroups", true, true},
		{"e2e-edit", "get", "podgroups", true, true},
		{"e2e-admin", "patch", "podgroups", true, true},
		{"e2e-admin", "update", "podgroups/status", true, false},
		// A RoleBinding grants nothing cluster-scoped.
		{"e2e-admin", "list", "schedulingprofiles", false, false},
		{"e2e-admin", "create", "pluginweights", false, false},
		{"e2e-cluster-view", "list", "schedulingprofiles", false, true},
		{"e2e-cluster-view", "get", "rebalancepolicies", false, true},
		{"e2e-cluster-view", "update", "pluginweights", false, false},
	} {
		resource, subresource, _ := strings.Cut(c.resource, "/")
		attrs := &authorizationv1.ResourceAttributes{Group: "scheduling.berth.io", Verb: c.verb, Resource: resource, Subresource: subresource}
		if c.namespaced {
			attrs.Namespace = ns.Name
		}
		allowed := func() (bool, error) {
			review, err := cluster.Clientset.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{
				Spec: authorizationv1.SubjectAccessReviewSpec{User: c.user, ResourceAttributes: attrs},
			}, metav1.CreateOptions{})
			if err != nil {
				return false, err
			}
			return review.Status.Allowed, nil
		}
		if c.allowed {
			// kube-controller-manager aggregates the roles shortly after the chart's appear.
			Eventually(ctx, allowed).WithTimeout(30*time.Second).Should(BeTrue(), "%s may %s %s", c.user, c.verb, c.resource)
		} else {
			// Checked after the same role's allowed cases, so once it is aggregated.
			Expect(allowed()).To(BeFalse(), "%s may not %s %s", c.user, c.verb, c.resource)
		}
	}
}
