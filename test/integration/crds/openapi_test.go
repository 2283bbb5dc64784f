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
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/discovery"

	berthv1alpha1 "github.com/berth-io/berth/api/v1alpha1"
)

// openAPISchema is the part of an OpenAPI v3 schema that `kubectl explain` shows.
type openAPISchema struct {
	Description string                   `json:"description"`
	Properties  map[string]openAPISchema `json:"properties"`
	Items       *openAPISchema           `json:"items"`
	GVK         []struct {
		Group   string `json:"group"`
		Version string `json:"version"`
		Kind    string `json:"kind"`
	} `json:"x-kubernetes-group-version-kind"`
}

// `kubectl explain schedulingprofiles.spec --recursive` reads the OpenAPI v3
// schema the apiserver publishes; the field docs come from the Go comments.
var _ = Describe("the OpenAPI v3 schema the apiserver publishes", func() {
	It("documents every field of SchedulingProfile.spec, as kubectl explain shows it", func(ctx SpecContext) {
		openAPI := discovery.NewDiscoveryClientForConfigOrDie(cfg).OpenAPIV3()
		path := "apis/" + berthv1alpha1.GroupVersion.String()

		// The apiserver publishes a CRD's schema shortly after the CRD is established.
		var profile openAPISchema
		Eventually(func(g Gomega) {
			paths, err := openAPI.Paths()
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(paths).To(HaveKey(path))
			raw, err := paths[path].Schema("application/json")
			g.Expect(err).NotTo(HaveOccurred())
			var doc struct {
				Components struct {
					Schemas map[string]openAPISchema `json:"schemas"`
				} `json:"components"`
			}
			g.Expect(json.Unmarshal(raw, &doc)).To(Succeed())
			found := false
			for _, schema := range doc.Components.Schemas {
				for _, gvk := range schema.GVK {
					if gvk.Group == berthv1alpha1.GroupVersion.Group && gvk.Version == berthv1alpha1.GroupVersion.Version &&
						gvk.Kind == "SchedulingProfile" {
						profile, found = schema, true
					}
				}
			}
			g.Expect(found).To(BeTrue(), "no SchedulingProfile schema in %s", path)
		}).WithContext(ctx).Should(Succeed())

		Expect(profile.Properties).To(HaveKey("spec"))
		spec := profile.Properties["spec"]
		Expect(spec.Description).NotTo(BeEmpty(), "spec")
		for _, field := range []string{"schedulerName", "plugins", "pluginConfig", "percentageOfNodesToScore"} {
			Expect(spec.Properties).To(HaveKey(field))
			Expect(spec.Properties[field].Description).NotTo(BeEmpty(), "spec.%s has no description", field)
		}
		Expect(undocumentedFields("spec", spec)).To(BeEmpty(), "fields of spec without a description")
	})
})

// undocumentedFields lists, recursively, the fields below s that have no description.
func undocumentedFields(path string, s openAPISchema) []string {
	var missing []string
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		field := s.Properties[name]
		fieldPath := path + "." + name
		if strings.TrimSpace(field.Description) == "" {
			missing = append(missing, fieldPath)
		}
		missing = append(missing, undocumentedFields(fieldPath, field)...)
		if field.Items != nil {
			missing = append(missing, undocumentedFields(fmt.Sprintf("%s[]", fieldPath), *field.Items)...)
		}
	}
	return missing
}
