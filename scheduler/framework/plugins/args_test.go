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

package plugins

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/framework/plugins/names"
)

// TestArgsContract checks that every in-tree factory loads its args through
// the one contract: strict decoding, and field errors whose paths are
// relative to the args, so that callers can root them in a profile.
func TestArgsContract(t *testing.T) {
	registry := NewInTreeRegistry()
	t.Run("every plugin refuses an unknown field", func(t *testing.T) {
		for name, factory := range registry {
			_, err := factory(context.Background(), []byte(`{"noSuchField":1}`), nil)
			want := fmt.Sprintf(`decoding args of plugin %s: json: unknown field "noSuchField"`, name)
			if err == nil || err.Error() != want {
				t.Errorf("%s: err = %v, want %q", name, err, want)
			}
		}
	})

	tests := []struct {
		plugin string
		raw    string
		want   []string // the invalid fields, in order
	}{
		{plugin: names.NodeResourcesFit,
			raw:  `{"ignoredResourceGroups":["a/b"],"scoringStrategy":{"type":"Bogus","resources":[{"name":"cpu","weight":101}]}}`,
			want: []string{"ignoredResourceGroups[0]", "scoringStrategy.type", "scoringStrategy.resources[0].weight"}},
		{plugin: names.NodeResourcesFit,
			raw:  `{"scoringStrategy":{"type":"RequestedToCapacityRatio","requestedToCapacityRatio":{"shape":[{"utilization":101,"score":11}]}}}`,
			want: []string{"scoringStrategy.requestedToCapacityRatio.shape[0].utilization", "scoringStrategy.requestedToCapacityRatio.shape[0].score"}},
		{plugin: names.NodeResourcesBalancedAllocation,
			raw:  `{"resources":[{"name":"cpu","weight":2},{"name":"cpu"}]}`,
			want: []string{"resources[0].weight", "resources[1].name"}},
		{plugin: names.NodeAffinity,
			raw: `{"addedAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[` +
				`{"matchExpressions":[{"key":"zone","operator":"Near","values":["a"]}]}]}}}`,
			want: []string{"addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator"}},
		{plugin: names.PodTopologySpread,
			raw:  `{"defaultingType":"List","defaultConstraints":[{"maxSkew":0,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule"}]}`,
			want: []string{"defaultConstraints[0].maxSkew"}},
		{plugin: names.InterPodAffinity, raw: `{"hardPodAffinityWeight":101}`, want: []string{"hardPodAffinityWeight"}},
		{plugin: names.VolumeBinding, raw: `{"bindTimeoutSeconds":-1,"shape":[{"utilization":0,"score":11}]}`,
			want: []string{"bindTimeoutSeconds", "shape[0].score"}},
		{plugin: names.DefaultPreemption, raw: `{"minCandidateNodesPercentage":0,"minCandidateNodesAbsolute":0}`,
			want: []string{"minCandidateNodesPercentage", "minCandidateNodesAbsolute"}},
		{plugin: names.DynamicResources, raw: `{"kind":"Other","filterTimeout":"-1s","bindingTimeout":"0s"}`,
			want: []string{"kind", "filterTimeout", "bindingTimeout"}},
	}
	for _, tt := range tests {
		t.Run(tt.plugin, func(t *testing.T) {
			_, err := registry[tt.plugin](context.Background(), []byte(tt.raw), nil)
			var invalid *args.InvalidError
			if !errors.As(err, &invalid) {
				t.Fatalf("err = %v (%T), want an *args.InvalidError", err, err)
			}
			if invalid.Owner != "plugin "+tt.plugin {
				t.Errorf("owner = %q", invalid.Owner)
			}
			var got []string
			for _, e := range invalid.Errs {
				got = append(got, e.Field)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("invalid fields (-want +got):\n%s", diff)
			}
		})
	}
}
