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

// Package shadowrun evaluates shadow profiles beside the scheduling loop:
// it samples the attempts of a shadowed schedulerName, has the loop's
// snapshot update bring its own snapshot along, and runs each shadow on
// one worker goroutine with the scheduling algorithm, comparing its choice
// with the live one (package shadow). The loop never waits for it.
package shadowrun

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/runtime"
	"github.com/berth-io/berth/scheduler/internal/algorithm"
	"github.com/berth-io/berth/scheduler/shadow"

	schedcache "github.com/berth-io/berth/scheduler/cache"
)

// Profile is a compiled shadow profile: it is evaluated beside the live
// profile serving Of and never binds.
type Profile struct {
	// Framework is the shadow's compiled profile, bound to the runner's
	// snapshot and workloads.
	Framework *runtime.Framework
	// Source names the SchedulingProfile.
	Source string
	// Generation is the SchedulingProfile generation compiled.
	Generation int64
	// Of is the schedulerName whose live profile is shadowed.
	Of string
	// SampleRatePercent is the share of attempts evaluated, 1-100.
	SampleRatePercent int32

	recorder *shadow.Recorder
}

// Stats returns the profile's figures and their version, which changes
// whenever they do.
func (p *Profile) Stats() (shadow.Stats, uint64) {
	return p.recorder.Stats(), p.recorder.Version()
}

// Counter counts the shadows' decisions, by shadow profile and outcome.
type Counter interface {
	CountShadowDecision(profile, outcome string)
}

// Runner holds the installed shadow profiles and the one worker that
// evaluates them. The scheduling loop never waits for the worker: an
// attempt sampled while the worker is busy is counted as dropped.
type Runner struct {
	clock   clock.PassiveClock
	rand    func(n int) int
	counter Counter

	mu sync.Mutex
	// byOf maps a shadowed schedulerName to its shadows; it is replaced,
	// never changed, so the loop reads it without a lock.
	byOf atomic.Pointer[map[string][]*Profile]
	// snapshot is what the shadows are compiled against: the loop brings
	// it to the cycle's generation, then only the worker reads it until it
	// hands idle back.
	snapshot *schedcache.Snapshot
	// workloads are the PodGroups as the shadows' plugins see them.
	workloads *cycleWorkloads
	// idle holds a token while the worker is free to take a job.
	idle chan struct{}
	jobs chan *job
	// pending is the job of the cycle in progress; only the loop touches it.
	pending *job
}

// New returns a runner with no shadow installed. clk times the figures,
// rand samples the attempts, counter counts the decisions, and workloads
// are the scheduler's PodGroups.
func New(clk clock.PassiveClock, rand func(n int) int, counter Counter, workloads framework.WorkloadLister) *Runner {
	r := &Runner{
		clock: clk, rand: rand, counter: counter,
		snapshot:  schedcache.NewEmptySnapshot(),
		workloads: &cycleWorkloads{WorkloadLister: workloads},
		idle:      make(chan struct{}, 1),
		jobs:      make(chan *job, 1),
	}
	r.idle <- struct{}{}
	empty := map[string][]*Profile{}
	r.byOf.Store(&empty)
	return r
}

// Snapshot is the shadows' own snapshot, which their frameworks read.
func (r *Runner) Snapshot() *schedcache.Snapshot { return r.snapshot }

// Workloads are the PodGroups as the shadows' frameworks are to see them.
func (r *Runner) Workloads() framework.WorkloadLister { return r.workloads }

// job is one attempt's evaluation by the shadows sampled for it.
type job struct {
	pod      *v1.Pod
	profiles []*Profile
	// start is where the live cycle's search started.
	start int
	// searched names the nodes the live cycle filtered when its search
	// stopped before the last node; nil when it filtered them all.
	searched []string
	live     shadow.Live
	// liveFwk is the live profile's framework.
	liveFwk *runtime.Framework
	// reuse says the live cycle's search is to be kept for the shadows
	// that filter like the live profile (runtime.Framework.FiltersLike),
	// and liveFiltered that it was: feasible are the nodes it found and
	// rejecting the plugins that rejected the pod, if it found none.
	reuse, liveFiltered bool
	feasible, rejecting []string
	// group, for a PodGroup's cycle, is the group and what its live cycle
	// decided; the shadows then run the group's cycle dry (group.go).
	group *groupJob
}

