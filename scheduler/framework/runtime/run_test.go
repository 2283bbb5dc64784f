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
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// newFw builds a framework whose default set is the basics plus the given
// plugins through MultiPoint, in order.
func newFw(t *testing.T, plugins []framework.Plugin, opts ...Option) *Framework {
	t.Helper()
	var extra []v1alpha1.Plugin
	for _, p := range plugins {
		extra = append(extra, v1alpha1.Plugin{Name: p.Name()})
	}
	opts = append([]Option{WithDefaultPlugins(basicsSet(extra...))}, opts...)
	f, err := NewFramework(context.Background(), registryOf(append(basics(), plugins...)...), "prof", nil, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func status(c framework.Code, msg string) func() *framework.Status {
	return func() *framework.Status { return framework.NewStatus(c, msg) }
}

func preFilterReturning(name string, log *callLog, res *framework.PreFilterResult, s *framework.Status) filterPlugin {
	return filterPlugin{&fake{name: name, log: log,
		preFilter: func() (*framework.PreFilterResult, *framework.Status) { return res, s },
		filter: func(_ *framework.CycleState, ni *framework.NodeInfo) *framework.Status {
			log.add("Filter:" + name)
			return nil
		}}}
}

func TestRunPreFilterPlugins(t *testing.T) {
	nodes := func(n ...string) *framework.PreFilterResult {
		return &framework.PreFilterResult{NodeNames: sets.New(n...)}
	}
	tests := []struct {
		name        string
		results     []*framework.PreFilterResult
		statuses    []*framework.Status
		wantCode    framework.Code
		wantPlugin  string
		wantMsg     string
		wantNodes   []string
		wantSkipped []string
		wantCalls   int
	}{
		{name: "all succeed, nil result", results: []*framework.PreFilterResult{nil, nil}, statuses: []*framework.Status{nil, nil}, wantCalls: 2},
		{name: "skip marks the plugin", results: []*framework.PreFilterResult{nil, nil},
			statuses: []*framework.Status{framework.NewStatus(framework.Skip), nil}, wantSkipped: []string{"P0"}, wantCalls: 2},
		{name: "unresolvable stops at once", results: []*framework.PreFilterResult{nil, nil},
			statuses: []*framework.Status{framework.NewStatus(framework.UnschedulableAndUnresolvable, "no"), nil},
			wantCode: framework.UnschedulableAndUnresolvable, wantPlugin: "P0", wantMsg: "no", wantCalls: 1},
		{name: "unschedulable lets the others run", results: []*framework.PreFilterResult{nil, nil},
			statuses: []*framework.Status{framework.NewStatus(framework.Unschedulable, "later"), nil},
			wantCode: framework.Unschedulable, wantPlugin: "P0", wantMsg: "later", wantCalls: 2},
		{name: "error is wrapped with the plugin", results: []*framework.PreFilterResult{nil, nil},
			statuses: []*framework.Status{nil, framework.NewStatus(framework.Error, "boom")},
			wantCode: framework.Error, wantPlugin: "P1", wantMsg: `running PreFilter plugin "P1": boom`, wantCalls: 2},
		{name: "results intersect", results: []*framework.PreFilterResult{nodes("a", "b"), nodes("b", "c")},
			statuses: []*framework.Status{nil, nil}, wantNodes: []string{"b"}, wantCalls: 2},
		{name: "empty intersection", results: []*framework.PreFilterResult{nodes("a"), nodes("c")},
			statuses: []*framework.Status{nil, nil}, wantCode: framework.UnschedulableAndUnresolvable,
			wantMsg: "node(s) didn't satisfy plugin(s) [P0 P1] simultaneously", wantNodes: []string{}, wantCalls: 2},
		{name: "one plugin leaves no node", results: []*framework.PreFilterResult{nil, nodes()},
			statuses: []*framework.Status{nil, nil}, wantCode: framework.UnschedulableAndUnresolvable,
			wantMsg: "node(s) didn't satisfy plugin P1", wantNodes: []string{}, wantCalls: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			log := &callLog{}
			var plugins []framework.Plugin
			for i := range tc.results {
				plugins = append(plugins, preFilterReturning("P"+string(rune('0'+i)), log, tc.results[i], tc.statuses[i]))
			}
			f := newFw(t, plugins, WithSnapshotSharedLister(st.NewLister(st.NamedNodeInfos("a", "b", "c")...)))
			state := framework.NewCycleState()
			res, s, _ := f.RunPreFilterPlugins(context.Background(), state, st.Pod("p").Obj())
			if s.Code() != tc.wantCode || s.Plugin() != tc.wantPlugin || s.Message() != tc.wantMsg {
				t.Errorf("status = %v, want %v(%s): %s", s, tc.wantCode, tc.wantPlugin, tc.wantMsg)
			}
			if tc.wantNodes != nil && (res == nil || !res.NodeNames.Equal(sets.New(tc.wantNodes...))) {
				t.Errorf("result = %v, want %v", res, tc.wantNodes)
			}
			if got := state.SkippedFilters(); !slices.Equal(got, tc.wantSkipped) && len(got)+len(tc.wantSkipped) > 0 {
				t.Errorf("skipped = %v, want %v", got, tc.wantSkipped)
			}
			if got := len(log.get()); got != tc.wantCalls {
				t.Errorf("calls = %v, want %d", log.get(), tc.wantCalls)
			}
		})
	}
}

func TestPreFilterSkipSkipsFilter(t *testing.T) {
	log := &callLog{}
	skipper := preFilterReturning("Skipper", log, nil, framework.NewStatus(framework.Skip))
	runner := preFilterReturning("Runner", log, nil, nil)
	f := newFw(t, []framework.Plugin{skipper, runner})
	state := framework.NewCycleState()
	pod := st.Pod("p").Obj()
	f.RunPreFilterPlugins(context.Background(), state, pod)
	if s := f.RunFilterPlugins(context.Background(), state, pod, st.NodeInfo(st.Node("n").Obj())); !s.IsSuccess() {
		t.Fatal(s)
	}
	if log.count("Filter:Skipper") != 0 || log.count("Filter:Runner") != 1 {
		t.Errorf("calls = %v", log.get())
	}
	f.RunPreFilterExtensionAddPod(context.Background(), state, pod, st.Pod("q").Info(), st.NodeInfo(st.Node("n").Obj()))
	f.RunPreFilterExtensionRemovePod(context.Background(), state, pod, st.Pod("q").Info(), st.NodeInfo(st.Node("n").Obj()))
	if log.count("AddPod:Skipper")+log.count("RemovePod:Skipper") != 0 || log.count("AddPod:Runner") != 1 || log.count("RemovePod:Runner") != 1 {
		t.Errorf("extension calls = %v", log.get())
	}
}

func filterReturning(name string, log *callLog, s func() *framework.Status) filterPlugin {
	return filterPlugin{&fake{name: name, filter: func(*framework.CycleState, *framework.NodeInfo) *framework.Status {
		log.add("Filter:" + name)
		return s()
	}}}
}

func TestRunFilterPlugins(t *testing.T) {
	tests := []struct {
		name       string
		first      *framework.Status
		wantCode   framework.Code
		wantMsg    string
		wantSecond bool
	}{
		{name: "success runs all", first: nil, wantCode: framework.Success, wantSecond: true},
		{name: "unschedulable stops", first: framework.NewStatus(framework.Unschedulable, "Insufficient cpu"), wantCode: framework.Unschedulable, wantMsg: "Insufficient cpu"},
		{name: "unresolvable stops", first: framework.NewStatus(framework.UnschedulableAndUnresolvable, "nope"), wantCode: framework.UnschedulableAndUnresolvable, wantMsg: "nope"},
		{name: "error is an error", first: framework.NewStatus(framework.Error, "boom"), wantCode: framework.Error, wantMsg: `running Filter plugin "First": boom`},
		{name: "skip from Filter is an error", first: framework.NewStatus(framework.Skip), wantCode: framework.Error},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			log := &callLog{}
			f := newFw(t, []framework.Plugin{
				filterReturning("First", log, func() *framework.Status { return tc.first }),
				filterReturning("Second", log, func() *framework.Status { return nil }),
			})
			s := f.RunFilterPlugins(context.Background(), framework.NewCycleState(), st.Pod("p").Obj(), st.NodeInfo(st.Node("n").Obj()))
			if s.Code() != tc.wantCode || (tc.wantMsg != "" && s.Message() != tc.wantMsg) {
				t.Errorf("status = %v, want %v: %s", s, tc.wantCode, tc.wantMsg)
			}
			if !s.IsSuccess() && s.Plugin() != "First" {
				t.Errorf("plugin = %q, want First", s.Plugin())
			}
			if got := log.count("Filter:Second") == 1; got != tc.wantSecond {
				t.Errorf("second filter ran = %v, want %v", got, tc.wantSecond)
			}
		})
	}
}

