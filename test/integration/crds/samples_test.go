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

package crds_test

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	berthv1alpha1 "github.com/berth-io/berth/api/v1alpha1"
)

var samplesDir = filepath.Join(repoRoot, "config", "samples")

// The samples are what users copy first; each must be accepted as written.
var _ = Describe("the samples in config/samples", func() {
	DescribeTable("are accepted by the apiserver, with no field unknown to the schema",
		func(ctx SpecContext, file string) {
			sample := readSample(file)
			Expect(sample.GroupVersionKind().GroupVersion()).To(Equal(berthv1alpha1.GroupVersion), "%s: apiVersion", file)
			if ns := sample.GetNamespace(); ns != "" {
				ensureNamespace(ctx, ns)
			}
			// Strict field validation turns a misspelled or misplaced field,
			// which the apiserver would otherwise prune silently, into an error.
			createAndCleanUp(ctx, sample, client.FieldValidation("Strict"))
		},
		Entry("SchedulingProfile", "scheduling_v1alpha1_schedulingprofile.yaml"),
		Entry("PluginWeight", "scheduling_v1alpha1_pluginweight.yaml"),
		Entry("RebalancePolicy", "scheduling_v1alpha1_rebalancepolicy.yaml"),
		Entry("PodGroup", "scheduling_v1alpha1_podgroup.yaml"),
	)

	It("has one sample per kind, each listed in kustomization.yaml", func() {
		var kustomization struct {
			Resources []string `json:"resources"`
		}
		raw, err := os.ReadFile(filepath.Join(samplesDir, "kustomization.yaml"))
		Expect(err).NotTo(HaveOccurred())
		Expect(yaml.Unmarshal(raw, &kustomization)).To(Succeed())

		files, err := filepath.Glob(filepath.Join(samplesDir, "*.yaml"))
		Expect(err).NotTo(HaveOccurred())
		var samples []string
		for _, f := range files {
			if base := filepath.Base(f); base != "kustomization.yaml" {
				samples = append(samples, base)
			}
		}
		Expect(kustomization.Resources).To(ConsistOf(samples), "kustomization.yaml must list every sample file, and only those")

		var kinds []string
		for _, file := range samples {
			// namespace.yaml holds the PodGroup sample's Namespace.
			if sample := readSample(file); sample.GroupVersionKind().Group == berthv1alpha1.GroupVersion.Group {
				kinds = append(kinds, sample.GetKind())
			}
		}
		// The group's kinds are those registered with a matching list kind
		// (the scheme also holds the group's meta kinds, such as GetOptions).
		known := testScheme.KnownTypes(berthv1alpha1.GroupVersion)
		var wantKinds []string
		for kind := range known {
			if _, hasList := known[kind+"List"]; hasList {
				wantKinds = append(wantKinds, kind)
			}
		}
		Expect(wantKinds).NotTo(BeEmpty())
		Expect(kinds).To(ConsistOf(wantKinds), "want exactly one sample per kind of %s", berthv1alpha1.GroupVersion)
	})
})

// readSample decodes one sample file of config/samples.
func readSample(file string) *unstructured.Unstructured {
	GinkgoHelper()
	raw, err := os.ReadFile(filepath.Join(samplesDir, file))
	Expect(err).NotTo(HaveOccurred())
	obj := map[string]any{}
	Expect(yaml.Unmarshal(raw, &obj)).To(Succeed(), "decoding %s", file)
	return &unstructured.Unstructured{Object: obj}
}
