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
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/berth-io/berth/api/v1alpha1"
)

func TestCRDs(t *testing.T) {
	crds, err := CRDs()
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name  string
		kind  string
		scope apiextensionsv1.ResourceScope
	}{
		{"pluginweights.scheduling.berth.io", "PluginWeight", apiextensionsv1.ClusterScoped},
		{"podgroups.scheduling.berth.io", "PodGroup", apiextensionsv1.NamespaceScoped},
		{"rebalancepolicies.scheduling.berth.io", "RebalancePolicy", apiextensionsv1.ClusterScoped},
		{"schedulingprofiles.scheduling.berth.io", "SchedulingProfile", apiextensionsv1.ClusterScoped},
	}
	if len(crds) != len(want) {
		t.Fatalf("got %d CRDs, want %d", len(crds), len(want))
	}
	for i, w := range want {
		crd := crds[i]
		if crd.Name != w.name || crd.Spec.Names.Kind != w.kind || crd.Spec.Scope != w.scope {
			t.Errorf("CRD %d = %s (%s, %s), want %s (%s, %s)", i, crd.Name, crd.Spec.Names.Kind, crd.Spec.Scope, w.name, w.kind, w.scope)
		}
		if crd.Spec.Group != v1alpha1.GroupVersion.Group {
			t.Errorf("%s: group %q, want %q", crd.Name, crd.Spec.Group, v1alpha1.GroupVersion.Group)
		}
		served := false
		for _, v := range crd.Spec.Versions {
			if v.Name == v1alpha1.GroupVersion.Version && v.Served && v.Storage {
				served = v.Schema != nil && v.Schema.OpenAPIV3Schema != nil && v.Subresources != nil && v.Subresources.Status != nil
			}
		}
		if !served {
			t.Errorf("%s: no served storage version %s with a schema and a status subresource", crd.Name, v1alpha1.GroupVersion.Version)
		}
	}
}

func TestCRDsReturnsFreshObjects(t *testing.T) {
	first, err := CRDs()
	if err != nil {
		t.Fatal(err)
	}
	first[0].Name = "changed"
	second, err := CRDs()
	if err != nil {
		t.Fatal(err)
	}
	if second[0].Name == "changed" {
		t.Error("a change to a returned CRD leaked into the next call")
	}
}
