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
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
)

// The v0.1.0 install that the upgrade starts from, and what its user had.
const (
	// v01Chart is charts/berth as released in v0.1.0, relative to the repository root.
	v01Chart = "test/e2e/install/testdata/berth-v0.1.0"
	// upgradeNamespace holds the v0.1.0 PodGroup and its pods.
	upgradeNamespace = "e2e-upgrade"
	// upgradeScheduler names the v0.1.0 SchedulingProfile and the schedulerName it serves.
	upgradeScheduler = "upgrade-test"
	upgradeWeight    = "upgrade-weight"
	upgradePolicy    = "upgrade-policy"
	// upgradeGroup is the v0.1.0 PodGroup, with minMember groupSize.
	upgradeGroup = "upgrade-gang"
	groupSize    = 3

	podGroupLabel       = "scheduling.berth.io/pod-group"
	protectionFinalizer = "scheduling.berth.io/podgroup-protection"
)

var (
	pluginWeights = schema.GroupVersionResource{Group: "scheduling.berth.io", Version: "v1alpha1", Resource: "pluginweights"}
	podGroups     = schema.GroupVersionResource{Group: "scheduling.berth.io", Version: "v1alpha1", Resource: "podgroups"}
)

// crdAdditions are, for each CRD, one thing v0.2.0 added that v0.1.0's
// lacks: present after the upgrade only if Helm updated the CRD.
var crdAdditions = []struct {
	crd, what string
	has       func(apiextensionsv1.CustomResourceDefinitionVersion) bool
}{
	{"podgroups.scheduling.berth.io", "spec.schedulingPolicy", hasProperty("spec", "schedulingPolicy")},
	{"schedulingprofiles.scheduling.berth.io", "spec.recordDecisions", hasProperty("spec", "recordDecisions")},
	{"rebalancepolicies.scheduling.berth.io", "status.profile", hasProperty("status", "profile")},
	// Its schema is v0.1.0's; its columns changed.
	{"pluginweights.scheduling.berth.io", "the Ready column", hasColumn("Ready")},
}

