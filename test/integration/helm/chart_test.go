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

package helm_test

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/yaml"

	"github.com/berth-io/berth/internal/localcluster"
)

// releaseNamespace is the namespace `make helm-lint` renders the chart for.
const releaseNamespace = "berth-system"

// needsCRD lists the kinds the chart renders whose APIs come from other
// projects' CRDs (cert-manager, the Prometheus Operator), which the test
// apiserver does not serve.
var needsCRD = map[string]bool{
	"cert-manager.io/Certificate":          true,
	"cert-manager.io/Issuer":               true,
	"monitoring.coreos.com/ServiceMonitor": true,
	"monitoring.coreos.com/PrometheusRule": true,
}

// warnings collects the apiserver's warning headers.
type warnings struct {
	mu   sync.Mutex
	list []string
}

func (w *warnings) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, text)
}

func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.list
	w.list = nil
	return out
}

func renderedObjects() []*unstructured.Unstructured {
	raw, err := os.ReadFile(rendered)
	Expect(err).NotTo(HaveOccurred())
	objs, err := localcluster.DecodeManifests(bytes.NewReader(raw))
	Expect(err).NotTo(HaveOccurred())
	Expect(objs).NotTo(BeEmpty())
	return objs
}

func kindsOf(objs []*unstructured.Unstructured) map[string]*unstructured.Unstructured {
	out := map[string]*unstructured.Unstructured{}
	for _, o := range objs {
		out[o.GetKind()+"/"+o.GetName()] = o
	}
	return out
}

