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

package webhook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/berth-io/berth/api/v1alpha1"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// want is one expected field error: its path and a fragment of its message.
type want struct{ field, msg string }

func TestValidateProfile(t *testing.T) {
	tests := []struct {
		name    string
		profile *v1alpha1.SchedulingProfile
		want    []want
	}{
		{name: "empty spec is the default profile", profile: st.Profile("default-scheduler").Obj()},
		{
			name: "bin packing with args",
			profile: st.Profile("bin-packing").Weight("multiPoint", "NodeResourcesFit", 3).
				Disable("score", "NodeResourcesBalancedAllocation").
				PluginArgs("NodeResourcesFit", `{"scoringStrategy":{"type":"MostAllocated"}}`).Obj(),
		},
		{
			name:    "unknown plugin",
			profile: st.Profile("p").Enable("filter", "NodeRsourcesFit").Obj(),
			want: []want{{"spec.plugins.filter.enabled[0].name",
				`unknown plugin "NodeRsourcesFit"; known Filter plugins: DynamicResources, InterPodAffinity, LoadAwareScheduling, NodeAffinity,`}},
		},
		{
			name:    "unknown plugin through multiPoint",
			profile: st.Profile("p").Enable("multiPoint", "Nope").Obj(),
			want:    []want{{"spec.plugins.multiPoint.enabled[0].name", `unknown plugin "Nope"; known plugins: DefaultBinder, DefaultPreemption,`}},
		},
		{
			name:    "args that do not validate",
			profile: st.Profile("p").PluginArgs("NodeResourcesFit", `{"scoringStrategy":{"type":"Bogus"}}`).Obj(),
			want:    []want{{"spec.pluginConfig[0].args.scoringStrategy.type", `Unsupported value: "Bogus": supported values: "LeastAllocated", "MostAllocated"`}},
		},
		{
			name:    "args that do not decode",
			profile: st.Profile("p").PluginArgs("NodeResourcesFit", `{"scoringStrategyy":{}}`).Obj(),
			want:    []want{{"spec.pluginConfig[0].args", `unknown field "scoringStrategyy"`}},
		},
		{
			name:    "args of a plugin that is not enabled",
			profile: st.Profile("p").Disable("multiPoint", "ImageLocality").PluginArgs("ImageLocality", `{}`).Obj(),
			want:    []want{{"spec.pluginConfig[0].name", `plugin "ImageLocality" is not enabled`}},
		},
		{
			name:    "plugin at an extension point it does not implement",
			profile: st.Profile("p").Enable("score", "NodeName").Obj(),
			want: []want{{"spec.plugins.score.enabled[0].name",
				`plugin "NodeName" does not implement the Score extension point; it implements PreFilter, Filter`}},
		},
		{
			name:    "percentage out of range",
			profile: st.Profile("p").Percentage(101).Obj(),
			want:    []want{{"spec.percentageOfNodesToScore", "is not in [0, 100]"}},
		},
		{
			name:    "another QueueSort at the QueueSort point",
			profile: st.Profile("p").Disable("queueSort", "PrioritySort").Enable("queueSort", "FifoSort").Obj(),
			want:    []want{{"spec.plugins.queueSort.enabled[0].name", "all profiles share one scheduling queue"}},
		},
		{
			name:    "another QueueSort through multiPoint",
			profile: st.Profile("p").Disable("queueSort", "PrioritySort").Enable("multiPoint", "FifoSort").Obj(),
			want:    []want{{"spec.plugins", `plugin "FifoSort" would sort the queue: all profiles share one scheduling queue`}},
		},
		{
			name: "several errors at once",
			profile: st.Profile("p").Enable("filter", "Nope").Enable("score", "AlsoNope").
				Enable("queueSort", "FifoSort").Obj(),
			want: []want{
				{"spec.plugins.queueSort.enabled[0].name", "all profiles share one scheduling queue"},
				{"spec.plugins.filter.enabled[0].name", `unknown plugin "Nope"`},
				{"spec.plugins.score.enabled[0].name", `unknown plugin "AlsoNope"; known Score plugins: DynamicResources, ImageLocality,`},
			},
		},
		{
			name: "several args errors at once",
			profile: st.Profile("p").PluginArgs("NodeResourcesFit", `{"scoringStrategy":{"type":"Bogus"}}`).
				PluginArgs("InterPodAffinity", `{"hardPodAffinityWeight":200}`).Obj(),
			want: []want{
				{"spec.pluginConfig[0].args.scoringStrategy.type", `Unsupported value: "Bogus"`},
				{"spec.pluginConfig[1].args.hardPodAffinityWeight", `Invalid value: 200: not in valid range [0, 100]`},
			},
		},
		{
			name:    "DynamicResources args as upstream writes them",
			profile: st.Profile("p").PluginArgs("DynamicResources", `{"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"DynamicResourcesArgs","filterTimeout":"0s","bindingTimeout":"1s"}`).Obj(),
		},
		{
			name:    "DynamicResources filterTimeout negative",
			profile: st.Profile("p").PluginArgs("DynamicResources", `{"filterTimeout":"-1s"}`).Obj(),
			want:    []want{{"spec.pluginConfig[0].args.filterTimeout", `Invalid value: "-1s": must be zero or positive`}},
		},
		{
			name:    "DynamicResources bindingTimeout under a second",
			profile: st.Profile("p").PluginArgs("DynamicResources", `{"bindingTimeout":"999ms"}`).Obj(),
			want:    []want{{"spec.pluginConfig[0].args.bindingTimeout", `Invalid value: "999ms": must be at least 1 second`}},
		},
		{
			name:    "DynamicResources args of another kind",
			profile: st.Profile("p").PluginArgs("DynamicResources", `{"kind":"VolumeBindingArgs"}`).Obj(),
			want:    []want{{"spec.pluginConfig[0].args.kind", `Invalid value: "VolumeBindingArgs": must be DynamicResourcesArgs`}},
		},
		{
			name:    "DynamicResources args while the plugin is disabled",
			profile: st.Profile("p").Disable("multiPoint", "DynamicResources").PluginArgs("DynamicResources", `{"filterTimeout":"5s"}`).Obj(),
			want:    []want{{"spec.pluginConfig[0].name", `plugin "DynamicResources" is not enabled`}},
		},
		{
			name: "an extender's client key inline is refused",
			profile: st.Profile("p").Extender(v1alpha1.Extender{URLPrefix: "https://x:8443", FilterVerb: "filter", EnableHTTPS: true,
				TLSConfig: &v1alpha1.ExtenderTLSConfig{CertData: []byte("cert"), KeyData: []byte("key")}}).Obj(),
			want: []want{
				{"spec.extenders[0].tlsConfig.keyData", "Forbidden: a private key is not kept in a SchedulingProfile, which is cluster-scoped and often in git: " +
					"put the client certificate and its key in a Secret in Berth's namespace (keys tls.crt and tls.key, and ca.crt for the authorities) and name it in tlsConfig.secretRef"},
				{"spec.extenders[0].tlsConfig.certData", "the certificate goes with its key"},
			},
		},
		{
			name: "an extender's client certificate from a Secret, its CA inline",
			profile: st.Profile("p").Extender(v1alpha1.Extender{URLPrefix: "https://x:8443", FilterVerb: "filter", EnableHTTPS: true,
				TLSConfig: &v1alpha1.ExtenderTLSConfig{CAData: testCA(t), SecretRef: &v1alpha1.SecretReference{Namespace: "berth-system", Name: "x-tls"}}}).Obj(),
		},
	}
	v := NewValidator(testRegistry())
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := v.ValidateProfile(t.Context(), tc.profile)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d errors, want %d: %v", len(got), len(tc.want), got)
			}
			for i, w := range tc.want {
				if got[i].Field != w.field || !strings.Contains(got[i].Error(), w.msg) {
					t.Errorf("error %d = %q, want field %q and message containing %q", i, got[i].Error(), w.field, w.msg)
				}
			}
		})
	}
}