func TestRunFilterPluginsWithNominatedPods(t *testing.T) {
	// The filter rejects a node holding more than one pod, so a nominated pod
	// the incoming pod must yield to makes the node infeasible.
	full := func(_ *framework.CycleState, ni *framework.NodeInfo) *framework.Status {
		if len(ni.Pods) > 0 {
			return framework.NewStatus(framework.Unschedulable, "taken")
		}
		return nil
	}
	log := &callLog{}
	pl := filterPlugin{&fake{name: "Fits", log: log, filter: full}}
	nominated := st.Pod("nominated").Priority(10).Info()
	tests := []struct {
		name      string
		priority  int32
		nominator fakeNominator
		wantCode  framework.Code
		wantAdds  int
	}{
		{name: "no nominator", priority: 0, wantCode: framework.Success},
		{name: "higher-priority nominated pod counts", priority: 5, nominator: fakeNominator{"n": {nominated}}, wantCode: framework.Unschedulable, wantAdds: 1},
		{name: "equal priority counts", priority: 10, nominator: fakeNominator{"n": {nominated}}, wantCode: framework.Unschedulable, wantAdds: 1},
		{name: "lower-priority nominated pod is ignored", priority: 20, nominator: fakeNominator{"n": {nominated}}, wantCode: framework.Success},
		{name: "other node's nomination is ignored", priority: 0, nominator: fakeNominator{"m": {nominated}}, wantCode: framework.Success},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			*log = callLog{}
			var opts []Option
			if tc.nominator != nil {
				opts = append(opts, WithPodNominator(tc.nominator))
			}
			f := newFw(t, []framework.Plugin{pl}, opts...)
			node := st.NodeInfo(st.Node("n").Obj())
			s := f.RunFilterPluginsWithNominatedPods(context.Background(), framework.NewCycleState(), st.Pod("p").Priority(tc.priority).Obj(), node)
			if s.Code() != tc.wantCode {
				t.Errorf("status = %v, want %v", s, tc.wantCode)
			}
			if got := log.count("AddPod:Fits"); got != tc.wantAdds {
				t.Errorf("AddPod calls = %d, want %d", got, tc.wantAdds)
			}
			if len(node.Pods) != 0 {
				t.Error("the snapshot's NodeInfo must not be changed")
			}
		})
	}

	// The second pass runs without the nominated pods: a filter that needs
	// the nominated pod present passes the first pass but fails the second.
	needs := filterPlugin{&fake{name: "Needs", filter: func(_ *framework.CycleState, ni *framework.NodeInfo) *framework.Status {
		if len(ni.Pods) == 0 {
			return framework.NewStatus(framework.Unschedulable, "lonely")
		}
		return nil
	}}}
	f := newFw(t, []framework.Plugin{needs}, WithPodNominator(fakeNominator{"n": {nominated}}))
	if s := f.RunFilterPluginsWithNominatedPods(context.Background(), framework.NewCycleState(), st.Pod("p").Obj(), st.NodeInfo(st.Node("n").Obj())); s.Message() != "lonely" {
		t.Errorf("second pass status = %v, want lonely", s)
	}
}

