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
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
)

// fake is the behaviour shared by the test plugins; each wrapper type below
// exposes only some extension points, so a test picks what a plugin implements.
type fake struct {
	name string
	args []byte
	log  *callLog

	preEnqueue func(pod *v1.Pod) *framework.Status
	preFilter  func() (*framework.PreFilterResult, *framework.Status)
	addPod     func(state *framework.CycleState) *framework.Status
	filter     func(state *framework.CycleState, ni *framework.NodeInfo) *framework.Status
	postFilter func() (*framework.PostFilterResult, *framework.Status)
	preScore   func() *framework.Status
	score      func(ni *framework.NodeInfo) (int64, *framework.Status)
	normalize  func(scores framework.NodeScoreList) *framework.Status
	reserve    func() *framework.Status
	permit     func() (*framework.Status, time.Duration)
	bind       func() *framework.Status
	events     []framework.ClusterEventWithHint
}

func (p *fake) Name() string { return p.name }

func (p *fake) record(point string) {
	if p.log != nil {
		p.log.add(point + ":" + p.name)
	}
}

// callLog records plugin calls in order; it is safe for parallel Filter and Score.
type callLog struct {
	mu    sync.Mutex
	calls []string
}

func (l *callLog) add(c string) {
	l.mu.Lock()
	l.calls = append(l.calls, c)
	l.mu.Unlock()
}

func (l *callLog) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.calls...)
}

func (l *callLog) count(c string) int {
	n := 0
	for _, x := range l.get() {
		if x == c {
			n++
		}
	}
	return n
}

type preEnqueuePlugin struct{ *fake }

func (p preEnqueuePlugin) PreEnqueue(_ context.Context, pod *v1.Pod) *framework.Status {
	p.record("PreEnqueue")
	if p.preEnqueue == nil {
		return nil
	}
	return p.preEnqueue(pod)
}

type queueSortPlugin struct{ *fake }

func (queueSortPlugin) Less(a, b *framework.QueuedPodInfo) bool {
	return a.Pod.Name < b.Pod.Name
}

// filterPlugin has PreFilter (with extensions) and Filter.
type filterPlugin struct{ *fake }

func (p filterPlugin) PreFilter(_ context.Context, _ *framework.CycleState, _ *v1.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	p.record("PreFilter")
	if p.preFilter == nil {
		return nil, nil
	}
	return p.preFilter()
}

func (p filterPlugin) PreFilterExtensions() framework.PreFilterExtensions { return p }

func (p filterPlugin) AddPod(_ context.Context, state *framework.CycleState, _ *v1.Pod, _ *framework.PodInfo, _ *framework.NodeInfo) *framework.Status {
	p.record("AddPod")
	if p.addPod == nil {
		return nil
	}
	return p.addPod(state)
}

func (p filterPlugin) RemovePod(_ context.Context, _ *framework.CycleState, _ *v1.Pod, _ *framework.PodInfo, _ *framework.NodeInfo) *framework.Status {
	p.record("RemovePod")
	return nil
}

func (p filterPlugin) Filter(_ context.Context, state *framework.CycleState, _ *v1.Pod, ni *framework.NodeInfo) *framework.Status {
	if p.filter == nil {
		return nil
	}
	return p.filter(state, ni)
}

// filterOnly has Filter but no PreFilter, and declares queueing events.
type filterOnly struct{ *fake }

func (p filterOnly) Filter(ctx context.Context, state *framework.CycleState, pod *v1.Pod, ni *framework.NodeInfo) *framework.Status {
	return filterPlugin(p).Filter(ctx, state, pod, ni)
}

func (p filterOnly) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return p.events, nil
}

type postFilterPlugin struct{ *fake }

func (p postFilterPlugin) PostFilter(context.Context, *framework.CycleState, *v1.Pod, framework.NodeToStatusReader) (*framework.PostFilterResult, *framework.Status) {
	p.record("PostFilter")
	return p.postFilter()
}

// scorePlugin has PreScore, Score and NormalizeScore.
type scorePlugin struct{ *fake }

func (p scorePlugin) PreScore(context.Context, *framework.CycleState, *v1.Pod, []*framework.NodeInfo) *framework.Status {
	p.record("PreScore")
	if p.preScore == nil {
		return nil
	}
	return p.preScore()
}

func (p scorePlugin) Score(_ context.Context, _ *framework.CycleState, _ *v1.Pod, ni *framework.NodeInfo) (int64, *framework.Status) {
	if p.score == nil {
		return 0, nil
	}
	return p.score(ni)
}

func (p scorePlugin) ScoreExtensions() framework.ScoreExtensions {
	if p.normalize == nil {
		return nil
	}
	return p
}

func (p scorePlugin) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *v1.Pod, scores framework.NodeScoreList) *framework.Status {
	return p.normalize(scores)
}

