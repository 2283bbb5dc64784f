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
	"crypto/tls"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/internal/localcluster"
)

// leaseName is the managers' leader-election Lease.
const leaseName = "berth.scheduling.berth.io"

// deploymentPods are a Deployment's pods, run locally from the Deployment
// the apiserver holds (what Helm or kubectl created, not a local rendering).
type deploymentPods struct {
	namespace, name string
	pods            []*localcluster.LocalPod
}

// runDeployment starts the pods that the Deployment's ReplicaSet would
// have, named as a ReplicaSet names them.
func runDeployment(ctx context.Context, namespace, name string) *deploymentPods {
	GinkgoHelper()
	d, err := cluster.Clientset.AppsV1().Deployments(namespace).Get(ctx, name, metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred())
	raw, err := json.Marshal(d.Spec.Template)
	Expect(err).NotTo(HaveOccurred())
	h := fnv.New32a()
	_, _ = h.Write(raw)
	template := rand.SafeEncodeString(fmt.Sprint(h.Sum32()))
	dp := &deploymentPods{namespace: namespace, name: name}
	for range ptr.Deref(d.Spec.Replicas, 1) {
		dp.start(ctx, d.Spec.Template, name+"-"+template+"-"+rand.String(5))
	}
	return dp
}

func (dp *deploymentPods) start(ctx context.Context, tmpl corev1.PodTemplateSpec, podName string) *localcluster.LocalPod {
	GinkgoHelper()
	pod := localcluster.PodFromTemplate(dp.namespace, podName, &tmpl)
	p, err := cluster.RunPod(ctx, pod, images)
	Expect(err).NotTo(HaveOccurred())
	dp.pods = append(dp.pods, p)
	DeferCleanup(func() { p.Kill() })
	return p
}

// expectReady waits until every pod passes its readiness probe.
func (dp *deploymentPods) expectReady(ctx context.Context) {
	GinkgoHelper()
	for _, p := range dp.pods {
		Eventually(ctx, func() error {
			if p.Exited() {
				return StopTrying(fmt.Sprintf("%s exited (%v):\n%s", p.Name, p.Err(), tail(p.LogFile, 30)))
			}
			if !p.Ready() {
				return fmt.Errorf("%s is not ready", p.Name)
			}
			return nil
		}).WithTimeout(2 * time.Minute).WithPolling(time.Second).Should(Succeed())
	}
}

// expectAdmitted checks that the apiserver admits the Deployment's pods:
// its ReplicaSet (kube-controller-manager's) creates them all. Nothing
// schedules those pods to a real kubelet here; the local pods stand in for them.
func (dp *deploymentPods) expectAdmitted(ctx context.Context) {
	GinkgoHelper()
	d, err := cluster.Clientset.AppsV1().Deployments(dp.namespace).Get(ctx, dp.name, metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred())
	selector, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	Expect(err).NotTo(HaveOccurred())
	Eventually(ctx, func() (int, error) {
		pods, err := cluster.Clientset.CoreV1().Pods(dp.namespace).List(ctx, metav1.ListOptions{LabelSelector: selector.String()})
		if err != nil {
			return 0, err
		}
		return len(pods.Items), nil
	}).WithTimeout(30*time.Second).Should(BeNumerically(">=", ptr.Deref(d.Spec.Replicas, 1)), func() string {
		events, _ := cluster.Clientset.CoreV1().Events(dp.namespace).List(ctx, metav1.ListOptions{FieldSelector: "reason=FailedCreate"})
		var msgs []string
		for _, e := range events.Items {
			msgs = append(msgs, e.Message)
		}
		return "the ReplicaSet could not create the pods: " + strings.Join(msgs, "; ")
	})
}

// expectUp checks that no pod exited or failed its liveness probe.
func (dp *deploymentPods) expectUp() {
	GinkgoHelper()
	for _, p := range dp.pods {
		Expect(p.Exited()).To(BeFalse(), "%s exited (%v):\n%s", p.Name, p.Err(), tail(p.LogFile, 30))
		Expect(p.LivenessFailures()).To(BeZero(), "%s failed its liveness probe", p.Name)
	}
}

// leader waits for the Lease to be held by one of the pods and returns it.
func (dp *deploymentPods) leader(ctx context.Context) *localcluster.LocalPod {
	GinkgoHelper()
	var leader *localcluster.LocalPod
	Eventually(ctx, func() string {
		holder := leaseHolder(ctx, dp.namespace)
		for _, p := range dp.pods {
			if strings.HasPrefix(holder, p.Pod.Name+"_") && !p.Exited() {
				leader = p
			}
		}
		return holder
	}).WithTimeout(time.Minute).Should(Satisfy(func(string) bool { return leader != nil }), "a pod of %s holds the Lease", dp.name)
	return leader
}

