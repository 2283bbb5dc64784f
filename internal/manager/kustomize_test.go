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

package manager

import (
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// renderedObject is one object of a kustomize build.
type renderedObject struct {
	kind, namespace, name string
	yaml                  []byte
}

// kustomizeBuild renders the kustomization in dir as `kubectl kustomize` does.
func kustomizeBuild(t *testing.T, dir string) []renderedObject {
	t.Helper()
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	resources, err := k.Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	var objs []renderedObject
	for _, r := range resources.Resources() {
		b, err := r.AsYAML()
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, renderedObject{kind: r.GetKind(), namespace: r.GetNamespace(), name: r.GetName(), yaml: b})
	}
	return objs
}

// find decodes the only object of kind into out and returns its name.
func find(t *testing.T, objs []renderedObject, kind string, out any) string {
	t.Helper()
	var found []renderedObject
	for _, o := range objs {
		if o.kind == kind {
			found = append(found, o)
		}
	}
	if len(found) != 1 {
		t.Fatalf("rendered %d objects of kind %s, want 1", len(found), kind)
	}
	if err := yaml.UnmarshalStrict(found[0].yaml, out); err != nil {
		t.Fatalf("decoding %s %s: %v", kind, found[0].name, err)
	}
	return found[0].name
}

func TestConfigDefaultRenders(t *testing.T) {
	objs := kustomizeBuild(t, filepath.Join(repoRoot, "config", "default"))

	wantKinds := map[string]int{
		"CustomResourceDefinition": 4, "Namespace": 1, "ServiceAccount": 1, "ClusterRole": 2, "ClusterRoleBinding": 1,
		"Role": 1, "RoleBinding": 1, "Deployment": 1, "Service": 1, "ValidatingWebhookConfiguration": 1,
		"MutatingWebhookConfiguration": 1, "Certificate": 1, "Issuer": 1, "PodDisruptionBudget": 1, "FlowSchema": 2,
	}
	gotKinds := map[string]int{}
	clusterScoped := map[string]bool{"CustomResourceDefinition": true, "Namespace": true, "ClusterRole": true,
		"ClusterRoleBinding": true, "ValidatingWebhookConfiguration": true, "MutatingWebhookConfiguration": true,
		"FlowSchema": true}
	for _, o := range objs {
		gotKinds[o.kind]++
		if o.kind != "CustomResourceDefinition" && !strings.HasPrefix(o.name, "berth-") {
			t.Errorf("%s %s is not prefixed berth-", o.kind, o.name)
		}
		if clusterScoped[o.kind] {
			if o.namespace != "" {
				t.Errorf("cluster-scoped %s %s has namespace %q", o.kind, o.name, o.namespace)
			}
		} else if o.namespace != "berth-system" {
			t.Errorf("%s %s is in namespace %q, want berth-system", o.kind, o.name, o.namespace)
		}
	}
	for kind, n := range wantKinds {
		if gotKinds[kind] != n {
			t.Errorf("rendered %d %s, want %d", gotKinds[kind], kind, n)
		}
	}
	for kind := range gotKinds {
		if _, ok := wantKinds[kind]; !ok {
			t.Errorf("rendered an unexpected %s", kind)
		}
	}

	var ns corev1.Namespace
	if name := find(t, objs, "Namespace", &ns); name != "berth-system" {
		t.Errorf("the Namespace is %s, want berth-system", name)
	}
	if ns.Labels["pod-security.kubernetes.io/enforce"] != "restricted" {
		t.Errorf("namespace labels %v do not enforce Pod Security restricted", ns.Labels)
	}

	var deploy appsv1.Deployment
	find(t, objs, "Deployment", &deploy)
	checkManagerDeployment(t, &deploy)

	var pdb policyv1.PodDisruptionBudget
	find(t, objs, "PodDisruptionBudget", &pdb)
	if sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector); err != nil || !sel.Matches(labels.Set(deploy.Spec.Template.Labels)) {
		t.Errorf("the PodDisruptionBudget's selector %v does not match the pods' labels", pdb.Spec.Selector)
	}

	var sa corev1.ServiceAccount
	saName := find(t, objs, "ServiceAccount", &sa)
	if deploy.Spec.Template.Spec.ServiceAccountName != saName {
		t.Errorf("the Deployment runs as %q, want the ServiceAccount %q", deploy.Spec.Template.Spec.ServiceAccountName, saName)
	}

	// The bindings grant the generated roles to the manager's ServiceAccount.
	var crb rbacv1.ClusterRoleBinding
	find(t, objs, "ClusterRoleBinding", &crb)
	var rb rbacv1.RoleBinding
	find(t, objs, "RoleBinding", &rb)
	var role rbacv1.Role
	roleName := find(t, objs, "Role", &role)
	for _, b := range []struct {
		kind     string
		roleRef  rbacv1.RoleRef
		subjects []rbacv1.Subject
	}{{"ClusterRoleBinding", crb.RoleRef, crb.Subjects}, {"RoleBinding", rb.RoleRef, rb.Subjects}} {
		if !hasObject(objs, b.roleRef.Kind, b.roleRef.Name) {
			t.Errorf("the %s refers to a missing %s %s", b.kind, b.roleRef.Kind, b.roleRef.Name)
		}
		want := rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: saName, Namespace: "berth-system"}
		if !slices.Contains(b.subjects, want) {
			t.Errorf("the %s's subjects %+v do not include %+v", b.kind, b.subjects, want)
		}
	}
	if crb.RoleRef.Kind != "ClusterRole" || rb.RoleRef.Name != roleName {
		t.Errorf("the bindings refer to %+v and %+v", crb.RoleRef, rb.RoleRef)
	}
	if !allows(role.Rules, "coordination.k8s.io", "leases", "update") {
		t.Errorf("the Role does not allow updating leases: %+v", role.Rules)
	}
	var manager rbacv1.ClusterRole
	if err := yaml.Unmarshal(objectNamed(objs, "ClusterRole", crb.RoleRef.Name).yaml, &manager); err != nil {
		t.Fatal(err)
	}
	for _, want := range []struct{ group, resource, verb string }{
		{"", "pods/binding", "create"}, {"", "pods", "watch"}, {"", "nodes", "list"}, {"", "pods/status", "patch"},
		{"", "pods/eviction", "create"}, {"events.k8s.io", "events", "create"}, {"scheduling.berth.io", "schedulingprofiles/status", "patch"},
		{"authentication.k8s.io", "tokenreviews", "create"}, {"authorization.k8s.io", "subjectaccessreviews", "create"},
		{"storage.k8s.io", "csinodes", "watch"}, {"policy", "poddisruptionbudgets", "list"},
	} {
		if !allows(manager.Rules, want.group, want.resource, want.verb) {
			t.Errorf("the manager's ClusterRole does not allow %s %s/%s", want.verb, want.group, want.resource)
		}
	}
	for _, rule := range manager.Rules {
		if slices.Contains(rule.Verbs, "*") || slices.Contains(rule.Resources, "*") || slices.Contains(rule.Resources, "secrets") {
			t.Errorf("the manager's ClusterRole is broader than it needs: %+v", rule)
		}
	}

	// The FlowSchemas, named in full outside the prefixed kustomization,
	// classify the requests of the ServiceAccount the Deployment runs as.
	for _, o := range objs {
		if o.kind != "FlowSchema" {
			continue
		}
		var fs flowcontrolv1.FlowSchema
		if err := yaml.UnmarshalStrict(o.yaml, &fs); err != nil {
			t.Fatalf("decoding FlowSchema %s: %v", o.name, err)
		}
		want := flowcontrolv1.ServiceAccountSubject{Name: saName, Namespace: "berth-system"}
		for _, r := range fs.Spec.Rules {
			for _, subj := range r.Subjects {
				if subj.ServiceAccount == nil || *subj.ServiceAccount != want {
					t.Errorf("FlowSchema %s's subject %+v is not the manager's ServiceAccount %+v", fs.Name, subj, want)
				}
			}
		}
	}

	// The webhook Service reaches the manager's pods on the webhook port,
	// under the name the Certificate is issued for.
	var svc corev1.Service
	svcName := find(t, objs, "Service", &svc)
	if !labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(deploy.Spec.Template.Labels)) {
		t.Errorf("the webhook Service's selector %v does not match the pods' labels %v", svc.Spec.Selector, deploy.Spec.Template.Labels)
	}
	if got := svc.Spec.Ports[0].TargetPort.IntValue(); got != 9443 {
		t.Errorf("the webhook Service targets port %d, want 9443", got)
	}
	cert := objectNamed(objs, "Certificate", "berth-serving-cert")
	if cert == nil || !strings.Contains(string(cert.yaml), svcName+".berth-system.svc") {
		t.Errorf("the Certificate is not issued for %s.berth-system.svc", svcName)
	}
	webhookConfig := objectNamed(objs, "ValidatingWebhookConfiguration", "berth-validating-webhook-configuration")
	if webhookConfig == nil || !strings.Contains(string(webhookConfig.yaml), "name: "+svcName) {
		t.Errorf("the ValidatingWebhookConfiguration does not call the Service %s", svcName)
	}
	mutating := objectNamed(objs, "MutatingWebhookConfiguration", "berth-mutating-webhook-configuration")
	if mutating == nil || !strings.Contains(string(mutating.yaml), "name: "+svcName) ||
		!strings.Contains(string(mutating.yaml), "namespace: berth-system") ||
		!strings.Contains(string(mutating.yaml), "cert-manager.io/inject-ca-from: berth-system/berth-serving-cert") {
		t.Errorf("the MutatingWebhookConfiguration does not call the Service %s in berth-system with cert-manager's CA", svcName)
	}
}