// upgradeSpecs take a v0.1.0 Helm install, with the objects its user
// created, to the current chart as docs/upgrading.md says, and check that
// nothing is lost; then uninstall as it says.
//
// v0.1.0's manager does not run. Its image was never built and cannot be,
// and the suite runs every pod of the image's repository with the binary of
// this checkout: "v0.1.0's manager" would be the current one under v0.1.0's
// flags and RBAC, which tests nothing of v0.1.0. So the v0.1.0 release is
// installed with no replicas and no webhook, and what exists before the
// upgrade is v0.1.0's CRDs, RBAC and release, and the objects its CRDs stored.
func upgradeSpecs() {
	var (
		ext      apiextensionsclient.Interface
		userObjs []*userObject
		managers *deploymentPods
	)

	BeforeAll(func(ctx SpecContext) {
		var err error
		ext, err = apiextensionsclient.NewForConfig(cluster.Config)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(removeUpgradeLeftovers, NodeTimeout(3*time.Minute))

		By("removing the CRDs an earlier install kept, and with them the chart's default profile, so that v0.1.0 starts on a cluster without Berth")
		run(ctx, "k8s/kubectl", append([]string{"delete", "crd", "--ignore-not-found", "--timeout=2m"}, crdNames...)...)

		By("installing the v0.1.0 chart without its manager")
		run(ctx, "helm", "install", release, v01Chart, "--namespace", releaseNamespace, "--create-namespace",
			"--set", "replicas=0,webhook.enabled=false")
	}, NodeTimeout(4*time.Minute))

	It("installs v0.1.0's CRDs, without v0.2.0's fields, and RBAC, and runs no manager", func(ctx SpecContext) {
		expectRenderedBy(ctx, ext, chartLabel(v01Chart))
		expectCRDAdditions(ctx, ext, false)
		d, err := cluster.Clientset.AppsV1().Deployments(releaseNamespace).Get(ctx, chartDeployment, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Spec.Replicas).To(HaveValue(BeZero()))
	}, SpecTimeout(time.Minute))

	It("stores a v0.1.0 user's objects through v0.1.0's CRDs, scheduleTimeoutSeconds defaulted to 60", func(ctx SpecContext) {
		createNamespace(ctx, upgradeNamespace)
		userObjs = v01UserObjects()
		for _, o := range userObjs {
			o.create(ctx)
		}
		group := userObjs[len(userObjs)-1] // the PodGroup
		Expect(group.spec).To(HaveKeyWithValue("minMember", BeNumerically("==", groupSize)))
		Expect(group.spec).To(HaveKeyWithValue("scheduleTimeoutSeconds", BeNumerically("==", 60)), "v0.1.0's CRD defaults it")
		Expect(group.spec).NotTo(HaveKey("schedulingPolicy"))

		for i := range groupSize {
			_, err := cluster.Clientset.CoreV1().Pods(upgradeNamespace).Create(ctx, groupMember(i), metav1.CreateOptions{})
			Expect(err).NotTo(HaveOccurred())
		}
	}, SpecTimeout(time.Minute))

	Describe("then helm upgrade to the current chart", Ordered, func() {
		BeforeAll(func(ctx SpecContext) {
			Expect(groupNodes(ctx)).To(And(HaveLen(groupSize), HaveEach(BeEmpty())), "nothing placed the group's pods before the upgrade")

			// --reset-values: given no values, helm upgrade would reuse the
			// v0.1.0 release's, which only stand in for a manager that
			// cannot run here; a user carries their own over with -f, as
			// docs/upgrading.md shows.
			run(ctx, "helm", "upgrade", release, "charts/berth", "--namespace", releaseNamespace, "--reset-values")

			certs.expectSecretIssued(ctx, releaseNamespace, "berth-webhook-cert")
			certs.expectSecretIssued(ctx, releaseNamespace, "berth-metrics-cert")
			managers = runDeployment(ctx, releaseNamespace, chartDeployment)
			DeferCleanup(func() { managers.stop() })
			managers.expectReady(ctx)
		}, NodeTimeout(4*time.Minute))

		It("updates the release, its RBAC and the four CRDs to the current chart's", func(ctx SpecContext) {
			expectRenderedBy(ctx, ext, chartLabel("charts/berth"))
			expectCRDAdditions(ctx, ext, true)
			managers.leader(ctx)
		}, SpecTimeout(2*time.Minute))

		It("keeps every v0.1.0 object, its spec unchanged field by field", func(ctx SpecContext) {
			for _, o := range userObjs {
				o.expectSpecUnchanged(ctx)
			}
		}, SpecTimeout(time.Minute))

		It("gives the v0.1.0 PodGroup the finalizer", func(ctx SpecContext) {
			Eventually(ctx, func() ([]string, error) {
				g, err := dyn.Resource(podGroups).Namespace(upgradeNamespace).Get(ctx, upgradeGroup, metav1.GetOptions{})
				return g.GetFinalizers(), err
			}).WithTimeout(time.Minute).Should(ContainElement(protectionFinalizer), "the leader adds it to groups created before the upgrade")
		}, SpecTimeout(2*time.Minute))

		It("makes the v0.1.0 profile Ready and its PluginWeight Applied and Ready", func(ctx SpecContext) {
			Eventually(ctx, func() (map[string]string, error) { return conditions(ctx, profiles, upgradeScheduler) }).
				WithTimeout(time.Minute).Should(HaveKeyWithValue("Ready", "True"), "SchedulingProfile %s", upgradeScheduler)
			Eventually(ctx, func() (map[string]string, error) { return conditions(ctx, pluginWeights, upgradeWeight) }).
				WithTimeout(time.Minute).Should(And(HaveKeyWithValue("Applied", "True"), HaveKeyWithValue("Ready", "True")),
				"PluginWeight %s", upgradeWeight)
		}, SpecTimeout(2*time.Minute))

		It("runs the v0.1.0 RebalancePolicy, its nodeFit now checked with the chart's default profile", func(ctx SpecContext) {
			Eventually(ctx, func(g Gomega) {
				p, err := dyn.Resource(rebalancePolicies).Get(ctx, upgradePolicy, metav1.GetOptions{})
				g.Expect(err).NotTo(HaveOccurred())
				nodeFitProfile, _, _ := unstructured.NestedString(p.Object, "status", "profile")
				g.Expect(nodeFitProfile).To(Equal(chartProfile), "without profileRef, nodeFit uses the install's default profile")
				last, _, _ := unstructured.NestedMap(p.Object, "status", "lastRun")
				g.Expect(last).To(HaveKey("completionTime"), "a policy that never ran runs at once")
				g.Expect(readyStatus(p)).To(Equal("True"))
			}).WithTimeout(time.Minute).Should(Succeed())
		}, SpecTimeout(2*time.Minute))

		It("creates the chart's default profile, which binds a pod", func(ctx SpecContext) {
			Eventually(ctx, func() (map[string]string, error) { return conditions(ctx, profiles, chartProfile) }).
				WithTimeout(time.Minute).Should(HaveKeyWithValue("Ready", "True"), "SchedulingProfile %s", chartProfile)
			expectBound(ctx, chartProfile)
		}, SpecTimeout(2*time.Minute))

		It("places the v0.1.0 group's pods, waiting since before the upgrade, whole: minMember read as the gang's minCount", func(ctx SpecContext) {
			Eventually(ctx, groupNodes).WithTimeout(2*time.Minute).
				Should(And(HaveLen(groupSize), HaveEach(HavePrefix("kwok-node-"))), "every member is bound")
			Eventually(ctx, func() (int64, error) {
				g, err := dyn.Resource(podGroups).Namespace(upgradeNamespace).Get(ctx, upgradeGroup, metav1.GetOptions{})
				if err != nil {
					return 0, err
				}
				scheduled, _, err := unstructured.NestedInt64(g.Object, "status", "scheduled")
				return scheduled, err
			}).WithTimeout(time.Minute).Should(BeNumerically("==", groupSize), "the group's status counts them")
			managers.expectUp()
		}, SpecTimeout(3*time.Minute))

		It("uninstalls as docs/upgrading.md says, leaving the CRDs and Berth's objects, nothing of the release, no PodGroup Terminating", func(ctx SpecContext) {
			By("deleting the group's pods, then the group, whose finalizer the running manager lifts")
			run(ctx, "k8s/kubectl", "delete", "pods", "--namespace", upgradeNamespace, "--selector", podGroupLabel+"="+upgradeGroup, "--timeout=1m")
			run(ctx, "k8s/kubectl", "delete", "podgroups.scheduling.berth.io", upgradeGroup, "--namespace", upgradeNamespace, "--timeout=1m")

			By("helm uninstall")
			managers.stop()
			run(ctx, "helm", "uninstall", release, "--namespace", releaseNamespace, "--wait")
			out, err := tryRun(ctx, "helm", "status", release, "--namespace", releaseNamespace)
			Expect(err).To(HaveOccurred())
			Expect(out).To(ContainSubstring("release: not found"))
			expectNothingOfRelease(ctx)

			By("checking what stays: the CRDs, as v0.2.0's, and every other Berth object")
			for _, name := range crdNames {
				crd, err := ext.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
				Expect(err).NotTo(HaveOccurred(), "CRD %s stays", name)
				Expect(crd.Annotations).To(HaveKeyWithValue("helm.sh/resource-policy", "keep"))
			}
			expectCRDAdditions(ctx, ext, true)
			for _, o := range userObjs {
				if o.gvr != podGroups {
					o.expectSpecUnchanged(ctx)
				}
			}
			_, err = dyn.Resource(profiles).Get(ctx, chartProfile, metav1.GetOptions{})
			Expect(err).NotTo(HaveOccurred(), "the manager made the profile %s, not Helm", chartProfile)

			By("checking that no PodGroup is left Terminating, so that the namespace goes")
			groups, err := dyn.Resource(podGroups).List(ctx, metav1.ListOptions{})
			Expect(err).NotTo(HaveOccurred())
			for _, g := range groups.Items {
				Expect(g.GetDeletionTimestamp()).To(BeNil(), "PodGroup %s/%s is Terminating", g.GetNamespace(), g.GetName())
			}
			run(ctx, "k8s/kubectl", "delete", "namespace", upgradeNamespace, "--timeout=1m")
		}, SpecTimeout(4*time.Minute))
	})
}

