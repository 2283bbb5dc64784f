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

package crd

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// project is what TestProjectMatchesTheTree reads of PROJECT.
type project struct {
	Domain    string   `json:"domain"`
	Layout    []string `json:"layout"`
	Resources []struct {
		API *struct {
			Namespaced bool `json:"namespaced"`
		} `json:"api"`
		Group    string `json:"group"`
		Kind     string `json:"kind"`
		Version  string `json:"version"`
		Webhooks *struct {
			Validation bool `json:"validation"`
		} `json:"webhooks"`
	} `json:"resources"`
}

// resource is one API resource as PROJECT describes it.
type resource struct {
	GroupKindVersion string
	Namespaced       bool
	Validated        bool
}

// TestProjectMatchesTheTree checks that PROJECT lists exactly the CRDs the
// tree generates, with their scope and their validating webhooks, and
// declares no kubebuilder layout the tree does not follow.
func TestProjectMatchesTheTree(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "PROJECT"))
	if err != nil {
		t.Fatal(err)
	}
	var p project
	if err := yaml.Unmarshal(raw, &p); err != nil {
		t.Fatalf("PROJECT: %v", err)
	}
	if len(p.Layout) > 0 {
		t.Errorf("PROJECT declares the layout %v, which the tree does not follow", p.Layout)
	}
	var declared []resource
	for _, r := range p.Resources {
		declared = append(declared, resource{
			GroupKindVersion: r.Group + "." + p.Domain + "/" + r.Kind + "/" + r.Version,
			Namespaced:       r.API != nil && r.API.Namespaced,
			Validated:        r.Webhooks != nil && r.Webhooks.Validation,
		})
	}

	validated := webhookResources(t)
	crds, err := CRDs()
	if err != nil {
		t.Fatal(err)
	}
	var generated []resource
	for _, crd := range crds {
		for _, v := range crd.Spec.Versions {
			generated = append(generated, resource{
				GroupKindVersion: crd.Spec.Group + "/" + crd.Spec.Names.Kind + "/" + v.Name,
				Namespaced:       crd.Spec.Scope == apiextensionsv1.NamespaceScoped,
				Validated:        slices.Contains(validated, crd.Spec.Group+"/"+crd.Spec.Names.Plural),
			})
		}
	}
	byName := func(a, b resource) int { return strings.Compare(a.GroupKindVersion, b.GroupKindVersion) }
	slices.SortFunc(declared, byName)
	slices.SortFunc(generated, byName)
	if diff := cmp.Diff(generated, declared); diff != "" {
		t.Errorf("PROJECT's resources (-generated +declared):\n%s", diff)
	}
}

// webhookResources returns group/resource of every resource the generated
// validating webhook configuration covers.
func webhookResources(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "webhook", "manifests.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, doc := range strings.Split(string(raw), "\n---\n") {
		var cfg admissionregistrationv1.ValidatingWebhookConfiguration
		if err := yaml.Unmarshal([]byte(doc), &cfg); err != nil {
			t.Fatalf("config/webhook/manifests.yaml: %v", err)
		}
		for _, w := range cfg.Webhooks {
			for _, rule := range w.Rules {
				for _, g := range rule.APIGroups {
					for _, r := range rule.Resources {
						out = append(out, g+"/"+r)
					}
				}
			}
		}
	}
	return out
}