func TestRunPostFilterPlugins(t *testing.T) {
	nominate := func(node string) *framework.PostFilterResult {
		return &framework.PostFilterResult{NominatingInfo: &framework.NominatingInfo{NominatedNodeName: node, NominatingMode: framework.ModeOverride}}
	}
	pf := func(name string, r *framework.PostFilterResult, s *framework.Status) postFilterPlugin {
		return postFilterPlugin{&fake{name: name, postFilter: func() (*framework.PostFilterResult, *framework.Status) { return r, s }}}
	}
	tests := []struct {
		name       string
		plugins    []framework.Plugin
		wantCode   framework.Code
		wantPlugin string
		wantMsg    string
		wantNode   string
	}{
		{name: "first success wins", plugins: []framework.Plugin{pf("A", nil, framework.NewStatus(framework.Unschedulable, "a")), pf("B", nominate("n2"), nil)},
			wantCode: framework.Success, wantNode: "n2"},
		{name: "all unschedulable: reasons joined, first plugin named", plugins: []framework.Plugin{
			pf("A", nominate("n1"), framework.NewStatus(framework.Unschedulable, "a")), pf("B", nil, framework.NewStatus(framework.Unschedulable, "b"))},
			wantCode: framework.Unschedulable, wantPlugin: "A", wantMsg: "a, b", wantNode: "n1"},
		{name: "unresolvable stops", plugins: []framework.Plugin{pf("A", nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, "x")), pf("B", nominate("n2"), nil)},
			wantCode: framework.UnschedulableAndUnresolvable, wantPlugin: "A", wantMsg: "x"},
		{name: "error stops", plugins: []framework.Plugin{pf("A", nil, framework.NewStatus(framework.Error, "boom")), pf("B", nominate("n2"), nil)},
			wantCode: framework.Error, wantPlugin: "A", wantMsg: "boom"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFw(t, tc.plugins)
			r, s := f.RunPostFilterPlugins(context.Background(), framework.NewCycleState(), st.Pod("p").Obj(), framework.NewNodeToStatus())
			if s.Code() != tc.wantCode || s.Plugin() != tc.wantPlugin || s.Message() != tc.wantMsg {
				t.Errorf("status = %v, want %v(%s): %s", s, tc.wantCode, tc.wantPlugin, tc.wantMsg)
			}
			got := ""
			if r != nil && r.NominatingInfo != nil {
				got = r.NominatedNodeName
			}
			if got != tc.wantNode {
				t.Errorf("nominated = %q, want %q", got, tc.wantNode)
			}
		})
	}
}