// userObject is an object a v0.1.0 user created, with its spec as v0.1.0's
// CRD stored it, defaults included.
type userObject struct {
	gvr  schema.GroupVersionResource
	obj  *unstructured.Unstructured
	spec map[string]any
}

func (o *userObject) String() string {
	if ns := o.obj.GetNamespace(); ns != "" {
		return o.obj.GetKind() + " " + ns + "/" + o.obj.GetName()
	}
	return o.obj.GetKind() + " " + o.obj.GetName()
}

func (o *userObject) client() dynamic.ResourceInterface {
	return dyn.Resource(o.gvr).Namespace(o.obj.GetNamespace())
}

// v01UserObjects are one object of each Berth kind, as written for v0.1.0:
// a profile, a weight for it, a policy, and last a PodGroup with minMember.
func v01UserObjects() []*userObject {
	return []*userObject{
		{gvr: profiles, obj: profile(upgradeScheduler, fmt.Sprintf(`{"schedulerName": %q, "percentageOfNodesToScore": 50}`, upgradeScheduler))},
		{gvr: pluginWeights, obj: object(fmt.Sprintf(`{"apiVersion": "scheduling.berth.io/v1alpha1", "kind": "PluginWeight",
			"metadata": {"name": %q},
			"spec": {"profileRef": {"name": %q}, "plugin": "NodeResourcesFit", "weight": 5}}`, upgradeWeight, upgradeScheduler))},
		// No profileRef: v0.2.0 checks nodeFit with the install's default profile.
		{gvr: rebalancePolicies, obj: object(fmt.Sprintf(`{"apiVersion": "scheduling.berth.io/v1alpha1", "kind": "RebalancePolicy",
			"metadata": {"name": %q},
			"spec": {"schedule": {"interval": "5m"}, "dryRun": true, "evictor": {"nodeFit": true}, "strategies": [{"name": "RemoveDuplicates"}]}}`, upgradePolicy))},
		{gvr: podGroups, obj: object(fmt.Sprintf(`{"apiVersion": "scheduling.berth.io/v1alpha1", "kind": "PodGroup",
			"metadata": {"name": %q, "namespace": %q},
			"spec": {"minMember": %d}}`, upgradeGroup, upgradeNamespace, groupSize))},
	}
}