// expectProbesOK waits until each pod answers 200 on each path of port:
// the leader's /readyz waits for its scheduler's caches after the election.
func (dp *deploymentPods) expectProbesOK(ctx context.Context, port int, paths ...string) {
	GinkgoHelper()
	for _, p := range dp.pods {
		for _, path := range paths {
			Eventually(ctx, func() (int, error) {
				code, body, err := tryGet(p, "http", port, path, "")
				if err == nil && code != http.StatusOK {
					err = fmt.Errorf("%s %s: %d %s", p.Pod.Name, path, code, body)
				}
				return code, err
			}).WithTimeout(time.Minute).Should(Equal(http.StatusOK))
		}
	}
}

// expectLeaderAndStandby checks what the Deployment's two replicas must
// show: the apiserver admits them, both are ready and answer their probes,
// one holds the Lease and the other does not take it, and none restarted.
func (dp *deploymentPods) expectLeaderAndStandby(ctx context.Context) {
	GinkgoHelper()
	Expect(dp.pods).To(HaveLen(2))
	dp.expectAdmitted(ctx)
	dp.expectReady(ctx)
	leader := dp.leader(ctx)
	dp.expectProbesOK(ctx, probePort, "/healthz", "/readyz")
	Consistently(ctx, func() string { return leaseHolder(ctx, dp.namespace) }).
		WithTimeout(5*time.Second).Should(HavePrefix(leader.Pod.Name+"_"), "the standby must not take a held lease")
	dp.expectUp()
}

// stop deletes the pods as the Deployment controller does on a rollout and
// expects each to exit cleanly within its grace period.
func (dp *deploymentPods) stop() {
	GinkgoHelper()
	for _, p := range dp.pods {
		if p.Exited() {
			continue
		}
		p.Delete()
		Expect(p.Err()).NotTo(HaveOccurred(), "%s did not exit cleanly on SIGTERM:\n%s", p.Name, tail(p.LogFile, 30))
	}
	dp.pods = nil
}

func leaseHolder(ctx context.Context, namespace string) string {
	lease, err := cluster.Clientset.CoordinationV1().Leases(namespace).Get(ctx, leaseName, metav1.GetOptions{})
	if err != nil || lease.Spec.HolderIdentity == nil {
		return ""
	}
	return *lease.Spec.HolderIdentity
}

// get asks the pod for path on a container port, with token as bearer when set.
func get(p *localcluster.LocalPod, scheme string, port int, path, token string) (int, string) {
	GinkgoHelper()
	code, body, err := tryGet(p, scheme, port, path, token)
	Expect(err).NotTo(HaveOccurred())
	return code, body
}

func tryGet(p *localcluster.LocalPod, scheme string, port int, path, token string) (int, string, error) {
	// The manager's metrics certificate is self-signed unless one is mounted.
	client := &http.Client{Transport: p.Transport(&tls.Config{InsecureSkipVerify: true}), Timeout: 10 * time.Second} //nolint:gosec
	req, err := http.NewRequest(http.MethodGet, fmt.Sprintf("%s://%s:%d%s", scheme, p.Pod.Name, port, path), nil)
	if err != nil {
		return 0, "", err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), nil
}

// scraperToken is a token of a new ServiceAccount bound to clusterRole, as a
// Prometheus would have.
func scraperToken(ctx context.Context, namespace, clusterRole string) string {
	GinkgoHelper()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "metrics-scraper", Namespace: namespace}}
	if _, err := cluster.Clientset.CoreV1().ServiceAccounts(namespace).Create(ctx, sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		Expect(err).NotTo(HaveOccurred())
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "e2e-metrics-scraper-" + namespace},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: clusterRole},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa.Name, Namespace: namespace}},
	}
	if _, err := cluster.Clientset.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		Expect(err).NotTo(HaveOccurred())
	}
	DeferCleanup(func() {
		_ = cluster.Clientset.RbacV1().ClusterRoleBindings().Delete(background(), binding.Name, metav1.DeleteOptions{})
	})
	tr, err := cluster.Clientset.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, sa.Name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	return tr.Status.Token
}

// expectBound creates a pod for schedulerName in a new namespace and waits
// until it is bound to one of the kwok nodes.
func expectBound(ctx context.Context, schedulerName string) {
	GinkgoHelper()
	ns, err := cluster.Clientset.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-"}}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() {
		_ = cluster.Clientset.CoreV1().Namespaces().Delete(background(), ns.Name, metav1.DeleteOptions{})
	})
	Eventually(ctx, func() error {
		_, err := cluster.Clientset.CoreV1().ServiceAccounts(ns.Name).Get(ctx, "default", metav1.GetOptions{})
		return err
	}).Should(Succeed())
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "placed", Namespace: ns.Name},
		Spec: corev1.PodSpec{
			SchedulerName: schedulerName,
			Containers:    []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}},
		},
	}
	_, err = cluster.Clientset.CoreV1().Pods(ns.Name).Create(ctx, pod, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	Eventually(ctx, func() string {
		p, err := cluster.Clientset.CoreV1().Pods(ns.Name).Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return ""
		}
		return p.Spec.NodeName
	}).WithTimeout(time.Minute).Should(HavePrefix("kwok-node-"), "a pod with schedulerName %s is bound", schedulerName)
}

// tail returns the last n lines of a file.
func tail(path string, n int) string {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
