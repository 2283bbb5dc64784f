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
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
)

func TestRegistry(t *testing.T) {
	factory := func(context.Context, []byte, framework.Handle) (framework.Plugin, error) { return nil, nil }
	r := Registry{}
	if err := r.Register("A", factory); err != nil {
		t.Fatal(err)
	}
	if err := r.Register("A", factory); err == nil || !strings.Contains(err.Error(), `"A"`) {
		t.Errorf("duplicate Register: err = %v", err)
	}
	if err := r.Merge(Registry{"B": factory, "A": factory}); err == nil {
		t.Error("Merge with a duplicate: want an error")
	}
	if _, ok := r["B"]; ok {
		t.Error("a failed Merge must leave the registry unchanged")
	}
	if err := r.Merge(Registry{"B": factory, "C": factory}); err != nil || len(r) != 3 {
		t.Errorf("Merge: err %v, len %d", err, len(r))
	}
}

// TestDefaultPlugins pins the default profile: upstream v1.37's set and
// weights, then the workload plugins upstream adds with its
// GenericWorkload and TopologyAwareWorkloadScheduling gates.
func TestDefaultPlugins(t *testing.T) {
	d := DefaultPlugins()
	var got []string
	weights := map[string]int32{}
	for _, p := range d.MultiPoint.Enabled {
		got = append(got, p.Name)
		if p.Weight != nil {
			weights[p.Name] = *p.Weight
		}
	}
	want := []string{SchedulingGates, PrioritySort, NodeName, NodeUnschedulable, TaintToleration, NodeAffinity, NodePorts,
		NodeResourcesFit, VolumeRestrictions, NodeVolumeLimits, VolumeBinding, VolumeZone, PodTopologySpread,
		InterPodAffinity, DynamicResources, DefaultPreemption, NodeResourcesBalancedAllocation, ImageLocality,
		DefaultBinder, NodeDeclaredFeatures, GangScheduling, TopologyPlacementGenerator, PodGroupPodsCount}
	if !slices.Equal(got, want) {
		t.Errorf("default MultiPoint = %v\nwant %v", got, want)
	}
	wantWeights := map[string]int32{TaintToleration: 3, NodeAffinity: 2, NodeResourcesFit: 1, PodTopologySpread: 2,
		InterPodAffinity: 2, DynamicResources: 2, NodeResourcesBalancedAllocation: 1, ImageLocality: 1, PodGroupPodsCount: 1}
	if len(weights) != len(wantWeights) {
		t.Errorf("weights = %v, want %v", weights, wantWeights)
	}
	for n, w := range wantWeights {
		if weights[n] != w {
			t.Errorf("weight of %s = %d, want %d", n, weights[n], w)
		}
	}
	d.MultiPoint.Enabled[0].Name = "changed"
	if DefaultPlugins().MultiPoint.Enabled[0].Name != SchedulingGates {
		t.Error("DefaultPlugins must return a fresh value each call")
	}
}

// at returns the names of the plugins that run at an extension point, in order.
func at(f *Framework, point string) []string {
	var out []string
	add := func(p framework.Plugin) { out = append(out, p.Name()) }
	switch point {
	case "PreEnqueue":
		for _, p := range f.preEnqueue {
			add(p)
		}
	case "PreFilter":
		for _, p := range f.preFilter {
			add(p)
		}
	case "Filter":
		for _, p := range f.filter {
			add(p)
		}
	case "PostFilter":
		for _, p := range f.postFilter {
			add(p)
		}
	case "PreScore":
		for _, p := range f.preScore {
			add(p)
		}
	case "Score":
		for _, p := range f.score {
			add(p)
		}
	case "Permit":
		for _, p := range f.permit {
			add(p)
		}
	case "Bind":
		for _, p := range f.bind {
			add(p)
		}
	}
	return out
}