// create creates the object and records its spec as stored.
func (o *userObject) create(ctx context.Context) {
	GinkgoHelper()
	stored, err := o.client().Create(ctx, o.obj, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred(), "v0.1.0's CRD takes %s", o)
	o.spec, _, err = unstructured.NestedMap(stored.Object, "spec")
	Expect(err).NotTo(HaveOccurred())
}

// expectSpecUnchanged checks that the object still exists and that its
// spec has the recorded fields with their values and no other: a changed
// default would add one.
func (o *userObject) expectSpecUnchanged(ctx context.Context) {
	GinkgoHelper()
	now, err := o.client().Get(ctx, o.obj.GetName(), metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred(), "%s is still there", o)
	spec, _, err := unstructured.NestedMap(now.Object, "spec")
	Expect(err).NotTo(HaveOccurred())
	for _, field := range slices.Sorted(maps.Keys(o.spec)) {
		Expect(spec).To(HaveKeyWithValue(field, o.spec[field]), "%s: spec.%s as v0.1.0 stored it", o, field)
	}
	Expect(spec).To(HaveLen(len(o.spec)), "%s: no field added to spec", o)
}

// createNamespace creates a namespace and waits for its default
// ServiceAccount, without which its pods are refused.
func createNamespace(ctx context.Context, name string) {
	GinkgoHelper()
	_, err := cluster.Clientset.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	Eventually(ctx, func() error {
		_, err := cluster.Clientset.CoreV1().ServiceAccounts(name).Get(ctx, "default", metav1.GetOptions{})
		return err
	}).Should(Succeed())
}

// groupMember is pod i of the v0.1.0 PodGroup, for the v0.1.0 profile.
func groupMember(i int) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:      fmt.Sprintf("%s-%d", upgradeGroup, i),
			Namespace: upgradeNamespace,
			Labels:    map[string]string{podGroupLabel: upgradeGroup},
		},
		Spec: corev1.PodSpec{
			SchedulerName: upgradeScheduler,
			Containers:    []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}},
		},
	}
}

// groupNodes lists the nodes of the v0.1.0 group's pods, "" for a pod not bound.
func groupNodes(ctx context.Context) ([]string, error) {
	pods, err := cluster.Clientset.CoreV1().Pods(upgradeNamespace).List(ctx, metav1.ListOptions{LabelSelector: podGroupLabel + "=" + upgradeGroup})
	if err != nil {
		return nil, err
	}
	nodes := make([]string, 0, len(pods.Items))
	for _, p := range pods.Items {
		nodes = append(nodes, p.Spec.NodeName)
	}
	return nodes, nil
}

// conditions maps the type of each of a cluster-scoped object's conditions to its status.
func conditions(ctx context.Context, gvr schema.GroupVersionResource, name string) (map[string]string, error) {
	u, err := dyn.Resource(gvr).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	list, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	out := map[string]string{}
	for _, c := range list {
		if m, ok := c.(map[string]any); ok {
			t, _ := m["type"].(string)
			s, _ := m["status"].(string)
			out[t] = s
		}
	}
	return out, nil
}

// chartLabel is the helm.sh/chart label that the chart in dir (from the
// repository root) puts on everything it renders.
func chartLabel(dir string) string {
	GinkgoHelper()
	raw, err := os.ReadFile(filepath.Join(repoRoot, dir, "Chart.yaml"))
	Expect(err).NotTo(HaveOccurred())
	var chart struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	Expect(yaml.Unmarshal(raw, &chart)).To(Succeed())
	return chart.Name + "-" + chart.Version
}

