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
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

var _ = Describe("config/default", func() {
	It("applies to the apiserver with a server-side dry run, and its pod passes Pod Security restricted", func(ctx SpecContext) {
		var deploy appsv1.Deployment
		for _, u := range renderDefault() {
			// cert-manager's kinds need cert-manager, which envtest lacks.
			if u.GetAPIVersion() == "cert-manager.io/v1" {
				continue
			}
			Expect(k8s.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.DryRunAll, client.ForceOwnership, client.FieldOwner("config-test"))).
				To(Succeed(), "applying %s %s", u.GetKind(), u.GetName())
			if u.GetKind() == "Deployment" {
				Expect(runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(u.Object, &deploy, true)).To(Succeed())
			}
		}
		Expect(deploy.Name).NotTo(BeEmpty())

		By("creating the Deployment's pod in a namespace that enforces restricted")
		ns := namespace("restricted")
		ns.Labels = map[string]string{"pod-security.kubernetes.io/enforce": "restricted"}
		Expect(k8s.Create(ctx, ns)).To(Succeed())
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "manager", Labels: deploy.Spec.Template.Labels},
			Spec:       deploy.Spec.Template.Spec,
		}
		pod.Spec.ServiceAccountName = ""
		Expect(k8s.Create(ctx, pod.DeepCopy(), client.DryRunAll)).To(Succeed())

		// The check has teeth: the same pod without its container securityContext is refused.
		loose := pod.DeepCopy()
		loose.Spec.Containers[0].SecurityContext = nil
		err := k8s.Create(ctx, loose, client.DryRunAll)
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("violates PodSecurity"))
	}, SpecTimeout(time.Minute))
})

// renderDefault renders config/default as `kubectl kustomize` does.
func renderDefault() []*unstructured.Unstructured {
	GinkgoHelper()
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	resources, err := k.Run(filesys.MakeFsOnDisk(), filepath.Join("..", "..", "..", "config", "default"))
	Expect(err).NotTo(HaveOccurred())
	var objs []*unstructured.Unstructured
	for _, r := range resources.Resources() {
		b, err := r.AsYAML()
		Expect(err).NotTo(HaveOccurred())
		u := &unstructured.Unstructured{}
		Expect(yaml.Unmarshal(b, &u.Object)).To(Succeed())
		objs = append(objs, u)
	}
	return objs
}

// installRBAC creates config/default's ServiceAccount, roles and bindings
// and returns a kubeconfig that authenticates as the ServiceAccount.
func installRBAC(ctx context.Context) string {
	GinkgoHelper()
	var sa *unstructured.Unstructured
	for _, u := range renderDefault() {
		switch u.GetKind() {
		case "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding":
			Expect(k8s.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.ForceOwnership, client.FieldOwner("config-test"))).
				To(Succeed(), "applying %s %s", u.GetKind(), u.GetName())
			if u.GetKind() == "ServiceAccount" {
				sa = u
			}
		}
	}
	Expect(sa).NotTo(BeNil())
	tr, err := clientset.CoreV1().ServiceAccounts(sa.GetNamespace()).CreateToken(ctx, sa.GetName(),
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())

	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["envtest"] = &clientcmdapi.Cluster{Server: restConfig.Host, CertificateAuthorityData: restConfig.CAData}
	cfg.AuthInfos["berth"] = &clientcmdapi.AuthInfo{Token: tr.Status.Token}
	cfg.Contexts["berth"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "berth"}
	cfg.CurrentContext = "berth"
	path := filepath.Join(GinkgoT().TempDir(), "sa-kubeconfig")
	Expect(clientcmd.WriteToFile(*cfg, path)).To(Succeed())
	return path
}