func TestRunPreEnqueuePlugins(t *testing.T) {
	gate := preEnqueuePlugin{&fake{name: "Gate", preEnqueue: func(pod *v1.Pod) *framework.Status {
		if pod.Name == "gated" {
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, "waiting for gates")
		}
		if pod.Name == "broken" {
			return framework.NewStatus(framework.Error, "boom")
		}
		return nil
	}}}
	f := newFw(t, []framework.Plugin{gate})
	if s := f.RunPreEnqueuePlugins(context.Background(), st.Pod("ok").Obj()); !s.IsSuccess() {
		t.Errorf("ok pod: %v", s)
	}
	if s := f.RunPreEnqueuePlugins(context.Background(), st.Pod("gated").Obj()); s.Code() != framework.UnschedulableAndUnresolvable || s.Plugin() != "Gate" {
		t.Errorf("gated pod: %v", s)
	}
	if s := f.RunPreEnqueuePlugins(context.Background(), st.Pod("broken").Obj()); s.Code() != framework.Error || s.Plugin() != "Gate" {
		t.Errorf("broken pod: %v", s)
	}
	less := f.QueueSortFunc()
	a := &framework.QueuedPodInfo{PodInfo: &framework.PodInfo{Pod: st.Pod("a").Obj()}}
	b := &framework.QueuedPodInfo{PodInfo: &framework.PodInfo{Pod: st.Pod("b").Obj()}}
	if !less(a, b) || less(b, a) {
		t.Error("QueueSortFunc must be the QueueSort plugin's Less")
	}
}