// cycleScorePlugin is a scorePlugin that also hands the runtime a
// NodeScorer per cycle; nodeScorer scores what the runtime should use,
// while Score (the fake's score) may differ so a test sees which ran.
type cycleScorePlugin struct {
	scorePlugin
	nodeScorer func(ni *framework.NodeInfo) (int64, *framework.Status)
	prepare    *framework.Status
}

func (p cycleScorePlugin) NodeScorer(context.Context, *framework.CycleState, *v1.Pod) (framework.NodeScorer, *framework.Status) {
	if !p.prepare.IsSuccess() {
		return nil, p.prepare
	}
	return p.nodeScorer, nil
}

// filterScorePlugin has PreFilter, Filter, PreScore and Score, like most in-tree plugins.
type filterScorePlugin struct {
	filterPlugin
	scorePlugin
}

func (p filterScorePlugin) Name() string { return p.filterPlugin.name }

type reservePlugin struct{ *fake }

func (p reservePlugin) Reserve(context.Context, *framework.CycleState, *v1.Pod, string) *framework.Status {
	p.record("Reserve")
	if p.reserve == nil {
		return nil
	}
	return p.reserve()
}

func (p reservePlugin) Unreserve(context.Context, *framework.CycleState, *v1.Pod, string) {
	p.record("Unreserve")
}

type permitPlugin struct{ *fake }

func (p permitPlugin) Permit(context.Context, *framework.CycleState, *v1.Pod, string) (*framework.Status, time.Duration) {
	p.record("Permit")
	return p.permit()
}

type preBindPlugin struct{ *fake }

func (p preBindPlugin) PreBind(context.Context, *framework.CycleState, *v1.Pod, string) *framework.Status {
	p.record("PreBind")
	return nil
}

// preFlightPlugin is a PreBind plugin that answers PreBindPreFlight with preFlight.
type preFlightPlugin struct {
	preBindPlugin
	preFlight *framework.Status
}

func (p preFlightPlugin) PreBindPreFlight(context.Context, *framework.CycleState, *v1.Pod, string) *framework.Status {
	p.record("PreBindPreFlight")
	return p.preFlight
}

type bindPlugin struct{ *fake }

func (p bindPlugin) Bind(context.Context, *framework.CycleState, *v1.Pod, string) *framework.Status {
	p.record("Bind")
	if p.bind == nil {
		return nil
	}
	return p.bind()
}

type postBindPlugin struct{ *fake }

func (p postBindPlugin) PostBind(context.Context, *framework.CycleState, *v1.Pod, string) {
	p.record("PostBind")
}

// registryOf registers each plugin under its name; the factory records the args it got.
func registryOf(plugins ...framework.Plugin) Registry {
	r := Registry{}
	for _, p := range plugins {
		r[p.Name()] = func(_ context.Context, args []byte, _ framework.Handle) (framework.Plugin, error) {
			if f := fakeOf(p); f != nil {
				f.args = args
			}
			return p, nil
		}
	}
	return r
}

func fakeOf(p framework.Plugin) *fake {
	switch x := p.(type) {
	case filterPlugin:
		return x.fake
	case scorePlugin:
		return x.fake
	case filterScorePlugin:
		return x.filterPlugin.fake
	}
	return nil
}

// basics are the plugins every profile needs: a queue sort and a binder.
func basics() []framework.Plugin {
	return []framework.Plugin{queueSortPlugin{&fake{name: "Sort"}}, bindPlugin{&fake{name: "Binder"}}}
}

// basicsSet enables basics through MultiPoint in test default sets.
func basicsSet(extra ...v1alpha1.Plugin) *v1alpha1.Plugins {
	return &v1alpha1.Plugins{MultiPoint: &v1alpha1.PluginSet{Enabled: append([]v1alpha1.Plugin{{Name: "Sort"}, {Name: "Binder"}}, extra...)}}
}

func enable(names ...string) *v1alpha1.PluginSet {
	s := &v1alpha1.PluginSet{}
	for _, n := range names {
		s.Enabled = append(s.Enabled, v1alpha1.Plugin{Name: n})
	}
	return s
}

func weighted(name string, w int32) v1alpha1.Plugin {
	return v1alpha1.Plugin{Name: name, Weight: ptr.To(w)}
}

// fakeNominator nominates fixed pods per node.
type fakeNominator map[string][]*framework.PodInfo

func (fakeNominator) AddNominatedPod(*framework.PodInfo, *framework.NominatingInfo) {}
func (fakeNominator) DeleteNominatedPodIfExists(*v1.Pod)                            {}
func (fakeNominator) UpdateNominatedPod(*v1.Pod, *framework.PodInfo)                {}
func (n fakeNominator) NominatedPodsForNode(node string) []*framework.PodInfo       { return n[node] }
