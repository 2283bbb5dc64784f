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

package volumebinding

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/storage/volume"
)

func TestPVAffinity(t *testing.T) {
	req := func(key string, op v1.NodeSelectorOperator, vals ...string) v1.NodeSelectorRequirement {
		return v1.NodeSelectorRequirement{Key: key, Operator: op, Values: vals}
	}
	labelsA := map[string]string{"zone": "a", "disks": "4"}
	tests := []struct {
		name  string
		terms []v1.NodeSelectorTerm // nil: no affinity
		want  bool
	}{
		{name: "no affinity", want: true},
		{name: "matching term", terms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{req("zone", v1.NodeSelectorOpIn, "a")}}}, want: true},
		{name: "terms are ORed", terms: []v1.NodeSelectorTerm{
			{MatchExpressions: []v1.NodeSelectorRequirement{req("zone", v1.NodeSelectorOpIn, "b")}},
			{MatchExpressions: []v1.NodeSelectorRequirement{req("disks", v1.NodeSelectorOpGt, "3")}}}, want: true},
		{name: "expressions are ANDed", terms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{
			req("zone", v1.NodeSelectorOpIn, "a"), req("disks", v1.NodeSelectorOpLt, "3")}}}, want: false},
		{name: "empty term matches nothing", terms: []v1.NodeSelectorTerm{{}}, want: false},
		{name: "bad operator matches nothing", terms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{req("zone", "Near", "a")}}}, want: false},
		{name: "matchFields alone are not evaluated", terms: []v1.NodeSelectorTerm{{MatchFields: []v1.NodeSelectorRequirement{req("metadata.name", v1.NodeSelectorOpIn, "other")}}}, want: true},
		{name: "malformed matchFields match nothing", terms: []v1.NodeSelectorTerm{{MatchFields: []v1.NodeSelectorRequirement{req("metadata.name", v1.NodeSelectorOpIn, "x", "y")}}}, want: false},
		{name: "does not exist", terms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{req("gpu", v1.NodeSelectorOpDoesNotExist)}}}, want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pv := makePV("pv").obj()
			if tc.terms != nil {
				pv.Spec.NodeAffinity = &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: tc.terms}}
			}
			got := newPVAffinity(pv).matches(labelsA)
			if got != tc.want {
				t.Fatalf("matches = %v, want %v", got, tc.want)
			}
			// The same answer as the helper upstream uses.
			if helper := volume.CheckNodeAffinity(pv, labelsA) == nil; helper != got {
				t.Fatalf("volume.CheckNodeAffinity says %v", helper)
			}
		})
	}
}

func TestTopologyAllows(t *testing.T) {
	term := func(kv ...string) v1.TopologySelectorTerm {
		var t v1.TopologySelectorTerm
		for i := 0; i+1 < len(kv); i += 2 {
			t.MatchLabelExpressions = append(t.MatchLabelExpressions, v1.TopologySelectorLabelRequirement{Key: kv[i], Values: []string{kv[i+1]}})
		}
		return t
	}
	node := map[string]string{"zone": "a", "rack": "r1"}
	tests := []struct {
		name  string
		terms []v1.TopologySelectorTerm
		want  bool
	}{
		{name: "no terms", want: true},
		{name: "matching term", terms: []v1.TopologySelectorTerm{term("zone", "a")}, want: true},
		{name: "ANDed expressions", terms: []v1.TopologySelectorTerm{term("zone", "a", "rack", "r2")}, want: false},
		{name: "ORed terms", terms: []v1.TopologySelectorTerm{term("zone", "b"), term("rack", "r1")}, want: true},
		{name: "empty term", terms: []v1.TopologySelectorTerm{{}}, want: false},
		{name: "missing label", terms: []v1.TopologySelectorTerm{term("region", "x")}, want: false},
	}
	for _, tc := range tests {
		if got := topologyAllows(tc.terms, node); got != tc.want {
			t.Errorf("%s: topologyAllows = %v, want %v", tc.name, got, tc.want)
		}
	}
}