func TestRunScorePlugins(t *testing.T) {
	byNode := func(scores map[string]int64) func(*framework.NodeInfo) (int64, *framework.Status) {
		return func(ni *framework.NodeInfo) (int64, *framework.Status) { return scores[ni.Node().Name], nil }
	}
	// halve maps raw scores of up to 200 into [0, 100].
	halve := func(l framework.NodeScoreList) *framework.Status {
		for i := range l {
			l[i].Score /= 2
		}
		return nil
	}
	tests := []struct {
		name      string
		plugins   []framework.Plugin
		weights   map[string]int32
		skip      []string
		want      map[string]int64
		wantParts map[string][]framework.PluginScore
		wantErr   string
	}{
		{
			name: "normalize, weight and sum",
			plugins: []framework.Plugin{
				scorePlugin{&fake{name: "A", score: byNode(map[string]int64{"n1": 200, "n2": 100}), normalize: halve}},
				scorePlugin{&fake{name: "B", score: byNode(map[string]int64{"n1": 10, "n2": 50})}},
			},
			weights: map[string]int32{"A": 2, "B": 3},
			want:    map[string]int64{"n1": 100*2 + 10*3, "n2": 50*2 + 50*3},
			wantParts: map[string][]framework.PluginScore{
				"n1": {{Name: "A", Score: 200}, {Name: "B", Score: 30}},
				"n2": {{Name: "A", Score: 100}, {Name: "B", Score: 150}},
			},
		},
		{
			name: "skipped plugin does not score",
			plugins: []framework.Plugin{
				scorePlugin{&fake{name: "A", score: byNode(map[string]int64{"n1": 10, "n2": 20}), preScore: status(framework.Skip, "")}},
				scorePlugin{&fake{name: "B", score: byNode(map[string]int64{"n1": 5, "n2": 6})}},
			},
			want: map[string]int64{"n1": 5, "n2": 6},
		},
		{
			name: "a cycle scorer's NodeScorer scores, not its Score",
			plugins: []framework.Plugin{
				cycleScorePlugin{
					scorePlugin: scorePlugin{&fake{name: "A", score: byNode(map[string]int64{"n1": 99, "n2": 99})}},
					nodeScorer:  byNode(map[string]int64{"n1": 7, "n2": 8}),
				},
				scorePlugin{&fake{name: "B", score: byNode(map[string]int64{"n1": 1, "n2": 2})}},
			},
			want: map[string]int64{"n1": 8, "n2": 10},
		},
		{
			name: "a cycle scorer that cannot prepare fails scoring",
			plugins: []framework.Plugin{cycleScorePlugin{
				scorePlugin: scorePlugin{&fake{name: "A", score: byNode(nil)}},
				prepare:     framework.NewStatus(framework.Error, "no state"),
			}},
			wantErr: `preparing Score plugin "A": no state`,
		},
		{
			name: "a cycle scorer's node error",
			plugins: []framework.Plugin{cycleScorePlugin{
				scorePlugin: scorePlugin{&fake{name: "A", score: byNode(nil)}},
				nodeScorer: func(*framework.NodeInfo) (int64, *framework.Status) {
					return 0, framework.NewStatus(framework.Error, "bad node")
				},
			}},
			wantErr: `running Score plugin "A" on node`,
		},
		{
			name:    "score above max after normalization",
			plugins: []framework.Plugin{scorePlugin{&fake{name: "A", score: byNode(map[string]int64{"n1": 101})}}},
			wantErr: `plugin "A" scored node "n1" 101 after normalization, outside [0, 100]`,
		},
		{
			name:    "negative score",
			plugins: []framework.Plugin{scorePlugin{&fake{name: "A", score: byNode(map[string]int64{"n2": -1})}}},
			wantErr: "outside [0, 100]",
		},
		{
			name: "score error",
			plugins: []framework.Plugin{scorePlugin{&fake{name: "A", score: func(*framework.NodeInfo) (int64, *framework.Status) {
				return 0, framework.NewStatus(framework.Error, "boom")
			}}}},
			wantErr: `running Score plugin "A" on node`,
		},
		{
			name: "normalize error",
			plugins: []framework.Plugin{scorePlugin{&fake{name: "A", score: byNode(nil),
				normalize: func(framework.NodeScoreList) *framework.Status { return framework.NewStatus(framework.Error, "nope") }}}},
			wantErr: `running NormalizeScore of plugin "A": nope`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var extra []v1alpha1.Plugin
			for _, p := range tc.plugins {
				pl := v1alpha1.Plugin{Name: p.Name()}
				if w, ok := tc.weights[p.Name()]; ok {
					pl = weighted(p.Name(), w)
				}
				extra = append(extra, pl)
			}
			f, err := NewFramework(context.Background(), registryOf(append(basics(), tc.plugins...)...), "prof", nil,
				WithDefaultPlugins(basicsSet(extra...)), WithParallelism(2))
			if err != nil {
				t.Fatal(err)
			}
			state := framework.NewCycleState()
			nodes := st.NamedNodeInfos("n1", "n2")
			if s := f.RunPreScorePlugins(context.Background(), state, st.Pod("p").Obj(), nodes); !s.IsSuccess() {
				t.Fatal(s)
			}
			got, s := f.RunScorePlugins(context.Background(), state, st.Pod("p").Obj(), nodes)
			if tc.wantErr != "" {
				if s.Code() != framework.Error || !strings.Contains(s.Message(), tc.wantErr) {
					t.Errorf("status = %v, want error containing %q", s, tc.wantErr)
				}
				return
			}
			if !s.IsSuccess() {
				t.Fatal(s)
			}
			for i, n := range []string{"n1", "n2"} {
				if got[i].Name != n || got[i].TotalScore != tc.want[n] {
					t.Errorf("node %d = %s/%d, want %s/%d", i, got[i].Name, got[i].TotalScore, n, tc.want[n])
				}
				if parts, ok := tc.wantParts[n]; ok && !slices.Equal(got[i].Scores, parts) {
					t.Errorf("parts of %s = %v, want %v", n, got[i].Scores, parts)
				}
			}
		})
	}
}

func TestRunPreScorePluginsError(t *testing.T) {
	f := newFw(t, []framework.Plugin{scorePlugin{&fake{name: "A", preScore: status(framework.Error, "boom")}}})
	s := f.RunPreScorePlugins(context.Background(), framework.NewCycleState(), st.Pod("p").Obj(), nil)
	if s.Code() != framework.Error || s.Plugin() != "A" || !strings.Contains(s.Message(), "boom") {
		t.Errorf("status = %v", s)
	}
}

