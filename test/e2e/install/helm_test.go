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
	"encoding/base64"
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/yaml"
)

// The chart is installed as README says, with its default values.
const (
	release          = "berth"
	releaseNamespace = "berth-system"
	chartDeployment  = "berth-manager"
	// chartProfile is the SchedulingProfile the chart's defaultProfile value makes.
	chartProfile = "berth"
	// The chart's default ports.
	probePort   = 8081
	metricsPort = 8443
)

var (
	profiles          = schema.GroupVersionResource{Group: "scheduling.berth.io", Version: "v1alpha1", Resource: "schedulingprofiles"}
	rebalancePolicies = schema.GroupVersionResource{Group: "scheduling.berth.io", Version: "v1alpha1", Resource: "rebalancepolicies"}
	crdNames          = []string{"schedulingprofiles.scheduling.berth.io", "pluginweights.scheduling.berth.io", "rebalancepolicies.scheduling.berth.io", "podgroups.scheduling.berth.io"}
)

// The install specs share one cluster and one namespace: Helm's first, then
// the upgrade from a v0.1.0 release, then kustomize's, each removing what it
// installed.
var _ = Describe("Installing Berth", Ordered, func() {
	Describe("with helm install", Ordered, helmSpecs)
	Describe("with helm upgrade from v0.1.0", Ordered, upgradeSpecs)
	Describe("with kubectl apply -k config/default", Ordered, kustomizeSpecs)
})