// checkManagerDeployment checks the Deployment's arguments, probes and
// security settings against `berth manager` and Pod Security "restricted".
func checkManagerDeployment(t *testing.T, d *appsv1.Deployment) {
	t.Helper()
	spec := d.Spec.Template.Spec
	if len(spec.Containers) != 1 {
		t.Fatalf("the Deployment has %d containers, want 1", len(spec.Containers))
	}
	c := spec.Containers[0]
	o, err := newManagerOptions(c.Args, io.Discard)
	if err != nil {
		t.Fatalf("the Deployment's args %q are not valid `berth manager` flags: %v", c.Args, err)
	}
	if !o.leaderElect || !o.enableWebhook || !o.metricsSecure {
		t.Errorf("the Deployment should elect a leader, serve the webhook and secure metrics: %+v", *o)
	}
	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	if ports["webhook-server"] != int32(o.webhookPort) {
		t.Errorf("the webhook-server port is %d, the manager listens on %d", ports["webhook-server"], o.webhookPort)
	}
	for name, addr := range map[string]string{"metrics": o.metricsBindAddress, "health": o.healthProbeBindAddress} {
		if _, port, err := net.SplitHostPort(addr); err != nil || port != strconv.Itoa(int(ports[name])) {
			t.Errorf("the %s port is %d, the manager listens on %q", name, ports[name], addr)
		}
	}
	for path, probe := range map[string]*corev1.Probe{"/healthz": c.LivenessProbe, "/readyz": c.ReadinessProbe} {
		if probe == nil || probe.HTTPGet == nil || probe.HTTPGet.Path != path || probe.HTTPGet.Port.String() != "health" {
			t.Errorf("the probe of %s is %+v, want GET %s on the health port", path, probe, path)
		}
	}
	if grace := spec.TerminationGracePeriodSeconds; grace == nil || float64(*grace) <= o.gracefulShutdownTimeout.Seconds() {
		t.Errorf("terminationGracePeriodSeconds %v does not exceed --graceful-shutdown-timeout %s", grace, o.gracefulShutdownTimeout)
	}

	psc := spec.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("the pod's securityContext %+v does not run as non-root with the RuntimeDefault seccomp profile", psc)
	}
	sc := c.SecurityContext
	switch {
	case sc == nil:
		t.Fatal("the manager container has no securityContext")
	case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
		t.Error("the manager container may escalate privileges")
	case sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
		t.Error("the manager container's root filesystem is writable")
	case sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) > 0:
		t.Errorf("the manager container's capabilities %+v do not drop ALL", sc.Capabilities)
	case sc.Privileged != nil && *sc.Privileged:
		t.Error("the manager container is privileged")
	}

	certDir := "/tmp/k8s-webhook-server/serving-certs"
	mounted := slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.MountPath == certDir && m.ReadOnly })
	secret := slices.ContainsFunc(spec.Volumes, func(v corev1.Volume) bool {
		return v.Secret != nil && v.Secret.SecretName == "webhook-server-cert"
	})
	if !mounted || !secret {
		t.Errorf("the Secret webhook-server-cert is not mounted read-only at %s", certDir)
	}
	if want := "ghcr.io/berth-io/berth:" + chartAppVersion(t); c.Image != want {
		t.Errorf("the manager's image is %q, want %q: kustomize installs the release the chart installs", c.Image, want)
	}
}