func TestReservePlugins(t *testing.T) {
	tests := []struct {
		name      string
		second    *framework.Status
		wantCode  framework.Code
		wantCalls []string
	}{
		{name: "all reserve", wantCalls: []string{"Reserve:R1", "Reserve:R2", "Reserve:R3"}},
		{name: "rejection stops", second: framework.NewStatus(framework.Unschedulable, "no room"), wantCode: framework.Unschedulable,
			wantCalls: []string{"Reserve:R1", "Reserve:R2"}},
		{name: "error stops", second: framework.NewStatus(framework.Error, "boom"), wantCode: framework.Error,
			wantCalls: []string{"Reserve:R1", "Reserve:R2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			log := &callLog{}
			f := newFw(t, []framework.Plugin{
				reservePlugin{&fake{name: "R1", log: log}},
				reservePlugin{&fake{name: "R2", log: log, reserve: func() *framework.Status { return tc.second }}},
				reservePlugin{&fake{name: "R3", log: log}},
			})
			s := f.RunReservePluginsReserve(context.Background(), framework.NewCycleState(), st.Pod("p").Obj(), "n")
			if s.Code() != tc.wantCode || (!s.IsSuccess() && s.Plugin() != "R2") {
				t.Errorf("status = %v", s)
			}
			if !slices.Equal(log.get(), tc.wantCalls) {
				t.Errorf("calls = %v, want %v", log.get(), tc.wantCalls)
			}
		})
	}
	log := &callLog{}
	f := newFw(t, []framework.Plugin{reservePlugin{&fake{name: "R1", log: log}}, reservePlugin{&fake{name: "R2", log: log}}})
	f.RunReservePluginsUnreserve(context.Background(), framework.NewCycleState(), st.Pod("p").Obj(), "n")
	if want := []string{"Unreserve:R2", "Unreserve:R1"}; !slices.Equal(log.get(), want) {
		t.Errorf("unreserve order = %v, want %v", log.get(), want)
	}
}

func TestBindPlugins(t *testing.T) {
	tests := []struct {
		name      string
		first     *framework.Status
		second    *framework.Status
		wantCode  framework.Code
		wantCalls []string
	}{
		{name: "first binds", wantCalls: []string{"Bind:B1"}},
		{name: "skip passes to the next", first: framework.NewStatus(framework.Skip), wantCalls: []string{"Bind:B1", "Bind:B2"}},
		{name: "all skip", first: framework.NewStatus(framework.Skip), second: framework.NewStatus(framework.Skip),
			wantCode: framework.Skip, wantCalls: []string{"Bind:B1", "Bind:B2"}},
		{name: "error stops", first: framework.NewStatus(framework.Error, "conflict"), wantCode: framework.Error, wantCalls: []string{"Bind:B1"}},
		{name: "rejection stops", first: framework.NewStatus(framework.Unschedulable, "x"), wantCode: framework.Unschedulable, wantCalls: []string{"Bind:B1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			log := &callLog{}
			b1 := bindPlugin{&fake{name: "B1", log: log, bind: func() *framework.Status { return tc.first }}}
			b2 := bindPlugin{&fake{name: "B2", log: log, bind: func() *framework.Status { return tc.second }}}
			f, err := NewFramework(context.Background(), registryOf(basics()[0], b1, b2), "prof", nil,
				WithDefaultPlugins(&v1alpha1.Plugins{MultiPoint: enable("Sort", "B1", "B2")}))
			if err != nil {
				t.Fatal(err)
			}
			s := f.RunBindPlugins(context.Background(), framework.NewCycleState(), st.Pod("p").Obj(), "n")
			if s.Code() != tc.wantCode {
				t.Errorf("status = %v, want %v", s, tc.wantCode)
			}
			if !slices.Equal(log.get(), tc.wantCalls) {
				t.Errorf("calls = %v, want %v", log.get(), tc.wantCalls)
			}
		})
	}
}

func TestPreBindAndPostBind(t *testing.T) {
	log := &callLog{}
	f := newFw(t, []framework.Plugin{preBindPlugin{&fake{name: "Pre", log: log}}, postBindPlugin{&fake{name: "Post", log: log}}})
	if s := f.RunPreBindPlugins(context.Background(), framework.NewCycleState(), st.Pod("p").Obj(), "n"); !s.IsSuccess() {
		t.Fatal(s)
	}
	f.RunPostBindPlugins(context.Background(), framework.NewCycleState(), st.Pod("p").Obj(), "n")
	if want := []string{"PreBind:Pre", "PostBind:Post"}; !slices.Equal(log.get(), want) {
		t.Errorf("calls = %v", log.get())
	}
}