func TestNewFrameworkBuildsProfiles(t *testing.T) {
	filterA := filterPlugin{&fake{name: "FilterA"}}
	filterB := filterPlugin{&fake{name: "FilterB"}}
	filterOnlyC := filterOnly{&fake{name: "FilterC"}}
	scoreS := scorePlugin{&fake{name: "ScoreS"}}
	both := filterScorePlugin{filterPlugin{&fake{name: "Both"}}, scorePlugin{&fake{name: "Both"}}}
	binder2 := bindPlugin{&fake{name: "Binder2"}}
	sort2 := queueSortPlugin{&fake{name: "Sort2"}}
	all := append(basics(), filterA, filterB, filterOnlyC, scoreS, both, binder2, sort2)

	tests := []struct {
		name     string
		registry []framework.Plugin
		defaults *v1alpha1.Plugins
		spec     v1alpha1.SchedulingProfileSpec
		// want maps an extension point to the plugins expected there, in order.
		want        map[string][]string
		wantWeights map[string]int32
		wantSkipped []string
		wantErr     []string
	}{
		{
			name:     "defaults only",
			registry: all,
			defaults: basicsSet(v1alpha1.Plugin{Name: "FilterA"}, weighted("Both", 3), v1alpha1.Plugin{Name: "ScoreS"}),
			want: map[string][]string{"PreFilter": {"FilterA", "Both"}, "Filter": {"FilterA", "Both"},
				"Score": {"Both", "ScoreS"}, "Bind": {"Binder"}},
			wantWeights: map[string]int32{"Both": 3, "ScoreS": 1},
		},
		{
			name:        "real default set: unregistered defaults are skipped",
			registry:    []framework.Plugin{queueSortPlugin{&fake{name: PrioritySort}}, bindPlugin{&fake{name: DefaultBinder}}, filterScorePlugin{filterPlugin{&fake{name: TaintToleration}}, scorePlugin{&fake{name: TaintToleration}}}},
			want:        map[string][]string{"Filter": {TaintToleration}, "Score": {TaintToleration}, "Bind": {DefaultBinder}},
			wantWeights: map[string]int32{TaintToleration: 3},
			wantSkipped: []string{SchedulingGates, NodeName, NodeUnschedulable, NodeAffinity, NodePorts, NodeResourcesFit,
				VolumeRestrictions, NodeVolumeLimits, VolumeBinding, VolumeZone, PodTopologySpread, InterPodAffinity,
				DynamicResources, DefaultPreemption, NodeResourcesBalancedAllocation, ImageLocality, NodeDeclaredFeatures, GangScheduling, TopologyPlacementGenerator, PodGroupPodsCount},
		},
		{
			name:     "multiPoint adds a plugin and re-weights a default in place",
			registry: all,
			defaults: basicsSet(v1alpha1.Plugin{Name: "FilterA"}, weighted("Both", 3)),
			spec: v1alpha1.SchedulingProfileSpec{Plugins: &v1alpha1.Plugins{MultiPoint: &v1alpha1.PluginSet{
				Enabled: []v1alpha1.Plugin{weighted("ScoreS", 7), weighted("Both", 5)}}}},
			want:        map[string][]string{"Filter": {"FilterA", "Both"}, "Score": {"Both", "ScoreS"}},
			wantWeights: map[string]int32{"Both": 5, "ScoreS": 7},
		},
		{
			name:     "multiPoint disabled * keeps only the profile's plugins",
			registry: all,
			defaults: basicsSet(v1alpha1.Plugin{Name: "FilterA"}, weighted("Both", 3)),
			spec: v1alpha1.SchedulingProfileSpec{Plugins: &v1alpha1.Plugins{MultiPoint: &v1alpha1.PluginSet{
				Disabled: []v1alpha1.Plugin{{Name: "*"}},
				Enabled:  []v1alpha1.Plugin{{Name: "Sort"}, {Name: "Binder2"}, {Name: "FilterB"}}}}},
			want: map[string][]string{"Filter": {"FilterB"}, "Score": nil, "Bind": {"Binder2"}},
		},
		{
			name:     "a point's disabled list removes a MultiPoint plugin there only",
			registry: all,
			defaults: basicsSet(weighted("Both", 3)),
			spec: v1alpha1.SchedulingProfileSpec{Plugins: &v1alpha1.Plugins{
				Score: &v1alpha1.PluginSet{Disabled: []v1alpha1.Plugin{{Name: "Both"}}}}},
			// As upstream, disabling Score leaves PreScore running.
			want: map[string][]string{"Filter": {"Both"}, "PreScore": {"Both"}, "Score": nil},
		},
		{
			name:     "filter disabled * skips MultiPoint expansion at Filter",
			registry: all,
			defaults: basicsSet(v1alpha1.Plugin{Name: "FilterA"}, v1alpha1.Plugin{Name: "Both"}),
			spec: v1alpha1.SchedulingProfileSpec{Plugins: &v1alpha1.Plugins{
				Filter: &v1alpha1.PluginSet{Disabled: []v1alpha1.Plugin{{Name: "*"}}, Enabled: []v1alpha1.Plugin{{Name: "FilterC"}}}}},
			want: map[string][]string{"PreFilter": {"FilterA", "Both"}, "Filter": {"FilterC"}, "Score": {"Both"}},
		},
		{
			name:     "a point's setting overrides MultiPoint: order and weight",
			registry: all,
			defaults: basicsSet(v1alpha1.Plugin{Name: "FilterA"}, weighted("Both", 3), v1alpha1.Plugin{Name: "ScoreS"}),
			spec: v1alpha1.SchedulingProfileSpec{Plugins: &v1alpha1.Plugins{
				Filter: enable("FilterC", "Both"),
				Score:  &v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{weighted("ScoreS", 9)}}}},
			want:        map[string][]string{"Filter": {"Both", "FilterA", "FilterC"}, "Score": {"ScoreS", "Both"}},
			wantWeights: map[string]int32{"Both": 3, "ScoreS": 9},
		},
		{
			name:     "explicit enable at a point the plugin does not implement",
			registry: all,
			defaults: basicsSet(),
			spec:     v1alpha1.SchedulingProfileSpec{Plugins: &v1alpha1.Plugins{Score: enable("FilterA")}},
			wantErr:  []string{`Score: plugin "FilterA" does not implement the Score extension point`},
		},
		{
			name:     "unknown plugins are all reported",
			registry: all,
			defaults: basicsSet(),
			spec: v1alpha1.SchedulingProfileSpec{Plugins: &v1alpha1.Plugins{
				MultiPoint: enable("Nope"), Filter: enable("AlsoNope")}},
			wantErr: []string{`MultiPoint: unknown plugin "Nope"`, `Filter: unknown plugin "AlsoNope"`},
		},
		{
			name:     "a profile re-enabling an unregistered default is an error",
			registry: basics(),
			defaults: basicsSet(v1alpha1.Plugin{Name: "Missing"}),
			spec:     v1alpha1.SchedulingProfileSpec{Plugins: &v1alpha1.Plugins{MultiPoint: enable("Missing")}},
			wantErr:  []string{`unknown plugin "Missing"`},
		},
		{
			name:     "pluginConfig for a plugin that is not enabled",
			registry: all,
			defaults: basicsSet(),
			spec:     v1alpha1.SchedulingProfileSpec{PluginConfig: []v1alpha1.PluginConfig{{Name: "FilterA"}}},
			wantErr:  []string{`pluginConfig: plugin "FilterA" is not enabled`},
		},
		{
			name:     "no queue sort and two binders",
			registry: all,
			defaults: &v1alpha1.Plugins{MultiPoint: enable("Binder", "Binder2")},
			want:     map[string][]string{"Bind": {"Binder", "Binder2"}},
			wantErr:  []string{"QueueSort: exactly one plugin must be enabled, got 0"},
		},
		{
			name:     "two queue sorts",
			registry: all,
			defaults: basicsSet(v1alpha1.Plugin{Name: "Sort2"}),
			wantErr:  []string{"QueueSort: exactly one plugin must be enabled, got 2"},
		},
		{
			name:     "no binder",
			registry: all,
			defaults: &v1alpha1.Plugins{MultiPoint: enable("Sort")},
			wantErr:  []string{"Bind: at least one plugin must be enabled"},
		},
		{
			name:     "a plugin enabled twice at one point",
			registry: all,
			defaults: basicsSet(),
			spec:     v1alpha1.SchedulingProfileSpec{Plugins: &v1alpha1.Plugins{Filter: enable("FilterA", "FilterA")}},
			wantErr:  []string{`Filter: plugin "FilterA" is enabled more than once`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var opts []Option
			if tc.defaults != nil {
				opts = append(opts, WithDefaultPlugins(tc.defaults))
			}
			f, err := NewFramework(context.Background(), registryOf(tc.registry...), "prof", &tc.spec, opts...)
			if len(tc.wantErr) > 0 {
				if err == nil {
					t.Fatal("want an error")
				}
				for _, w := range tc.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q\ndoes not contain %q", err, w)
					}
				}
				if !strings.Contains(err.Error(), `profile "prof"`) {
					t.Errorf("error %q does not name the profile", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for point, want := range tc.want {
				if got := at(f, point); !slices.Equal(got, want) {
					t.Errorf("%s = %v, want %v", point, got, want)
				}
			}
			gotWeights := map[string]int32{}
			for _, p := range f.ListPlugins() {
				if p.Weight != 0 {
					gotWeights[p.Name] = p.Weight
				}
			}
			for n, w := range tc.wantWeights {
				if gotWeights[n] != w {
					t.Errorf("weight of %s = %d, want %d (all: %v)", n, gotWeights[n], w, gotWeights)
				}
			}
			if !slices.Equal(f.SkippedDefaultPlugins(), tc.wantSkipped) {
				t.Errorf("skipped = %v, want %v", f.SkippedDefaultPlugins(), tc.wantSkipped)
			}
		})
	}
}