// Install starts evaluating p beside the live profile of p.Of, replacing
// an installed shadow of the same Source; its figures start over.
func (r *Runner) Install(p *Profile) {
	p.recorder = shadow.NewRecorder(r.clock)
	r.update(func(m map[string][]*Profile) {
		remove(m, p.Source)
		m[p.Of] = append(m[p.Of], p)
	})
}

// Remove stops evaluating the shadow profile compiled from source and
// reports whether it was installed.
func (r *Runner) Remove(source string) bool {
	removed := false
	r.update(func(m map[string][]*Profile) { removed = remove(m, source) })
	return removed
}

// Profiles returns the installed shadow profiles.
func (r *Runner) Profiles() []*Profile {
	var out []*Profile
	for _, list := range *r.byOf.Load() {
		out = append(out, list...)
	}
	return out
}

// Profile returns the installed shadow profile compiled from source.
func (r *Runner) Profile(source string) (*Profile, bool) {
	for _, list := range *r.byOf.Load() {
		for _, p := range list {
			if p.Source == source {
				return p, true
			}
		}
	}
	return nil, false
}

// update applies change to a copy of the shadows' map and publishes it.
func (r *Runner) update(change func(map[string][]*Profile)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	next := make(map[string][]*Profile)
	for of, list := range *r.byOf.Load() {
		next[of] = slices.Clone(list)
	}
	change(next)
	r.byOf.Store(&next)
}

// remove deletes the shadow of source from m and reports whether it was there.
func remove(m map[string][]*Profile, source string) bool {
	for of, list := range m {
		if i := slices.IndexFunc(list, func(p *Profile) bool { return p.Source == source }); i >= 0 {
			if list = slices.Delete(list, i, i+1); len(list) == 0 {
				delete(m, of)
			} else {
				m[of] = list
			}
			return true
		}
	}
	return false
}

// Pending reports whether the cycle in progress has a job for the worker:
// the loop's snapshot update must then bring Snapshot along
// (schedcache.Cache.UpdateSnapshots), and its search tell NoteSearch.
func (r *Runner) Pending() bool { return r.pending != nil }

// Begin samples the shadows of the pod's schedulerName for the cycle about
// to start with the live framework fwk, whose search starts at node start.
// When some are sampled and the worker is free, the cycle's job is pending;
// when the worker is busy, the sampled shadows count a drop. It runs on
// the scheduling loop and never blocks.
func (r *Runner) Begin(pod *v1.Pod, fwk *runtime.Framework, start int) {
	list := (*r.byOf.Load())[pod.Spec.SchedulerName]
	if len(list) == 0 {
		return
	}
	var sampled []*Profile
	for _, p := range list {
		if p.SampleRatePercent >= 100 || int32(r.rand(100)) < p.SampleRatePercent {
			sampled = append(sampled, p)
		}
	}
	if len(sampled) == 0 {
		return
	}
	select {
	case <-r.idle:
		j := &job{pod: pod, profiles: sampled, start: start, liveFwk: fwk}
		j.reuse = !filterWritesState(pod) && slices.ContainsFunc(sampled, func(p *Profile) bool { return p.Framework.FiltersLike(fwk) })
		r.pending = j
	default:
		for _, p := range sampled {
			r.count(p, shadow.OutcomeDropped)
		}
	}
}

// count counts one outcome of p.
func (r *Runner) count(p *Profile, outcome string) {
	p.recorder.Count(outcome)
	r.counter.CountShadowDecision(p.Source, outcome)
}

// End hands the cycle's job, if any, to the worker with the live decision:
// host, the node the pod was placed on, or err, why it was not. A pod no
// node fits is compared with the plugins that rejected it; a cycle that
// failed otherwise (an error, or a rejection at Reserve or Permit, once a
// node was chosen) gives the worker back.
func (r *Runner) End(host string, err error) {
	j := r.pending
	if j == nil {
		return
	}
	r.pending = nil
	var fitErr *framework.FitError
	switch {
	case err == nil:
		j.live = shadow.Live{Node: host}
	case errors.As(err, &fitErr) && host == "":
		j.live = shadow.Live{Rejecting: sets.List(fitErr.Diagnosis.UnschedulablePlugins)}
	default:
		r.idle <- struct{}{}
		return
	}
	r.jobs <- j
}