func TestRunPreBindPreFlights(t *testing.T) {
	skip := framework.NewStatus(framework.Skip)
	tests := []struct {
		name    string
		plugins func(*callLog) []framework.Plugin
		want    framework.Code
		calls   []string
	}{
		{name: "no PreBind plugin: nothing to do", plugins: func(*callLog) []framework.Plugin { return nil }, want: framework.Skip},
		{name: "every plugin skips", plugins: func(l *callLog) []framework.Plugin {
			return []framework.Plugin{
				preFlightPlugin{preBindPlugin{&fake{name: "A", log: l}}, skip},
				preFlightPlugin{preBindPlugin{&fake{name: "B", log: l}}, skip},
			}
		}, want: framework.Skip, calls: []string{"PreBindPreFlight:A", "PreBindPreFlight:B"}},
		{name: "one has work", plugins: func(l *callLog) []framework.Plugin {
			return []framework.Plugin{
				preFlightPlugin{preBindPlugin{&fake{name: "A", log: l}}, skip},
				preFlightPlugin{preBindPlugin{&fake{name: "B", log: l}}, nil},
				preFlightPlugin{preBindPlugin{&fake{name: "C", log: l}}, skip},
			}
		}, want: framework.Success, calls: []string{"PreBindPreFlight:A", "PreBindPreFlight:B"}},
		{name: "a plugin without PreBindPreFlight counts as having work", plugins: func(l *callLog) []framework.Plugin {
			return []framework.Plugin{preBindPlugin{&fake{name: "Plain", log: l}}}
		}, want: framework.Success},
		{name: "an error is an error", plugins: func(l *callLog) []framework.Plugin {
			return []framework.Plugin{preFlightPlugin{preBindPlugin{&fake{name: "A", log: l}}, framework.AsStatus(errors.New("boom"))}}
		}, want: framework.Error, calls: []string{"PreBindPreFlight:A"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := &callLog{}
			f := newFw(t, tt.plugins(log))
			s := f.RunPreBindPreFlights(context.Background(), framework.NewCycleState(), st.Pod("p").Obj(), "n")
			if s.Code() != tt.want {
				t.Errorf("status = %v, want code %v", s, tt.want)
			}
			if got := log.get(); !slices.Equal(got, tt.calls) {
				t.Errorf("calls = %v, want %v", got, tt.calls)
			}
		})
	}
}

func waitFor(d time.Duration) func() (*framework.Status, time.Duration) {
	return func() (*framework.Status, time.Duration) { return framework.NewStatus(framework.Wait), d }
}