// chartAppVersion is the Helm chart's appVersion, the tag of the image it installs.
func chartAppVersion(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot, "charts", "berth", "Chart.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var chart struct {
		AppVersion string `json:"appVersion"`
	}
	if err := yaml.Unmarshal(raw, &chart); err != nil || chart.AppVersion == "" {
		t.Fatalf("charts/berth/Chart.yaml has no appVersion (%v)", err)
	}
	return chart.AppVersion
}

// TestConfigPrometheusRenders builds config/default with the
// config/prometheus component enabled, as its comment says to, and checks
// that the ServiceMonitor scrapes as the chart's does: with a token Secret of
// a ServiceAccount bound to the metrics-reader ClusterRole, verifying the
// metrics server's cert-manager certificate, which the manager serves.
func TestConfigPrometheusRenders(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(repoRoot, "config"))); err != nil {
		t.Fatal(err)
	}
	kfile := filepath.Join(dir, "default", "berth-system", "kustomization.yaml")
	raw, err := os.ReadFile(kfile)
	if err != nil {
		t.Fatal(err)
	}
	const commented = "#components:\n#- ../../prometheus\n"
	if !strings.Contains(string(raw), commented) {
		t.Fatalf("config/default/berth-system/kustomization.yaml no longer offers the prometheus component as %q", commented)
	}
	enabled := strings.Replace(string(raw), commented, "components:\n- ../../prometheus\n", 1)
	if err := os.WriteFile(kfile, []byte(enabled), 0o644); err != nil {
		t.Fatal(err)
	}
	objs := kustomizeBuild(t, filepath.Join(dir, "default"))

	var monitor struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
		Spec     struct {
			Endpoints []map[string]any     `json:"endpoints"`
			Selector  metav1.LabelSelector `json:"selector"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(objectNamed(objs, "ServiceMonitor", "berth-controller-manager-metrics-monitor").yaml, &monitor); err != nil {
		t.Fatal(err)
	}
	if len(monitor.Spec.Endpoints) != 1 {
		t.Fatalf("the ServiceMonitor has %d endpoints, want 1", len(monitor.Spec.Endpoints))
	}
	ep := monitor.Spec.Endpoints[0]
	for _, deprecated := range []string{"bearerTokenFile", "bearerTokenSecret"} {
		if _, ok := ep[deprecated]; ok {
			t.Errorf("the ServiceMonitor uses the deprecated %s", deprecated)
		}
	}
	var endpoint struct {
		Port          string `json:"port"`
		Scheme        string `json:"scheme"`
		Authorization struct {
			Type        string                   `json:"type"`
			Credentials corev1.SecretKeySelector `json:"credentials"`
		} `json:"authorization"`
		TLSConfig struct {
			CA struct {
				Secret corev1.SecretKeySelector `json:"secret"`
			} `json:"ca"`
			ServerName         string `json:"serverName"`
			InsecureSkipVerify bool   `json:"insecureSkipVerify"`
		} `json:"tlsConfig"`
	}
	b, _ := yaml.Marshal(ep)
	if err := yaml.Unmarshal(b, &endpoint); err != nil {
		t.Fatal(err)
	}
	if endpoint.Scheme != "https" || endpoint.TLSConfig.InsecureSkipVerify {
		t.Errorf("the ServiceMonitor scrapes %s, insecureSkipVerify %v; want https, verified", endpoint.Scheme, endpoint.TLSConfig.InsecureSkipVerify)
	}

	// The token: a ServiceAccount's token Secret, that ServiceAccount bound to metrics-reader.
	if endpoint.Authorization.Type != "Bearer" || endpoint.Authorization.Credentials.Key != "token" {
		t.Errorf("the ServiceMonitor's authorization is %+v, want the Bearer token of a Secret's key token", endpoint.Authorization)
	}
	var token corev1.Secret
	tokenObj := objectNamed(objs, "Secret", endpoint.Authorization.Credentials.Name)
	if tokenObj == nil {
		t.Fatalf("the ServiceMonitor presents the Secret %s, which the install does not make", endpoint.Authorization.Credentials.Name)
	}
	if err := yaml.UnmarshalStrict(tokenObj.yaml, &token); err != nil {
		t.Fatal(err)
	}
	scraper := token.Annotations[corev1.ServiceAccountNameKey]
	if token.Type != corev1.SecretTypeServiceAccountToken || !hasObject(objs, "ServiceAccount", scraper) {
		t.Errorf("the Secret %s is a %s for the ServiceAccount %q; want the token of a ServiceAccount of the install", token.Name, token.Type, scraper)
	}
	bound := false
	for _, o := range objs {
		var crb rbacv1.ClusterRoleBinding
		if o.kind != "ClusterRoleBinding" || yaml.UnmarshalStrict(o.yaml, &crb) != nil {
			continue
		}
		if crb.RoleRef.Name == "berth-metrics-reader" && hasObject(objs, "ClusterRole", crb.RoleRef.Name) &&
			slices.Contains(crb.Subjects, rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: scraper, Namespace: "berth-system"}) {
			bound = true
		}
	}
	if !bound {
		t.Errorf("no ClusterRoleBinding grants berth-metrics-reader to the ServiceAccount %s", scraper)
	}

	// The CA: the Secret of a Certificate for the metrics Service's name, which the manager serves.
	var svc corev1.Service
	svcObj := objectNamed(objs, "Service", "berth-controller-manager-metrics-service")
	if svcObj == nil {
		t.Fatal("no metrics Service berth-controller-manager-metrics-service")
	}
	if err := yaml.UnmarshalStrict(svcObj.yaml, &svc); err != nil {
		t.Fatal(err)
	}
	if endpoint.Port != svc.Spec.Ports[0].Name || svc.Spec.Ports[0].TargetPort.String() != "metrics" {
		t.Errorf("the ServiceMonitor scrapes port %q, the Service has %+v", endpoint.Port, svc.Spec.Ports[0])
	}
	if want := svc.Name + ".berth-system.svc"; endpoint.TLSConfig.ServerName != want {
		t.Errorf("the ServiceMonitor verifies the name %q, want %q", endpoint.TLSConfig.ServerName, want)
	}
	var cert struct {
		Spec struct {
			DNSNames   []string `json:"dnsNames"`
			SecretName string   `json:"secretName"`
			IssuerRef  struct {
				Name string `json:"name"`
			} `json:"issuerRef"`
		} `json:"spec"`
	}
	certObj := objectNamed(objs, "Certificate", "berth-metrics-cert")
	if certObj == nil {
		t.Fatal("no Certificate berth-metrics-cert")
	}
	if err := yaml.Unmarshal(certObj.yaml, &cert); err != nil {
		t.Fatal(err)
	}
	if endpoint.TLSConfig.CA.Secret.Name != cert.Spec.SecretName || endpoint.TLSConfig.CA.Secret.Key != "ca.crt" {
		t.Errorf("the ServiceMonitor trusts %+v, want ca.crt of the Certificate's Secret %s", endpoint.TLSConfig.CA.Secret, cert.Spec.SecretName)
	}
	if !slices.Contains(cert.Spec.DNSNames, endpoint.TLSConfig.ServerName) || !hasObject(objs, "Issuer", cert.Spec.IssuerRef.Name) {
		t.Errorf("the Certificate %+v is not issued by the install's Issuer for %s", cert.Spec, endpoint.TLSConfig.ServerName)
	}

	var deploy appsv1.Deployment
	find(t, objs, "Deployment", &deploy)
	checkManagerDeployment(t, &deploy)
	if !labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(deploy.Spec.Template.Labels)) {
		t.Errorf("the metrics Service's selector %v does not match the pods' labels %v", svc.Spec.Selector, deploy.Spec.Template.Labels)
	}
	c := deploy.Spec.Template.Spec.Containers[0]
	o, err := newManagerOptions(c.Args, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var volume string
	for _, v := range deploy.Spec.Template.Spec.Volumes {
		if v.Secret != nil && v.Secret.SecretName == cert.Spec.SecretName {
			volume = v.Name
		}
	}
	if o.metricsCertDir == "" || !slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool {
		return m.Name == volume && m.MountPath == o.metricsCertDir && m.ReadOnly
	}) {
		t.Errorf("the manager does not serve the Secret %s: --metrics-cert-dir %q, mounts %+v", cert.Spec.SecretName, o.metricsCertDir, c.VolumeMounts)
	}
}

// hasObject reports whether objs has an object of kind named name.
func hasObject(objs []renderedObject, kind, name string) bool {
	return objectNamed(objs, kind, name) != nil
}

// objectNamed returns the object of kind named name, or nil.
func objectNamed(objs []renderedObject, kind, name string) *renderedObject {
	for i := range objs {
		if objs[i].kind == kind && objs[i].name == name {
			return &objs[i]
		}
	}
	return nil
}

// allows reports whether rules allow verb on group/resource.
func allows(rules []rbacv1.PolicyRule, group, resource, verb string) bool {
	return slices.ContainsFunc(rules, func(r rbacv1.PolicyRule) bool {
		return slices.Contains(r.APIGroups, group) && slices.Contains(r.Resources, resource) && slices.Contains(r.Verbs, verb)
	})
}
