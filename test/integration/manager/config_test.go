package manager_test

import (
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

var _ = Describe("config/default", func() {
	It("applies to the apiserver with a server-side dry run, and its pod passes Pod Security restricted", func(ctx SpecContext) {
		k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
		resources, err := k.Run(filesys.MakeFsOnDisk(), filepath.Join("..", "..", "..", "config", "default"))
		Expect(err).NotTo(HaveOccurred())

		var deploy appsv1.Deployment
		for _, r := range resources.Resources() {
			// cert-manager's kinds need cert-manager, which envtest lacks.
			if r.GetApiVersion() == "cert-manager.io/v1" {
				continue
			}
			b, err := r.AsYAML()
			Expect(err).NotTo(HaveOccurred())
			u := &unstructured.Unstructured{}
			Expect(yaml.Unmarshal(b, &u.Object)).To(Succeed())
			Expect(k8s.Patch(ctx, u, client.Apply, client.DryRunAll, client.ForceOwnership, client.FieldOwner("config-test"))).
				To(Succeed(), "applying %s %s", r.GetKind(), r.GetName())
			if r.GetKind() == "Deployment" {
				Expect(yaml.UnmarshalStrict(b, &deploy)).To(Succeed())
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
		err = k8s.Create(ctx, loose, client.DryRunAll)
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("violates PodSecurity"))
	}, SpecTimeout(time.Minute))
})