func TestPermitWaitAllowRejectTimeout(t *testing.T) {
	ctx := context.Background()
	newPermitFw := func(clk *clocktesting.FakeClock) *Framework {
		return newFw(t, []framework.Plugin{
			permitPlugin{&fake{name: "Slow", permit: waitFor(time.Minute)}},
			permitPlugin{&fake{name: "Fast", permit: waitFor(10 * time.Second)}},
			permitPlugin{&fake{name: "Yes", permit: func() (*framework.Status, time.Duration) { return nil, 0 }}},
		}, WithClock(clk))
	}
	pod := st.Pod("p").Obj()

	t.Run("allowed by all", func(t *testing.T) {
		f := newPermitFw(clocktesting.NewFakeClock(time.Now()))
		if s := f.RunPermitPlugins(ctx, framework.NewCycleState(), pod, "n"); !s.IsWait() {
			t.Fatalf("status = %v, want Wait", s)
		}
		wp := f.GetWaitingPod(pod.UID)
		if wp == nil || !slices.Equal(wp.GetPendingPlugins(), []string{"Fast", "Slow"}) {
			t.Fatalf("waiting pod = %v", wp)
		}
		wp.Allow("Fast")
		if got := wp.GetPendingPlugins(); !slices.Equal(got, []string{"Slow"}) {
			t.Errorf("pending = %v", got)
		}
		f.IterateOverWaitingPods(func(w framework.WaitingPod) { w.Allow("Slow") })
		if s := f.WaitOnPermit(ctx, pod); !s.IsSuccess() {
			t.Errorf("WaitOnPermit = %v", s)
		}
		if f.GetWaitingPod(pod.UID) != nil {
			t.Error("the pod must leave the waiting pods")
		}
	})

	t.Run("rejected by a plugin", func(t *testing.T) {
		f := newPermitFw(clocktesting.NewFakeClock(time.Now()))
		f.RunPermitPlugins(ctx, framework.NewCycleState(), pod, "n")
		f.GetWaitingPod(pod.UID).Reject("Slow", "not now")
		s := f.WaitOnPermit(ctx, pod)
		if s.Code() != framework.Unschedulable || s.Plugin() != "Slow" || s.Message() != "not now" {
			t.Errorf("WaitOnPermit = %v", s)
		}
	})

	t.Run("the shortest timeout rejects", func(t *testing.T) {
		clk := clocktesting.NewFakeClock(time.Now())
		f := newPermitFw(clk)
		f.RunPermitPlugins(ctx, framework.NewCycleState(), pod, "n")
		done := make(chan *framework.Status)
		go func() { done <- f.WaitOnPermit(ctx, pod) }()
		clk.Step(9 * time.Second)
		select {
		case s := <-done:
			t.Fatalf("released before the timeout: %v", s)
		case <-time.After(20 * time.Millisecond):
		}
		clk.Step(time.Second)
		s := <-done
		if s.Code() != framework.Unschedulable || s.Plugin() != "Fast" || !strings.Contains(s.Message(), "timeout") {
			t.Errorf("WaitOnPermit = %v", s)
		}
	})

	t.Run("RejectWaitingPod", func(t *testing.T) {
		f := newPermitFw(clocktesting.NewFakeClock(time.Now()))
		f.RunPermitPlugins(ctx, framework.NewCycleState(), pod, "n")
		if !f.RejectWaitingPod(pod.UID) || f.RejectWaitingPod(pod.UID) {
			t.Error("RejectWaitingPod must succeed once")
		}
		if s := f.WaitOnPermit(ctx, pod); s.Code() != framework.Unschedulable {
			t.Errorf("WaitOnPermit = %v", s)
		}
		if f.RejectWaitingPod("unknown") {
			t.Error("unknown pods are not waiting")
		}
	})

	t.Run("context ends the wait", func(t *testing.T) {
		f := newPermitFw(clocktesting.NewFakeClock(time.Now()))
		f.RunPermitPlugins(ctx, framework.NewCycleState(), pod, "n")
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if s := f.WaitOnPermit(cctx, pod); s.Code() != framework.Error {
			t.Errorf("WaitOnPermit = %v", s)
		}
	})

	t.Run("rejection and error at Permit", func(t *testing.T) {
		f := newFw(t, []framework.Plugin{
			permitPlugin{&fake{name: "Wait", permit: waitFor(time.Minute)}},
			permitPlugin{&fake{name: "No", permit: func() (*framework.Status, time.Duration) {
				return framework.NewStatus(framework.Unschedulable, "no"), 0
			}}},
		}, WithClock(clocktesting.NewFakeClock(time.Now())))
		if s := f.RunPermitPlugins(ctx, framework.NewCycleState(), pod, "n"); s.Code() != framework.Unschedulable || s.Plugin() != "No" {
			t.Errorf("status = %v", s)
		}
		if f.GetWaitingPod(pod.UID) != nil {
			t.Error("a rejected pod must not wait")
		}
		f = newFw(t, []framework.Plugin{permitPlugin{&fake{name: "Bad", permit: func() (*framework.Status, time.Duration) {
			return framework.NewStatus(framework.Error, "boom"), 0
		}}}})
		if s := f.RunPermitPlugins(ctx, framework.NewCycleState(), pod, "n"); s.Code() != framework.Error || s.Plugin() != "Bad" {
			t.Errorf("status = %v", s)
		}
	})

	t.Run("timeout is capped at 15 minutes", func(t *testing.T) {
		clk := clocktesting.NewFakeClock(time.Now())
		f := newFw(t, []framework.Plugin{permitPlugin{&fake{name: "Long", permit: waitFor(time.Hour)}}}, WithClock(clk))
		f.RunPermitPlugins(ctx, framework.NewCycleState(), pod, "n")
		clk.Step(maxPermitTimeout)
		if s := f.WaitOnPermit(ctx, pod); s.Code() != framework.Unschedulable || !strings.Contains(s.Message(), "15m0s") {
			t.Errorf("WaitOnPermit = %v", s)
		}
	})
}

func TestWaitingPodsShared(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Now())
	shared := NewWaitingPods(WithWaitingPodsClock(clk))
	plugins := []framework.Plugin{permitPlugin{&fake{name: "W", permit: waitFor(time.Minute)}}}
	f1 := newFw(t, plugins, WithWaitingPods(shared))
	f2 := newFw(t, plugins, WithWaitingPods(shared))
	pod := st.Pod("p").Obj()
	f1.RunPermitPlugins(context.Background(), framework.NewCycleState(), pod, "n")
	if f2.GetWaitingPod(pod.UID) == nil || shared.Len() != 1 {
		t.Fatal("a shared WaitingPods must show the pod to every framework")
	}
	f2.GetWaitingPod(pod.UID).Allow("W")
	if s := f1.WaitOnPermit(context.Background(), pod); !s.IsSuccess() {
		t.Errorf("WaitOnPermit = %v", s)
	}
	if shared.Len() != 0 {
		t.Error("the pod must leave the shared set")
	}
}