// NoteSearch records, for the pending job, which nodes the live cycle's
// search filtered when it did not filter them all: the parallel search
// ends once enough nodes passed, and which ones did depends on timing, so
// the shadows search the same nodes rather than their own share. It is the
// live search's algorithm.Env.OnSearch.
func (r *Runner) NoteSearch(_ *v1.Pod, _ *framework.Placement, search algorithm.Search) {
	feasible, diagnosis, numNodes := search.Feasible, search.Diagnosis, search.NumNodes
	j := r.pending
	if j == nil || j.group != nil {
		return
	}
	if j.reuse {
		j.liveFiltered = true
		j.feasible = make([]string, len(feasible))
		for i, ni := range feasible {
			j.feasible[i] = ni.Name()
		}
		j.rejecting = sets.List(diagnosis.UnschedulablePlugins)
	}
	if len(feasible)+diagnosis.NodeToStatus.Len() >= numNodes || len(feasible) == 0 {
		return
	}
	j.searched = make([]string, 0, len(feasible)+diagnosis.NodeToStatus.Len())
	for _, ni := range feasible {
		j.searched = append(j.searched, ni.Name())
	}
	diagnosis.NodeToStatus.ForEachExplicitNode(func(name string, _ *framework.Status) {
		j.searched = append(j.searched, name)
	})
}

// Run evaluates the jobs until ctx ends.
func (r *Runner) Run(ctx context.Context) {
	logger := klog.FromContext(ctx).WithName("shadow")
	ctx = klog.NewContext(ctx, logger)
	for {
		select {
		case <-ctx.Done():
			return
		case j := <-r.jobs:
			r.work(ctx, j)
		}
	}
}

// work runs every shadow of a job and frees the worker.
func (r *Runner) work(ctx context.Context, j *job) {
	for _, p := range j.profiles {
		if j.group != nil {
			r.evaluateGroup(ctx, p, j)
		} else {
			r.evaluate(ctx, p, j)
		}
	}
	r.idle <- struct{}{}
}

// evaluate runs one shadow profile over the job's snapshot, as the
// scheduling cycle would have, compares it with the live decision and
// records the outcome.
func (r *Runner) evaluate(ctx context.Context, p *Profile, j *job) {
	logger := klog.FromContext(ctx).WithValues("pod", klog.KObj(j.pod), "shadowProfile", p.Source)
	evaluate := r.evaluation
	if j.liveFiltered && p.Framework.FiltersLike(j.liveFwk) {
		evaluate = r.reusedEvaluation
	}
	e, release, err := evaluate(ctx, p.Framework, j)
	if err != nil {
		logger.V(2).Info("Shadow evaluation failed", "err", err)
		r.count(p, shadow.OutcomeError)
		return
	}
	d := shadow.Compare(j.live, e)
	release()
	p.recorder.Record(framework.PodKey(j.pod), d)
	r.counter.CountShadowDecision(p.Source, d.Outcome)
	logger.V(4).Info("Shadow evaluated", "outcome", d.Outcome, "liveNode", d.LiveNode, "shadowNode", d.ShadowNode, "deciding", d.Deciding)
}