func TestValidatePluginWeight(t *testing.T) {
	tests := []struct {
		name   string
		weight *v1alpha1.PluginWeight
		want   []want
	}{
		{name: "score plugin", weight: makeWeight("w", "NodeResourcesFit", 5)},
		{name: "score plugin asked twice uses the cache", weight: makeWeight("w", "NodeResourcesFit", 7)},
		{name: "unknown plugin", weight: makeWeight("w", "NodeResourcesFitt", 5),
			want: []want{{"spec.plugin", `Not found: "NodeResourcesFitt": known Score plugins: DynamicResources, ImageLocality,`}}},
		{name: "filter-only plugin", weight: makeWeight("w", "NodeName", 5),
			want: []want{{"spec.plugin", "implements no Score extension point"}}},
		{name: "queue sort plugin", weight: makeWeight("w", "FifoSort", 5),
			want: []want{{"spec.plugin", "implements no Score extension point"}}},
	}
	v := NewValidator(testRegistry())
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := v.ValidatePluginWeight(t.Context(), tc.weight)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d errors, want %d: %v", len(got), len(tc.want), got)
			}
			for i, w := range tc.want {
				if got[i].Field != w.field || !strings.Contains(got[i].Error(), w.msg) {
					t.Errorf("error %d = %q, want field %q and message containing %q", i, got[i].Error(), w.field, w.msg)
				}
			}
		})
	}
}

// TestSamplesAreAccepted keeps the samples users copy valid.
func TestSamplesAreAccepted(t *testing.T) {
	v := NewValidator(testRegistry())
	samples := filepath.Join("..", "..", "config", "samples")
	var profile v1alpha1.SchedulingProfile
	readYAML(t, filepath.Join(samples, "scheduling_v1alpha1_schedulingprofile.yaml"), &profile)
	if errs := v.ValidateProfile(t.Context(), &profile); len(errs) > 0 {
		t.Errorf("sample profile rejected: %v", errs)
	}
	var weight v1alpha1.PluginWeight
	readYAML(t, filepath.Join(samples, "scheduling_v1alpha1_pluginweight.yaml"), &weight)
	if errs := v.ValidatePluginWeight(t.Context(), &weight); len(errs) > 0 {
		t.Errorf("sample weight rejected: %v", errs)
	}
}

func readYAML(t *testing.T, path string, out any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(data, out); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// testCA is the PEM certificate of a fresh CA.
func testCA(t *testing.T) []byte {
	t.Helper()
	ca, err := st.NewCA("test-ca")
	if err != nil {
		t.Fatal(err)
	}
	return ca.PEM()
}
