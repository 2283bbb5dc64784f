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

package validate_test

import (
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/berth-io/berth/internal/manifest"
	"github.com/berth-io/berth/internal/registries"
	"github.com/berth-io/berth/internal/validate"
)

// want is one expected finding: its stage, field and a fragment of its message.
type want struct {
	stage validate.Stage
	field string
	msg   string
}

func newChecker(t *testing.T) *validate.Checker {
	t.Helper()
	c, err := validate.NewChecker(registries.InTree())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// check reads paths and checks their objects together.
func check(t *testing.T, c *validate.Checker, paths ...string) *validate.Report {
	t.Helper()
	set, err := manifest.NewReader().Read(paths)
	if err != nil {
		t.Fatal(err)
	}
	return c.Check(t.Context(), Inputs(set))
}

// Inputs turns documents into the checker's inputs, as berth validate does.
func Inputs(set *manifest.Set) []validate.Input {
	var inputs []validate.Input
	for _, d := range set.Documents {
		o := validate.Origin{File: d.File, Document: d.Index, Documents: d.Count, Line: d.Line}
		if d.Err != nil {
			inputs = append(inputs, validate.Input{Origin: o, Err: d.Err})
			continue
		}
		for i, obj := range d.Objects {
			if d.List {
				o.Item = i + 1
			}
			inputs = append(inputs, validate.Input{Origin: o, Object: obj})
		}
	}
	return inputs
}

func TestCheckGoodCorpus(t *testing.T) {
	r := check(t, newChecker(t), filepath.Join("testdata", "good"))
	for _, f := range r.Findings {
		t.Errorf("unexpected finding: %s: %s: %s", f.Origin, f.Field, f.Message)
	}
	if r.Checked != 13 || r.Skipped != 1 || r.Invalid != 0 {
		t.Errorf("checked %d, skipped %d, invalid %d; want 13, 1, 0", r.Checked, r.Skipped, r.Invalid)
	}
}

func TestCheck(t *testing.T) {
	const (
		input      = validate.StageInput
		schema     = validate.StageSchema
		webhook    = validate.StageWebhook
		controller = validate.StageController
	)
	tests := []struct {
		file string
		want []want
	}{
		// The webhook's checks.
		{"bad/unknown-filter-plugin.yaml", []want{{webhook, "spec.plugins.filter.enabled[0].name",
			`unknown plugin "NoSuchPlugin"; known Filter plugins: DynamicResources, InterPodAffinity,`}}},
		{"bad/unknown-multipoint-plugin.yaml", []want{{webhook, "spec.plugins.multiPoint.enabled[1].name",
			`unknown plugin "Nope"; known plugins: DefaultBinder,`}}},
		{"bad/misplaced-plugin.yaml", []want{{webhook, "spec.plugins.filter.enabled[0].name",
			`does not implement the Filter extension point; it implements PreScore, Score`}}},
		{"bad/args-invalid.yaml", []want{{webhook, "spec.pluginConfig[0].args.scoringStrategy.type", `Unsupported value: "Bogus": supported values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"`}}},
		{"bad/args-unknown-field.yaml", []want{{webhook, "spec.pluginConfig[0].args", `unknown field "scoringStrategyy"`}}},
		{"bad/args-not-enabled.yaml", []want{{webhook, "spec.pluginConfig[0].name", `plugin "ImageLocality" is not enabled`}}},
		{"bad/queue-sort.yaml", []want{
			{webhook, "spec.plugins.queueSort.enabled[0].name", "all profiles share one scheduling queue"},
			{webhook, "spec.plugins.queueSort.enabled[0].name", "does not implement the QueueSort extension point"},
		}},
		{"bad/several-webhook-errors.yaml", []want{
			{webhook, "spec.plugins.filter.enabled[0].name", `unknown plugin "Nope"`},
			{webhook, "spec.plugins.score.enabled[0].name", `unknown plugin "AlsoNope"; known Score plugins:`},
		}},
		{"bad/weight-unknown-plugin.yaml", []want{{webhook, "spec.plugin", `Not found: "NodeResourcesFitt": known Score plugins:`}}},
		{"bad/weight-not-scoring.yaml", []want{{webhook, "spec.plugin", "implements no Score extension point"}}},
		{"bad/shadow-unknown-plugin.yaml", []want{{webhook, "spec.plugins.score.enabled[0].name", `unknown plugin "NodeResourcesFitt"; known Score plugins:`}}},
		// The apiserver's: schema, metadata, CEL rules.
		{"bad/unknown-field.yaml", []want{{schema, "spec.schedulerNmae", "unknown field"}}},
		{"bad/percentage.yaml", []want{{schema, "spec.percentageOfNodesToScore", "should be less than or equal to 100"}}},
		{"bad/backoff-cel.yaml", []want{{schema, "spec", "podInitialBackoffSeconds must not exceed podMaxBackoffSeconds"}}},
		{"bad/duplicate-plugin-cel.yaml", []want{{schema, "spec.plugins.filter.enabled", "at most once per extension point"}}},
		{"bad/bad-name.yaml", []want{{schema, "metadata.name", "RFC 1123 subdomain"}}},
		{"bad/no-name.yaml", []want{{schema, "metadata.name", "name or generateName is required"}, {schema, "", "some validation rules were not checked"}}},
		{"bad/weight-both-refs.yaml", []want{{schema, "spec", "exactly one of profileRef or profileSelector must be set"}}},
		{"bad/weight-out-of-range.yaml", []want{{schema, "spec.weight", "should be greater than or equal to 1"}}},
		{"bad/weight-wrong-type.yaml", []want{{schema, "spec.weight", "must be of type integer"}, {schema, "", "some validation rules were not checked"}}},
		{"bad/rebalance-interval.yaml", []want{{schema, "spec.schedule", "interval must be at least 1m"}}},
		{"bad/shadow-scheduler-name.yaml", []want{{schema, "spec", "a shadow profile serves no schedulerName"}}},
		{"bad/shadow-sample-rate.yaml", []want{
			{schema, "spec.shadowSampleRatePercent", "should be greater than or equal to 1"},
			{schema, "spec", "shadowSampleRatePercent needs shadowOf"},
		}},
		{"bad/shadow-extenders.yaml", []want{{schema, "spec", "a shadow profile cannot call extenders"}}},
		{"bad/extender-key-inline.yaml", []want{{schema, "spec.extenders[0].tlsConfig",
			"keyData would keep a private key in the SchedulingProfile: put tls.crt and tls.key (and ca.crt) in a Secret in Berth's namespace and name it in tlsConfig.secretRef"}}},
		{"bad/shadow-record-decisions.yaml", []want{{schema, "spec", "a shadow profile places no pod: recordDecisions needs a live profile"}}},
		{"bad/record-decisions-range.yaml", []want{{schema, "spec.recordDecisions", "should be less than or equal to 100"}}},
		{"bad/podgroup-min-member.yaml", []want{{schema, "spec.minMember", "should be greater than or equal to 1"}}},
		// The rebalancer's.
		{"bad/rebalance-args.yaml", []want{{controller, "spec.strategies[0].args", `Invalid value: decoding args of strategy PodLifeTime: json: unknown field "maxPodLifeTimeSecondz"`}}},
		{"bad/rebalance-args-invalid.yaml", []want{
			{controller, "spec.strategies[1].args.podRestartThreshold", "Invalid value: 0: must be at least 1"},
			{controller, "spec.strategies[1].args.states[1]", `Invalid value: "Pending": is not one of [Running CrashLoopBackOff]`},
		}},
		// Documents that are not objects Berth knows.
		{"bad/unknown-version.yaml", []want{{input, "", `unknown kind "SchedulingProfile" of apiVersion "scheduling.berth.io/v1beta1"`}}},
		{"bad/unknown-kind.yaml", []want{{input, "", `unknown kind "SchedulingPolicy"`}}},
		{"bad/not-an-object.yaml", []want{{input, "", "not a Kubernetes object: a list, not a mapping"}}},
		{"bad/no-kind.yaml", []want{{input, "", "not a Kubernetes object: no kind"}}},
		{"bad/invalid-yaml.yaml", []want{{input, "", "not valid YAML: yaml: line 5: mapping values are not allowed"}}},
		{"bad/duplicate-key.yaml", []want{{input, "", `line 9: key "weight" already set in map`}}},
		// The controllers', across the objects of one file.
		{"cross/weight-conflict.yaml", []want{{controller, "spec.plugin",
			"Conflict: PluginWeight fit-by-ref, which is older, already sets NodeResourcesFit in SchedulingProfile ml"}}},
		{"cross/scheduler-name-conflict.yaml", []want{{controller, "spec.schedulerName",
			"Conflict: schedulerName gpu is already served by SchedulingProfile gpu"}}},
		{"cross/weight-not-scoring-in-profile.yaml", []want{{controller, "spec.plugin",
			"PluginNotScoring: plugin ImageLocality does not score in SchedulingProfile no-images"}}},
		{"cross/invalid-selector.yaml", []want{{controller, "spec.profileSelector", `"Bogus" is not a valid label selector operator`}}},
		{"cross/duplicate.yaml", []want{{input, "metadata.name", "duplicate.yaml (document 1) already defines this PodGroup"}}},
		{"cross/invalid-profile-frees-weight.yaml", []want{{webhook, "spec.plugins.filter.enabled[0].name", `unknown plugin "Nope"`}}},
	}
	c := newChecker(t)
	seen := make(map[string]bool)
	for _, tc := range tests {
		seen[tc.file] = true
		t.Run(tc.file, func(t *testing.T) {
			r := check(t, c, filepath.Join("testdata", tc.file))
			if len(r.Findings) != len(tc.want) {
				t.Fatalf("got %d findings, want %d: %+v", len(r.Findings), len(tc.want), r.Findings)
			}
			for i, w := range tc.want {
				f := r.Findings[i]
				if f.Stage != w.stage || f.Field != w.field || !strings.Contains(f.Message, w.msg) {
					t.Errorf("finding %d = %s %q: %q; want %s %q containing %q", i, f.Stage, f.Field, f.Message, w.stage, w.field, w.msg)
				}
			}
		})
	}
	// Every file of the corpus has its row.
	for _, dir := range []string{"bad", "cross"} {
		files, err := filepath.Glob(filepath.Join("testdata", dir, "*"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if rel := dir + "/" + filepath.Base(f); !seen[rel] {
				t.Errorf("testdata/%s has no row in TestCheck", rel)
			}
		}
	}
}

// TestCheckFindingsNameTheirObject checks the object and origin of findings in a multi-document file.
func TestCheckFindingsNameTheirObject(t *testing.T) {
	r := check(t, newChecker(t), filepath.Join("testdata", "cross", "duplicate.yaml"))
	if len(r.Findings) != 1 {
		t.Fatalf("findings %+v, want one", r.Findings)
	}
	f := r.Findings[0]
	if f.Kind != "PodGroup" || f.Namespace != "ml" || f.Name != "gang" || f.Origin.Document != 2 || f.Origin.Line != 9 {
		t.Errorf("finding %+v, want PodGroup ml/gang in document 2 at line 9", f)
	}
	if got, want := f.Origin.String(), filepath.Join("testdata", "cross", "duplicate.yaml")+" (document 2)"; got != want {
		t.Errorf("origin %q, want %q", got, want)
	}
	if r.Checked != 3 || r.Invalid != 1 {
		t.Errorf("checked %d, invalid %d; want 3, 1", r.Checked, r.Invalid)
	}
}

// TestCheckAppliesDefaults checks that objects come out as the apiserver stores them.
func TestCheckAppliesDefaults(t *testing.T) {
	set, err := manifest.NewReader().Read([]string{filepath.Join("testdata", "good", "profile-default.yaml")})
	if err != nil {
		t.Fatal(err)
	}
	inputs := Inputs(set)
	if r := newChecker(t).Check(t.Context(), inputs); len(r.Findings) > 0 {
		t.Fatalf("findings %+v", r.Findings)
	}
	obj := inputs[0].Object
	if got, _, _ := unstructured.NestedInt64(obj.Object, "spec", "podMaxBackoffSeconds"); got != 10 {
		t.Errorf("podMaxBackoffSeconds = %d, want the CRD default 10", got)
	}
	if obj.GetGeneration() != 1 {
		t.Errorf("generation = %d, want 1", obj.GetGeneration())
	}
}