// evaluation runs the cycle's search and scoring with fwk on the shadows'
// snapshot. The live node is scored too when the search did not reach it,
// so the two nodes can be compared plugin by plugin. release hands the
// scores back once the comparison is done.
func (r *Runner) evaluation(ctx context.Context, fwk *runtime.Framework, j *job) (shadow.Evaluation, func(), error) {
	var e shadow.Evaluation
	none := func() {}
	snap := r.snapshot
	if snap.NumNodes() == 0 {
		return e, none, algorithm.ErrNoNodes
	}
	state := framework.NewCycleState()
	var (
		feasible  []*framework.NodeInfo
		diagnosis framework.Diagnosis
		err       error
	)
	if j.searched != nil {
		feasible, diagnosis, err = algorithm.FilterNodes(ctx, fwk, snap, state, j.pod, j.searched)
	}
	if j.searched == nil || (err == nil && len(feasible) == 0) {
		// A search over every node, as the cycle's; also when none of the
		// nodes the live cycle searched passes the shadow's filters.
		state = framework.NewCycleState()
		next := j.start
		feasible, diagnosis, err = algorithm.FindFeasibleNodes(ctx, fwk, snap, state, j.pod, &next)
	}
	if err != nil {
		return e, none, err
	}
	defer fwk.ReleaseFeasible(feasible)
	nodes := feasible
	if j.live.Node != "" {
		nodes = algorithm.WithPreferred(ctx, fwk, snap, state, j.pod, feasible, &diagnosis, j.live.Node)
	}
	e = liveEvaluation(nodes, diagnosis, nil, j.live.Node)
	if len(nodes) <= 1 {
		return e, none, nil
	}
	scores, err := algorithm.PrioritizeNodes(ctx, fwk, state, j.pod, nodes)
	if err != nil {
		return e, none, fmt.Errorf("scoring: %w", err)
	}
	e.Scores = scores
	return e, func() { fwk.ReleaseScores(scores) }, nil
}

// reusedEvaluation evaluates a shadow that filters like the live profile:
// the nodes the live cycle found feasible are its own, so it runs PreFilter
// (for the cycle state PreScore and Score read) and scores them, and
// filters nothing. Filtering is most of a cycle's work.
func (r *Runner) reusedEvaluation(ctx context.Context, fwk *runtime.Framework, j *job) (shadow.Evaluation, func(), error) {
	e := shadow.Evaluation{Feasible: j.feasible}
	none := func() {}
	state := framework.NewCycleState()
	if _, st, _ := fwk.RunPreFilterPlugins(ctx, state, j.pod); !st.IsSuccess() && !st.IsRejected() {
		return e, none, st.AsError()
	}
	if len(j.feasible) == 0 {
		e.Rejecting = j.rejecting
		return e, none, nil
	}
	if len(j.feasible) == 1 {
		return e, none, nil
	}
	nodes := make([]*framework.NodeInfo, 0, len(j.feasible))
	for _, name := range j.feasible {
		ni, err := r.snapshot.NodeInfos().Get(name)
		if err != nil {
			return e, none, fmt.Errorf("node %s of the live cycle: %w", name, err)
		}
		nodes = append(nodes, ni)
	}
	scores, err := algorithm.PrioritizeNodes(ctx, fwk, state, j.pod, nodes)
	if err != nil {
		return e, none, fmt.Errorf("scoring: %w", err)
	}
	e.Scores = scores
	return e, func() { fwk.ReleaseScores(scores) }, nil
}

// liveEvaluation is what a shadow's search found, to compare with the live
// node: the feasible nodes (the live one among them when it passed Filter
// after the search ended before it), their scores, the plugin that
// rejected the live node, and the plugins that rejected the pod when no
// node fits.
func liveEvaluation(feasible []*framework.NodeInfo, diagnosis framework.Diagnosis, scores []framework.NodePluginScores, liveNode string) shadow.Evaluation {
	e := shadow.Evaluation{Scores: scores, Feasible: make([]string, len(feasible))}
	for i, ni := range feasible {
		e.Feasible[i] = ni.Name()
	}
	if len(e.Feasible) == 0 {
		e.Rejecting = sets.List(diagnosis.UnschedulablePlugins)
	}
	if liveNode != "" && !slices.Contains(e.Feasible, liveNode) {
		if st := diagnosis.NodeToStatus.Get(liveNode); st != nil && !st.IsSuccess() {
			e.RejectedLive = st.Plugin()
		}
	}
	return e
}

// filterWritesState reports whether Filter keeps per-node state about the
// pod that Score reads (VolumeBinding for its claims, DynamicResources for
// its devices): a shadow must then filter for itself.
func filterWritesState(pod *v1.Pod) bool {
	if len(pod.Spec.ResourceClaims) > 0 {
		return true
	}
	return slices.ContainsFunc(pod.Spec.Volumes, func(v v1.Volume) bool {
		return v.PersistentVolumeClaim != nil || v.Ephemeral != nil
	})
}