var _ = Describe("the rendered chart", func() {
	var (
		dyn     dynamic.Interface
		mapper  meta.RESTMapper
		clients kubernetes.Interface
		warn    *warnings
		objs    []*unstructured.Unstructured
	)

	BeforeEach(func(ctx SpecContext) {
		warn = &warnings{}
		c := rest.CopyConfig(cfg)
		c.WarningHandler = warn
		httpClient, err := rest.HTTPClientFor(c)
		Expect(err).NotTo(HaveOccurred())
		mapper, err = apiutil.NewDynamicRESTMapper(c, httpClient)
		Expect(err).NotTo(HaveOccurred())
		dyn, err = dynamic.NewForConfigAndClient(c, httpClient)
		Expect(err).NotTo(HaveOccurred())
		clients, err = kubernetes.NewForConfigAndClient(c, httpClient)
		Expect(err).NotTo(HaveOccurred())
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: releaseNamespace, Labels: map[string]string{
			"pod-security.kubernetes.io/enforce": "restricted",
			"pod-security.kubernetes.io/warn":    "restricted",
		}}}
		_, err = clients.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{})
		if err != nil {
			Expect(clients.CoreV1().Namespaces().Get(ctx, releaseNamespace, metav1.GetOptions{})).NotTo(BeNil())
		}
		objs = renderedObjects()
	})

	It("is accepted object by object with server-side dry-run", func(ctx SpecContext) {
		var skipped []string
		for _, obj := range objs {
			gvk := obj.GroupVersionKind()
			mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
			if meta.IsNoMatchError(err) && needsCRD[gvk.Group+"/"+gvk.Kind] {
				skipped = append(skipped, gvk.Kind+"/"+obj.GetName())
				continue
			}
			Expect(err).NotTo(HaveOccurred(), "the apiserver serves no %s", gvk)
			var res dynamic.ResourceInterface = dyn.Resource(mapping.Resource)
			if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
				Expect(obj.GetNamespace()).To(Equal(releaseNamespace), "%s %s", gvk.Kind, obj.GetName())
				res = dyn.Resource(mapping.Resource).Namespace(releaseNamespace)
			}
			_, err = res.Apply(ctx, obj.GetName(), obj, metav1.ApplyOptions{FieldManager: "helm-chart-test", DryRun: []string{metav1.DryRunAll}})
			Expect(err).NotTo(HaveOccurred(), "dry-run apply of %s %s", gvk.Kind, obj.GetName())
			Expect(warn.take()).To(BeEmpty(), "warnings for %s %s", gvk.Kind, obj.GetName())
		}
		sort.Strings(skipped)
		Expect(skipped).To(Equal([]string{"Certificate/berth-metrics", "Certificate/berth-webhook", "Issuer/berth-selfsigned",
			"PrometheusRule/berth", "ServiceMonitor/berth"}),
			"only the cert-manager and Prometheus Operator objects may be skipped")
	})

	It("runs the manager in a pod that Pod Security \"restricted\" admits", func(ctx SpecContext) {
		dep, ok := kindsOf(objs)["Deployment/berth-manager"]
		Expect(ok).To(BeTrue(), "the chart renders Deployment berth-manager")
		tmpl, found, err := unstructured.NestedMap(dep.Object, "spec", "template")
		Expect(err).NotTo(HaveOccurred())
		Expect(found).To(BeTrue())
		pod := &corev1.Pod{}
		Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(tmpl, pod)).To(Succeed())
		pod.Name, pod.Namespace = "berth-manager-dry-run", releaseNamespace
		pod.Spec.PriorityClassName = "" // system-cluster-critical is allowed only in kube-system
		_, err = clients.CoreV1().Pods(releaseNamespace).Create(ctx, pod, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		Expect(err).NotTo(HaveOccurred())
		Expect(warn.take()).To(BeEmpty())

		c := pod.Spec.Containers[0]
		Expect(c.SecurityContext.ReadOnlyRootFilesystem).To(HaveValue(BeTrue()))
		Expect(c.Args).To(ContainElements("--leader-elect=true", "--leader-elect-namespace="+releaseNamespace))
	})

	It("keeps Berth's CRDs on uninstall and carries config/crd/bases' schemas", func() {
		bases, err := filepath.Glob(filepath.Join(repoRoot, "config", "crd", "bases", "*.yaml"))
		Expect(err).NotTo(HaveOccurred())
		byKind := kindsOf(objs)
		for _, file := range bases {
			raw, err := os.ReadFile(file)
			Expect(err).NotTo(HaveOccurred())
			want, err := localcluster.DecodeManifests(bytes.NewReader(raw))
			Expect(err).NotTo(HaveOccurred())
			got, ok := byKind["CustomResourceDefinition/"+want[0].GetName()]
			Expect(ok).To(BeTrue(), "the chart has no CRD %s", want[0].GetName())
			Expect(got.GetAnnotations()).To(HaveKeyWithValue("helm.sh/resource-policy", "keep"))
			Expect(got.Object["spec"]).To(Equal(want[0].Object["spec"]), "CRD %s differs from %s", got.GetName(), file)
		}
	})

	It("points the webhooks at the paths the manager serves", func() {
		raw, err := os.ReadFile(filepath.Join(repoRoot, "config", "webhook", "manifests.yaml"))
		Expect(err).NotTo(HaveOccurred())
		generated, err := localcluster.DecodeManifests(bytes.NewReader(raw))
		Expect(err).NotTo(HaveOccurred())
		Expect(generated).To(HaveLen(2))
		for _, cfg := range generated {
			want := webhookPaths(cfg)
			Expect(want).NotTo(BeEmpty())
			name := map[string]string{
				"ValidatingWebhookConfiguration": "berth-validating",
				"MutatingWebhookConfiguration":   "berth-mutating",
			}[cfg.GetKind()]
			chart, ok := kindsOf(objs)[cfg.GetKind()+"/"+name]
			Expect(ok).To(BeTrue(), "the chart renders no %s/%s", cfg.GetKind(), name)
			Expect(webhookPaths(chart)).To(Equal(want))
		}
	})

	It("scrapes with a ServiceAccount token and verifies the metrics server with its cert-manager CA", func() {
		byKind := kindsOf(objs)
		sm, ok := byKind["ServiceMonitor/berth"]
		Expect(ok).To(BeTrue(), "the chart renders the ServiceMonitor")
		endpoints, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
		Expect(endpoints).To(HaveLen(1))
		ep := endpoints[0].(map[string]any)
		Expect(ep).NotTo(HaveKey("bearerTokenFile"), "bearerTokenFile is deprecated")
		Expect(ep).To(HaveKeyWithValue("scheme", "https"))
		Expect(ep["authorization"]).To(Equal(map[string]any{
			"type": "Bearer", "credentials": map[string]any{"name": "berth-metrics-scraper-token", "key": "token"},
		}))
		tls, _, _ := unstructured.NestedMap(ep, "tlsConfig")
		Expect(tls).NotTo(HaveKey("insecureSkipVerify"))
		Expect(tls["ca"]).To(Equal(map[string]any{"secret": map[string]any{"name": "berth-metrics-cert", "key": "ca.crt"}}))
		Expect(tls).To(HaveKeyWithValue("serverName", "berth-metrics."+releaseNamespace+".svc"))

		// The token is the scraper ServiceAccount's, and the CA is the one
		// cert-manager writes for the name the ServiceMonitor expects.
		token, ok := byKind["Secret/berth-metrics-scraper-token"]
		Expect(ok).To(BeTrue())
		Expect(token.Object).To(HaveKeyWithValue("type", "kubernetes.io/service-account-token"))
		Expect(token.GetAnnotations()).To(HaveKeyWithValue("kubernetes.io/service-account.name", "berth-metrics-scraper"))
		Expect(byKind).To(HaveKey("ServiceAccount/berth-metrics-scraper"))
		cert, ok := byKind["Certificate/berth-metrics"]
		Expect(ok).To(BeTrue())
		Expect(nestedString(cert.Object, "spec", "secretName")).To(Equal("berth-metrics-cert"))
		dnsNames, _, _ := unstructured.NestedStringSlice(cert.Object, "spec", "dnsNames")
		Expect(dnsNames).To(ContainElement("berth-metrics." + releaseNamespace + ".svc"))

		// The manager serves that certificate.
		dep := byKind["Deployment/berth-manager"]
		volumes, _, _ := unstructured.NestedSlice(dep.Object, "spec", "template", "spec", "volumes")
		Expect(volumes).To(ContainElement(map[string]any{"name": "metrics-cert", "secret": map[string]any{"secretName": "berth-metrics-cert"}}))
	})

	It("binds the metrics-reader ClusterRole to the scraper and to the Prometheus ServiceAccount", func() {
		binding, ok := kindsOf(objs)["ClusterRoleBinding/berth-metrics-reader"]
		Expect(ok).To(BeTrue(), "a scrape without the binding gets 403")
		Expect(nestedString(binding.Object, "roleRef", "name")).To(Equal("berth-metrics-reader"))
		subjects, _, _ := unstructured.NestedSlice(binding.Object, "subjects")
		Expect(subjects).To(ConsistOf(
			map[string]any{"kind": "ServiceAccount", "name": "berth-metrics-scraper", "namespace": releaseNamespace},
			map[string]any{"kind": "ServiceAccount", "name": "prometheus-k8s", "namespace": "monitoring"},
		))
	})

	It("ships the alerting rules file as a PrometheusRule and the dashboard in a ConfigMap for Grafana's sidecar", func() {
		byKind := kindsOf(objs)
		rule, ok := byKind["PrometheusRule/berth"]
		Expect(ok).To(BeTrue())
		raw, err := os.ReadFile(filepath.Join(repoRoot, "charts", "berth", "files", "monitoring", "berth-rules.yaml"))
		Expect(err).NotTo(HaveOccurred())
		var file map[string]any
		Expect(yaml.Unmarshal(raw, &file)).To(Succeed())
		Expect(rule.Object["spec"]).To(Equal(file), "the PrometheusRule carries berth-rules.yaml, which promtool tests")

		cm, ok := byKind["ConfigMap/berth-dashboard"]
		Expect(ok).To(BeTrue())
		Expect(cm.GetLabels()).To(HaveKeyWithValue("grafana_dashboard", "1"))
		dashboard, err := os.ReadFile(filepath.Join(repoRoot, "charts", "berth", "files", "monitoring", "berth-dashboard.json"))
		Expect(err).NotTo(HaveOccurred())
		Expect(nestedString(cm.Object, "data", "berth.json")).To(MatchJSON(dashboard))
	})

	It("has a helm test pod that only the chart's profile places, running the manager's image", func() {
		byKind := kindsOf(objs)
		obj, ok := byKind["Pod/berth-test"]
		Expect(ok).To(BeTrue(), "the chart renders the helm test pod")
		Expect(obj.GetAnnotations()).To(HaveKeyWithValue("helm.sh/hook", "test"))
		pod := &corev1.Pod{}
		Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, pod)).To(Succeed())
		Expect(pod.Spec.SchedulerName).To(Equal("berth"), "the chart's defaultProfile")
		Expect(pod.Spec.RestartPolicy).To(Equal(corev1.RestartPolicyNever))
		Expect(pod.Spec.Containers).To(HaveLen(1))
		Expect(pod.Spec.Containers[0].Command).To(Equal([]string{"/berth", "version"}))
		dep := &corev1.PodTemplateSpec{}
		tmpl, _, _ := unstructured.NestedMap(byKind["Deployment/berth-manager"].Object, "spec", "template")
		Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(tmpl, dep)).To(Succeed())
		Expect(pod.Spec.Containers[0].Image).To(Equal(dep.Spec.Containers[0].Image))
		Expect(labels.SelectorFromSet(dep.Labels).Matches(labels.Set(pod.Labels))).To(BeFalse(),
			"the manager's Services and PodDisruptionBudget must not select the test pod")
	})

	It("aggregates reading every kind into view and writing PodGroups into edit and admin", func() {
		byKind := kindsOf(objs)
		roles := map[string]*rbacv1.ClusterRole{}
		for _, name := range []string{"berth-view", "berth-edit"} {
			obj, ok := byKind["ClusterRole/"+name]
			Expect(ok).To(BeTrue(), "the chart renders ClusterRole %s", name)
			role := &rbacv1.ClusterRole{}
			Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, role)).To(Succeed())
			roles[name] = role
		}
		Expect(roles["berth-view"].Labels).To(And(
			HaveKeyWithValue("rbac.authorization.k8s.io/aggregate-to-view", "true"),
			HaveKeyWithValue("rbac.authorization.k8s.io/aggregate-to-edit", "true"),
			HaveKeyWithValue("rbac.authorization.k8s.io/aggregate-to-admin", "true")))
		Expect(roles["berth-edit"].Labels).To(And(
			HaveKeyWithValue("rbac.authorization.k8s.io/aggregate-to-edit", "true"),
			HaveKeyWithValue("rbac.authorization.k8s.io/aggregate-to-admin", "true"),
			Not(HaveKey("rbac.authorization.k8s.io/aggregate-to-view"))))

		// Every kind the chart installs a CRD for is readable.
		var plurals []string
		for _, obj := range objs {
			if obj.GetKind() == "CustomResourceDefinition" {
				plural, _, _ := unstructured.NestedString(obj.Object, "spec", "names", "plural")
				plurals = append(plurals, plural)
			}
		}
		Expect(plurals).To(HaveLen(4))
		for _, plural := range plurals {
			Expect(roles["berth-view"].Rules).To(ContainElement(And(
				HaveField("APIGroups", ConsistOf("scheduling.berth.io")),
				HaveField("Resources", ContainElements(plural, plural+"/status")),
				HaveField("Verbs", ConsistOf("get", "list", "watch")))), "view reads %s", plural)
		}
		Expect(roles["berth-edit"].Rules).To(ConsistOf(And(
			HaveField("APIGroups", ConsistOf("scheduling.berth.io")),
			HaveField("Resources", ConsistOf("podgroups")),
			HaveField("Verbs", ContainElements("create", "update", "patch", "delete")))),
			"edit writes PodGroups only: the cluster-scoped kinds stay with cluster-admin")
	})

	It("leaves kube-system and its own namespace out of the namespace default, failing open", func() {
		chart, ok := kindsOf(objs)["MutatingWebhookConfiguration/berth-mutating"]
		Expect(ok).To(BeTrue())
		hooks, _, _ := unstructured.NestedSlice(chart.Object, "webhooks")
		Expect(hooks).To(HaveLen(1))
		hook := hooks[0].(map[string]any)
		Expect(hook).To(HaveKeyWithValue("failurePolicy", "Ignore"))
		exprs, _, _ := unstructured.NestedSlice(hook, "namespaceSelector", "matchExpressions")
		Expect(exprs).To(ContainElements(
			map[string]any{"key": "scheduling.berth.io/scheduler-name", "operator": "Exists"},
			map[string]any{"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": []any{"kube-system", releaseNamespace}},
		))
	})
})

// webhookPaths maps each webhook's name to its service path.
func webhookPaths(cfg *unstructured.Unstructured) map[string]string {
	out := map[string]string{}
	hooks, _, _ := unstructured.NestedSlice(cfg.Object, "webhooks")
	for _, h := range hooks {
		m, _ := h.(map[string]any)
		name, _, _ := unstructured.NestedString(m, "name")
		path, _, _ := unstructured.NestedString(m, "clientConfig", "service", "path")
		out[name] = path
	}
	return out
}

// nestedString reads a string field of obj, "" when absent.
func nestedString(obj map[string]any, fields ...string) string {
	v, _, _ := unstructured.NestedString(obj, fields...)
	return v
}
