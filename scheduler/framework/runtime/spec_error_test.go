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

package runtime

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/framework"
)

// TestSpecErrors checks that each compile error says which field of the
// spec it is about, and of what kind it is, with its text unchanged.
func TestSpecErrors(t *testing.T) {
	argsErr := errors.New("bad args")
	r := registryOf(append(basics(), filterPlugin{&fake{name: "FilterA"}}, scorePlugin{&fake{name: "ScoreS"}})...)
	r["Bad"] = func(context.Context, []byte, framework.Handle) (framework.Plugin, error) { return nil, argsErr }
	type got struct {
		Field, Text, Point, Plugin string
		Kind                       args.SpecErrorKind
	}
	tests := []struct {
		name string
		spec v1alpha1.SchedulingProfileSpec
		want []got
	}{{
		name: "unknown plugin, at its place in the list",
		spec: v1alpha1.SchedulingProfileSpec{Plugins: &v1alpha1.Plugins{Filter: enable("FilterA", "Nope")}},
		want: []got{{Field: "spec.plugins.filter.enabled[1].name", Text: `Filter: unknown plugin "Nope"`, Point: "Filter", Plugin: "Nope", Kind: args.SpecUnknownPlugin}},
	}, {
		name: "a plugin where it does not run",
		spec: v1alpha1.SchedulingProfileSpec{Plugins: &v1alpha1.Plugins{Score: enable("FilterA")}},
		want: []got{{Field: "spec.plugins.score.enabled[0].name", Text: `Score: plugin "FilterA" does not implement the Score extension point`,
			Point: "Score", Plugin: "FilterA", Kind: args.SpecNotImplemented}},
	}, {
		name: "args of a plugin not enabled",
		spec: v1alpha1.SchedulingProfileSpec{PluginConfig: []v1alpha1.PluginConfig{{Name: "ScoreS"}}},
		want: []got{{Field: "spec.pluginConfig[0].name", Text: `pluginConfig: plugin "ScoreS" is not enabled`}},
	}, {
		name: "args the factory refuses",
		spec: v1alpha1.SchedulingProfileSpec{
			Plugins:      &v1alpha1.Plugins{MultiPoint: enable("Bad")},
			PluginConfig: []v1alpha1.PluginConfig{{Name: "Bad", Args: runtime.RawExtension{Raw: []byte(`{}`)}}},
		},
		want: []got{{Field: "spec.pluginConfig[0].args", Text: `initializing plugin "Bad": bad args`, Plugin: "Bad", Kind: args.SpecInvalidArgs}},
	}, {
		name: "a field of its own",
		spec: v1alpha1.SchedulingProfileSpec{PercentageOfNodesToScore: ptr.To(int32(101))},
		want: []got{{Field: "spec.percentageOfNodesToScore", Text: "percentageOfNodesToScore 101 is not in [0, 100]"}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewFramework(context.Background(), r, "prof", &tt.spec, WithDefaultPlugins(basicsSet()))
			var out []got
			var visit func(error)
			visit = func(err error) {
				var se *args.SpecError
				switch {
				case err == nil:
				case errors.As(err, &se):
					out = append(out, got{Field: se.Field(field.NewPath("spec")).String(), Text: se.Error(), Point: se.Point, Plugin: se.Plugin, Kind: se.Kind})
				default:
					if joined, ok := err.(interface{ Unwrap() []error }); ok {
						for _, e := range joined.Unwrap() {
							visit(e)
						}
						return
					}
					visit(errors.Unwrap(err))
				}
			}
			visit(err)
			if diff := cmp.Diff(tt.want, out); diff != "" {
				t.Errorf("spec errors (-want +got):\n%s\nfrom %v", diff, err)
			}
		})
	}
}