func helmSpecs() {
	var managers *deploymentPods

	var notes string

	BeforeAll(func(ctx SpecContext) {
		for _, typo := range []string{"replica=1", "leaderElection.leaseDuraton=20s", "webhook.failurePolicy=Never"} {
			out, err := tryRun(ctx, "helm", "install", release, "charts/berth", "--namespace", releaseNamespace, "--create-namespace", "--set", typo)
			Expect(err).To(HaveOccurred(), "helm install --set %s must fail at install, not at run time", typo)
			Expect(out).To(ContainSubstring("schema"), "the chart's values.schema.json refuses --set %s", typo)
		}
		notes = run(ctx, "helm", "install", release, "charts/berth", "--namespace", releaseNamespace, "--create-namespace")
		certs.expectSecretIssued(ctx, releaseNamespace, "berth-webhook-cert")
		managers = runDeployment(ctx, releaseNamespace, chartDeployment)
		DeferCleanup(func() { managers.stop() })
		managers.expectReady(ctx)
	}, NodeTimeout(4*time.Minute))

	It("runs the Deployment's pods: ready, one of them leading, the other standing by", func(ctx SpecContext) {
		managers.expectLeaderAndStandby(ctx)
	}, SpecTimeout(3*time.Minute))

	It("prints NOTES that name what it installed", func(ctx SpecContext) {
		for _, want := range []string{
			"rollout status deployment/" + chartDeployment,
			"get lease " + leaseName,
			"get schedulingprofile " + chartProfile,
			"ClusterRole " + release + "-metrics-reader",
		} {
			Expect(notes).To(ContainSubstring(want))
		}
	})

	It("binds a pod with the chart's default profile", func(ctx SpecContext) {
		Eventually(ctx, func() (string, error) {
			p, err := dyn.Resource(profiles).Get(ctx, chartProfile, metav1.GetOptions{})
			if err != nil {
				return "", err
			}
			return readyStatus(p), nil
		}).WithTimeout(time.Minute).Should(Equal("True"), "the chart's SchedulingProfile %s is Ready", chartProfile)
		expectBound(ctx, chartProfile)
	}, SpecTimeout(2*time.Minute))

	It("passes helm test: Berth places the chart's test pod, whose container runs", func(ctx SpecContext) {
		out := helmTest(ctx, releaseNamespace, release+"-test")
		Expect(out).To(MatchRegexp(`TEST SUITE:\s+` + release + `-test`))
		Expect(out).To(MatchRegexp(`Phase:\s+Succeeded`))
		Eventually(ctx, func() error {
			_, err := cluster.Clientset.CoreV1().Pods(releaseNamespace).Get(ctx, release+"-test", metav1.GetOptions{})
			return err
		}).WithTimeout(30*time.Second).Should(Satisfy(apierrors.IsNotFound), "hook-delete-policy hook-succeeded removes the test pod")
		managers.expectUp()
	}, SpecTimeout(3*time.Minute))

	It("aggregates reading Berth's kinds into view, and writing PodGroups into edit and admin", func(ctx SpecContext) {
		expectAggregatedRoles(ctx)
	}, SpecTimeout(2*time.Minute))

	It("classifies the manager's requests under API Priority and Fairness as kube-scheduler's", func(ctx SpecContext) {
		expectClassified(ctx, chartProfile, release+"-leader-election", release)
	}, SpecTimeout(2*time.Minute))

	It("refuses a bad profile through the webhook and accepts a good one", func(ctx SpecContext) {
		bad := profile("e2e-bad", `{"plugins": {"filter": {"enabled": [{"name": "NoSuchPlugin"}]}}}`)
		_, err := dyn.Resource(profiles).Create(ctx, bad, metav1.CreateOptions{})
		Expect(err).To(HaveOccurred(), "the webhook refuses an unknown plugin")
		Expect(err.Error()).To(ContainSubstring("NoSuchPlugin"))
		Expect(err.Error()).To(ContainSubstring("admission webhook"))

		good := profile("e2e-good", `{"percentageOfNodesToScore": 50}`)
		_, err = dyn.Resource(profiles).Create(ctx, good, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { _ = dyn.Resource(profiles).Delete(background(), "e2e-good", metav1.DeleteOptions{}) })
	}, SpecTimeout(time.Minute))

	It("serves metrics only to callers bound to the chart's metrics-reader role", func(ctx SpecContext) {
		p := managers.pods[0]
		code, _ := get(p, "https", metricsPort, "/metrics", "")
		Expect(code).To(Equal(http.StatusUnauthorized))
		token := scraperToken(ctx, releaseNamespace, release+"-metrics-reader")
		Eventually(func() int { code, _ := get(p, "https", metricsPort, "/metrics", token); return code }).
			WithTimeout(30 * time.Second).Should(Equal(http.StatusOK))
		_, body := get(p, "https", metricsPort, "/metrics", token)
		Expect(body).To(ContainSubstring("controller_runtime_"))
	}, SpecTimeout(time.Minute))

	It("runs a RebalancePolicy", func(ctx SpecContext) {
		policy := object(`{"apiVersion": "scheduling.berth.io/v1alpha1", "kind": "RebalancePolicy",
			"metadata": {"name": "e2e-duplicates"},
			"spec": {"schedule": {"interval": "1m"}, "dryRun": true, "strategies": [{"name": "RemoveDuplicates"}]}}`)
		_, err := dyn.Resource(rebalancePolicies).Create(ctx, policy, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() {
			_ = dyn.Resource(rebalancePolicies).Delete(background(), "e2e-duplicates", metav1.DeleteOptions{})
		})
		Eventually(ctx, func() (map[string]any, error) {
			p, err := dyn.Resource(rebalancePolicies).Get(ctx, "e2e-duplicates", metav1.GetOptions{})
			if err != nil {
				return nil, err
			}
			last, _, _ := unstructured.NestedMap(p.Object, "status", "lastRun")
			return last, nil
		}).WithTimeout(time.Minute).Should(HaveKey("completionTime"), "the leader runs the policy at once")
		managers.expectUp()
	}, SpecTimeout(2*time.Minute))

	It("fails over: the standby takes the Lease when the leader dies and binds pods", func(ctx SpecContext) {
		leader := managers.leader(ctx)
		leader.Kill()
		Eventually(ctx, func() string { return leaseHolder(ctx, releaseNamespace) }).WithTimeout(time.Minute).
			ShouldNot(HavePrefix(leader.Pod.Name+"_"), "the standby takes over within the lease duration")
		expectBound(ctx, chartProfile)
	}, SpecTimeout(2*time.Minute))

	It("restarts cleanly on a helm upgrade that changes values, here to a user-managed webhook certificate", func(ctx SpecContext) {
		// The certificate cert-manager issued stays as the user's own; the
		// apiserver then trusts it through webhook.caBundle alone.
		run(ctx, "helm", "upgrade", release, "charts/berth", "--namespace", releaseNamespace, "--reuse-values",
			"--set", "logLevel=debug,webhook.certManager.enabled=false,webhook.secretName=berth-webhook-cert",
			"--set", "webhook.caBundle="+base64.StdEncoding.EncodeToString(certs.caPEM))
		managers.stop() // what the rollout does to the old pods: SIGTERM, exit 0
		managers = runDeployment(ctx, releaseNamespace, chartDeployment)
		Expect(managers.pods[0].Pod.Spec.Containers[0].Args).To(ContainElement("--zap-log-level=debug"))
		managers.expectReady(ctx)
		managers.leader(ctx)
		expectBound(ctx, chartProfile)

		hook, err := cluster.Clientset.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, release+"-validating", metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(hook.Annotations).NotTo(HaveKey("cert-manager.io/inject-ca-from"))
		_, err = dyn.Resource(profiles).Create(ctx, profile("e2e-bad", `{"plugins": {"filter": {"enabled": [{"name": "NoSuchPlugin"}]}}}`), metav1.CreateOptions{})
		Expect(err).To(MatchError(ContainSubstring("NoSuchPlugin")), "the webhook, trusted through webhook.caBundle, refuses an unknown plugin")
		managers.expectUp()
	}, SpecTimeout(3*time.Minute))

	It("leaves the CRDs and nothing else on helm uninstall", func(ctx SpecContext) {
		managers.stop()
		run(ctx, "helm", "uninstall", release, "--namespace", releaseNamespace, "--wait")
		for _, name := range crdNames {
			out := run(ctx, "k8s/kubectl", "get", "crd", name, "-o", "name")
			Expect(out).To(ContainSubstring(name))
		}
		// Everything else the chart made carries the release's instance label.
		left := run(ctx, "k8s/kubectl", "get",
			"deployments,services,serviceaccounts,roles,rolebindings,poddisruptionbudgets,configmaps,secrets,issuers.cert-manager.io,certificates.cert-manager.io",
			"-n", releaseNamespace, "-l", "app.kubernetes.io/instance="+release, "-o", "name")
		Expect(strings.TrimSpace(left)).To(BeEmpty())
		left = run(ctx, "k8s/kubectl", "get", "clusterroles,clusterrolebindings,validatingwebhookconfigurations,flowschemas",
			"-l", "app.kubernetes.io/instance="+release, "-o", "name")
		Expect(strings.TrimSpace(left)).To(BeEmpty())
	}, SpecTimeout(2*time.Minute))
}

// readyStatus is the status of an object's Ready condition.
func readyStatus(u *unstructured.Unstructured) string {
	conditions, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conditions {
		if m, ok := c.(map[string]any); ok && m["type"] == "Ready" {
			s, _ := m["status"].(string)
			return s
		}
	}
	return ""
}

// profile is a SchedulingProfile with the spec given as JSON.
func profile(name, spec string) *unstructured.Unstructured {
	return object(`{"apiVersion": "scheduling.berth.io/v1alpha1", "kind": "SchedulingProfile", "metadata": {"name": "` + name + `"}, "spec": ` + spec + `}`)
}

func object(text string) *unstructured.Unstructured {
	GinkgoHelper()
	u := &unstructured.Unstructured{}
	Expect(yaml.Unmarshal([]byte(text), &u.Object)).To(Succeed())
	return u
}