// expectRenderedBy checks that the release's Deployment, its manager
// ClusterRole and the four CRDs are the rendering of the chart labelled chart.
func expectRenderedBy(ctx context.Context, ext apiextensionsclient.Interface, chart string) {
	GinkgoHelper()
	d, err := cluster.Clientset.AppsV1().Deployments(releaseNamespace).Get(ctx, chartDeployment, metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred())
	Expect(d.Labels).To(HaveKeyWithValue("helm.sh/chart", chart), "Deployment %s", chartDeployment)
	role, err := cluster.Clientset.RbacV1().ClusterRoles().Get(ctx, release+"-manager", metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred())
	Expect(role.Labels).To(HaveKeyWithValue("helm.sh/chart", chart), "ClusterRole %s-manager", release)
	for _, name := range crdNames {
		crd, err := ext.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(crd.Labels).To(HaveKeyWithValue("helm.sh/chart", chart), "CRD %s", name)
	}
}

// expectCRDAdditions checks that each CRD has (or, before the upgrade, lacks) what v0.2.0 added to it.
func expectCRDAdditions(ctx context.Context, ext apiextensionsclient.Interface, present bool) {
	GinkgoHelper()
	for _, a := range crdAdditions {
		crd, err := ext.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, a.crd, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(crd.Spec.Versions).To(HaveLen(1), "CRD %s serves v1alpha1 alone", a.crd)
		Expect(a.has(crd.Spec.Versions[0])).To(Equal(present), "CRD %s has %s: %t", a.crd, a.what, present)
	}
}

// hasProperty reports whether a CRD version's schema has the property at path.
func hasProperty(path ...string) func(apiextensionsv1.CustomResourceDefinitionVersion) bool {
	return func(v apiextensionsv1.CustomResourceDefinitionVersion) bool {
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			return false
		}
		props := *v.Schema.OpenAPIV3Schema
		for _, p := range path {
			next, ok := props.Properties[p]
			if !ok {
				return false
			}
			props = next
		}
		return true
	}
}

// hasColumn reports whether a CRD version prints the column name.
func hasColumn(name string) func(apiextensionsv1.CustomResourceDefinitionVersion) bool {
	return func(v apiextensionsv1.CustomResourceDefinitionVersion) bool {
		return slices.ContainsFunc(v.AdditionalPrinterColumns, func(c apiextensionsv1.CustomResourceColumnDefinition) bool { return c.Name == name })
	}
}

// expectNothingOfRelease checks that no object carrying the release's
// instance label, which the chart puts on everything it renders, is left.
func expectNothingOfRelease(ctx context.Context) {
	GinkgoHelper()
	selector := "app.kubernetes.io/instance=" + release
	left := run(ctx, "k8s/kubectl", "get",
		"deployments,services,serviceaccounts,roles,rolebindings,poddisruptionbudgets,configmaps,secrets,issuers.cert-manager.io,certificates.cert-manager.io",
		"--namespace", releaseNamespace, "--selector", selector, "--output", "name")
	Expect(strings.TrimSpace(left)).To(BeEmpty(), "namespaced objects of the release")
	left = run(ctx, "k8s/kubectl", "get",
		"clusterroles,clusterrolebindings,validatingwebhookconfigurations,mutatingwebhookconfigurations,flowschemas",
		"--selector", selector, "--output", "name")
	Expect(strings.TrimSpace(left)).To(BeEmpty(), "cluster-scoped objects of the release")
}

// removeUpgradeLeftovers leaves the cluster as the earlier install leaves
// it: the CRDs and the chart's default profile, none of the upgrade's
// objects. After a failed spec it also removes the release, and clears the
// PodGroup's finalizer as docs/upgrading.md does, since no manager may run
// to lift it. Every step is allowed to find nothing to remove.
func removeUpgradeLeftovers(ctx SpecContext) {
	_, _ = tryRun(ctx, "helm", "uninstall", release, "--namespace", releaseNamespace, "--wait")
	_, _ = tryRun(ctx, "k8s/kubectl", "patch", "podgroups.scheduling.berth.io", upgradeGroup, "--namespace", upgradeNamespace,
		"--type=json", "--patch", `[{"op":"remove","path":"/metadata/finalizers"}]`)
	_, _ = tryRun(ctx, "k8s/kubectl", "delete", "namespace", upgradeNamespace, "--ignore-not-found", "--timeout=1m")
	_, _ = tryRun(ctx, "k8s/kubectl", "delete", "--ignore-not-found",
		"pluginweights.scheduling.berth.io/"+upgradeWeight,
		"rebalancepolicies.scheduling.berth.io/"+upgradePolicy,
		"schedulingprofiles.scheduling.berth.io/"+upgradeScheduler)
}