func TestNewFrameworkPassesArgsAndBuildsOnce(t *testing.T) {
	builds := map[string]int{}
	var gotArgs []byte
	p := filterScorePlugin{filterPlugin{&fake{name: "P"}}, scorePlugin{&fake{name: "P"}}}
	r := registryOf(basics()...)
	r["P"] = func(_ context.Context, args []byte, h framework.Handle) (framework.Plugin, error) {
		builds["P"]++
		gotArgs = args
		if h.ProfileName() != "prof" {
			t.Errorf("handle's profile = %q", h.ProfileName())
		}
		return p, nil
	}
	spec := &v1alpha1.SchedulingProfileSpec{
		Plugins:      &v1alpha1.Plugins{MultiPoint: enable("P"), Filter: enable("P")},
		PluginConfig: []v1alpha1.PluginConfig{{Name: "P", Args: runtime.RawExtension{Raw: []byte(`{"mode":"x"}`)}}},
	}
	f, err := NewFramework(context.Background(), r, "prof", spec, WithDefaultPlugins(basicsSet()))
	if err != nil {
		t.Fatal(err)
	}
	if builds["P"] != 1 || string(gotArgs) != `{"mode":"x"}` {
		t.Errorf("builds = %d, args = %s", builds["P"], gotArgs)
	}
	var info PluginInfo
	for _, pi := range f.ListPlugins() {
		if pi.Name == "P" {
			info = pi
		}
	}
	if want := []string{"PreFilter", "Filter", "PreScore", "Score"}; !slices.Equal(info.ExtensionPoints, want) {
		t.Errorf("extension points of P = %v, want %v", info.ExtensionPoints, want)
	}
	if info.Weight != 1 || info.WeightFromDefault {
		t.Errorf("P's weight = %+v", info)
	}

	r["Bad"] = func(context.Context, []byte, framework.Handle) (framework.Plugin, error) {
		return nil, errors.New("bad args")
	}
	_, err = NewFramework(context.Background(), r, "prof",
		&v1alpha1.SchedulingProfileSpec{Plugins: &v1alpha1.Plugins{MultiPoint: enable("Bad")}}, WithDefaultPlugins(basicsSet()))
	if err == nil || !strings.Contains(err.Error(), `initializing plugin "Bad": bad args`) {
		t.Errorf("factory error = %v", err)
	}
}

func TestNewFrameworkBackoffAndQueueingHints(t *testing.T) {
	events := []framework.ClusterEventWithHint{{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add}}}
	withEvents := filterOnly{&fake{name: "WithEvents", events: events}}
	noEvents := filterPlugin{&fake{name: "NoEvents"}}
	scoreOnly := scorePlugin{&fake{name: "ScoreOnly"}}
	r := registryOf(append(basics(), withEvents, noEvents, scoreOnly)...)
	initial, maxB := int64(2), int64(30)
	spec := &v1alpha1.SchedulingProfileSpec{PodInitialBackoffSeconds: &initial, PodMaxBackoffSeconds: &maxB}
	f, err := NewFramework(context.Background(), r, "prof", spec,
		WithDefaultPlugins(basicsSet(v1alpha1.Plugin{Name: "WithEvents"}, v1alpha1.Plugin{Name: "NoEvents"}, v1alpha1.Plugin{Name: "ScoreOnly"})))
	if err != nil {
		t.Fatal(err)
	}
	if i, m := f.PodBackoff(); i.Seconds() != 2 || m.Seconds() != 30 {
		t.Errorf("backoff = %v, %v", i, m)
	}
	hints := f.QueueingHintMap()
	if len(hints["WithEvents"]) != 1 || hints["WithEvents"][0].Event != events[0].Event {
		t.Errorf("WithEvents hints = %v", hints["WithEvents"])
	}
	if len(hints["NoEvents"]) == 0 || !hints["NoEvents"][0].Event.Match(framework.ClusterEvent{Resource: framework.Pod, ActionType: framework.Delete}) {
		t.Errorf("a plugin without EnqueueExtensions must get every event, got %v", hints["NoEvents"])
	}
	if _, ok := hints["ScoreOnly"]; ok {
		t.Error("a score-only plugin cannot reject pods and needs no hints")
	}

	f, err = NewFramework(context.Background(), r, "prof", nil, WithDefaultPlugins(basicsSet()))
	if err != nil {
		t.Fatal(err)
	}
	if i, m := f.PodBackoff(); i.Seconds() != 1 || m.Seconds() != 10 {
		t.Errorf("default backoff = %v, %v", i, m)
	}
	if f.Parallelism() != DefaultParallelism || f.ProfileName() != "prof" {
		t.Errorf("parallelism %d, profile %q", f.Parallelism(), f.ProfileName())
	}
}

func TestExtensionPointsOf(t *testing.T) {
	tests := []struct {
		name   string
		plugin framework.Plugin
		want   []string
	}{
		{name: "filter and score", plugin: filterScorePlugin{filterPlugin{&fake{name: "A"}}, scorePlugin{&fake{name: "A"}}},
			want: []string{"PreFilter", "Filter", "PreScore", "Score"}},
		{name: "reserve only", plugin: reservePlugin{&fake{name: "B"}}, want: []string{"Reserve"}},
		{name: "no extension point", plugin: &fake{name: "C"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ExtensionPointsOf(tc.plugin); !slices.Equal(got, tc.want) {
				t.Errorf("ExtensionPointsOf = %v, want %v", got, tc.want)
			}
		})
	}
}
