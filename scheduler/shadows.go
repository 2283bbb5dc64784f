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

package scheduler

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

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/runtime"
	"github.com/berth-io/berth/scheduler/internal/algorithm"
	"github.com/berth-io/berth/scheduler/shadow"

	schedcache "github.com/berth-io/berth/scheduler/cache"
)

// ShadowProfile is a compiled shadow profile: it is evaluated beside the
// live profile serving Of and never binds.
type ShadowProfile struct {
	// Framework is the shadow's compiled profile, from CompileShadow.
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

// ShadowStats are a shadow profile's figures, as ShadowStats returns them.
type ShadowStats struct {
	shadow.Stats
	// Generation is the generation they were counted for.
	Generation int64
	// LiveProfile names the SchedulingProfile serving the shadowed
	// schedulerName now, or "" when none does.
	LiveProfile string
	// Version changes whenever the figures do.
	Version uint64
}

// shadows holds the installed shadow profiles and the one worker that
// evaluates them. The scheduling loop never waits for the worker: a pod
// sampled while the worker is busy is counted as dropped.
type shadows struct {
	mu sync.Mutex
	// byOf maps a shadowed schedulerName to its shadows; it is replaced,
	// never changed, so the loop reads it without a lock.
	byOf atomic.Pointer[map[string][]*ShadowProfile]
	// snapshot is what the shadows are compiled against: the loop brings
	// it to the cycle's generation, then only the worker reads it until it
	// hands idle back.
	snapshot *schedcache.Snapshot
	// workloads are the PodGroups as the shadows' plugins see them.
	workloads *shadowWorkloads
	// idle holds a token while the worker is free to take a job.
	idle chan struct{}
	jobs chan *shadowJob
	// pending is the job of the cycle in progress; only the loop touches it.
	pending *shadowJob
}

// shadowJob is one pod's evaluation by the shadows sampled for it.
type shadowJob struct {
	pod      *v1.Pod
	profiles []*ShadowProfile
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
	// decided; the shadows then run the group's cycle dry (shadow_group.go).
	group *groupShadowJob
}

func newShadows() *shadows {
	sh := &shadows{snapshot: schedcache.NewEmptySnapshot(), workloads: &shadowWorkloads{}, idle: make(chan struct{}, 1), jobs: make(chan *shadowJob, 1)}
	sh.idle <- struct{}{}
	empty := map[string][]*ShadowProfile{}
	sh.byOf.Store(&empty)
	return sh
}

// CompileShadow builds a shadow profile's framework from spec: the live
// profiles' plugins and handle, but bound to the shadows' own snapshot and
// filtering and scoring on one goroutine, so that it takes as little as
// possible from the scheduling loop.
func (s *Scheduler) CompileShadow(ctx context.Context, name string, spec *v1alpha1.SchedulingProfileSpec, opts ...runtime.Option) (*runtime.Framework, error) {
	own := append([]runtime.Option{runtime.WithSnapshotSharedLister(s.shadows.snapshot), runtime.WithParallelism(1), runtime.WithWorkloads(s.shadows.workloads)}, opts...)
	return s.CompileProfile(ctx, name, spec, own...)
}

// InstallShadow starts evaluating p beside the live profile of p.Of,
// replacing an installed shadow of the same Source; its figures start over.
func (s *Scheduler) InstallShadow(ctx context.Context, p *ShadowProfile) {
	p.recorder = shadow.NewRecorder(s.clock)
	s.updateShadows(func(m map[string][]*ShadowProfile) {
		removeShadow(m, p.Source)
		m[p.Of] = append(m[p.Of], p)
	})
	klog.FromContext(ctx).Info("Shadow profile is live", "profile", p.Source, "generation", p.Generation, "shadowOf", p.Of, "sampleRatePercent", p.SampleRatePercent)
}

// RemoveShadow stops evaluating the shadow profile compiled from source.
func (s *Scheduler) RemoveShadow(ctx context.Context, source string) {
	removed := false
	s.updateShadows(func(m map[string][]*ShadowProfile) { removed = removeShadow(m, source) })
	if removed {
		s.metrics.DeleteShadowProfile(source)
		klog.FromContext(ctx).Info("Shadow profile removed", "profile", source)
	}
}

// ShadowStats returns the figures of the shadow profile compiled from source.
func (s *Scheduler) ShadowStats(source string) (ShadowStats, bool) {
	for of, list := range *s.shadows.byOf.Load() {
		for _, p := range list {
			if p.Source != source {
				continue
			}
			st := ShadowStats{Stats: p.recorder.Stats(), Generation: p.Generation, Version: p.recorder.Version()}
			if live := s.profiles.Get(of); live != nil {
				st.LiveProfile = live.Source
			}
			return st, true
		}
	}
	return ShadowStats{}, false
}

// updateShadows applies change to a copy of the shadows' map and publishes it.
func (s *Scheduler) updateShadows(change func(map[string][]*ShadowProfile)) {
	s.shadows.mu.Lock()
	defer s.shadows.mu.Unlock()
	next := make(map[string][]*ShadowProfile)
	for of, list := range *s.shadows.byOf.Load() {
		next[of] = slices.Clone(list)
	}
	change(next)
	s.shadows.byOf.Store(&next)
}

// removeShadow deletes the shadow of source from m and reports whether it was there.
func removeShadow(m map[string][]*ShadowProfile, source string) bool {
	for of, list := range m {
		if i := slices.IndexFunc(list, func(p *ShadowProfile) bool { return p.Source == source }); i >= 0 {
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

// beginShadow samples the shadows of the pod's schedulerName for the cycle
// about to start with the live framework fwk. When some are sampled and the
// worker is free, the cycle's snapshot update brings the shadows' snapshot
// along (updateSnapshot); when the worker is busy, the sampled shadows
// count a drop. It runs on the scheduling loop and never blocks.
func (s *Scheduler) beginShadow(pod *v1.Pod, fwk *runtime.Framework) {
	list := (*s.shadows.byOf.Load())[pod.Spec.SchedulerName]
	if len(list) == 0 {
		return
	}
	var sampled []*ShadowProfile
	for _, p := range list {
		if p.SampleRatePercent >= 100 || int32(s.rand(100)) < p.SampleRatePercent {
			sampled = append(sampled, p)
		}
	}
	if len(sampled) == 0 {
		return
	}
	select {
	case <-s.shadows.idle:
		job := &shadowJob{pod: pod, profiles: sampled, start: s.nextStartNodeIndex, liveFwk: fwk}
		job.reuse = !filterWritesState(pod) && slices.ContainsFunc(sampled, func(p *ShadowProfile) bool { return p.Framework.FiltersLike(fwk) })
		s.shadows.pending = job
	default:
		for _, p := range sampled {
			p.recorder.Count(shadow.OutcomeDropped)
			s.metrics.CountShadowDecision(p.Source, shadow.OutcomeDropped)
		}
	}
}

// endShadow hands the cycle's job, if any, to the worker with the live
// decision: the node the pod was placed on, or the plugins that found it
// unschedulable. A cycle that failed otherwise gives the worker back.
func (s *Scheduler) endShadow(host string, failure *schedulingFailure) {
	job := s.shadows.pending
	if job == nil {
		return
	}
	s.shadows.pending = nil
	var fitErr *framework.FitError
	switch {
	case failure == nil:
		job.live = shadow.Live{Node: host}
	case errors.As(failure.err, &fitErr) && host == "":
		job.live = shadow.Live{Rejecting: sets.List(fitErr.Diagnosis.UnschedulablePlugins)}
	default:
		// An error, or a rejection at Reserve or Permit: the live profile
		// chose a node the shadows are not compared with.
		s.shadows.idle <- struct{}{}
		return
	}
	s.shadows.jobs <- job
}

// noteShadowSearch records, for the pending shadow job, which nodes the
// live cycle's search filtered when it did not filter them all: the
// parallel search ends once enough nodes passed, and which ones did
// depends on timing, so the shadows search the same nodes rather than
// their own share.
func (s *Scheduler) noteShadowSearch(_ *v1.Pod, _ *framework.Placement, search algorithm.Search) {
	feasible, diagnosis, numNodes := search.Feasible, search.Diagnosis, search.NumNodes
	job := s.shadows.pending
	if job == nil || job.group != nil {
		return
	}
	if job.reuse {
		job.liveFiltered = true
		job.feasible = make([]string, len(feasible))
		for i, ni := range feasible {
			job.feasible[i] = ni.Name()
		}
		job.rejecting = sets.List(diagnosis.UnschedulablePlugins)
	}
	if len(feasible)+diagnosis.NodeToStatus.Len() >= numNodes || len(feasible) == 0 {
		return
	}
	job.searched = make([]string, 0, len(feasible)+diagnosis.NodeToStatus.Len())
	for _, ni := range feasible {
		job.searched = append(job.searched, ni.Name())
	}
	diagnosis.NodeToStatus.ForEachExplicitNode(func(name string, _ *framework.Status) {
		job.searched = append(job.searched, name)
	})
}

// updateSnapshot brings the cycle's snapshot, and the shadows' when a
// shadow job is pending, to the cache's current generation.
func (s *Scheduler) updateSnapshot(ctx context.Context) error {
	if s.shadows.pending == nil {
		return s.cache.UpdateSnapshot(klog.FromContext(ctx), s.snapshot)
	}
	return s.cache.UpdateSnapshots(klog.FromContext(ctx), s.snapshot, s.shadows.snapshot)
}

// runShadows evaluates the shadow jobs until ctx ends.
func (s *Scheduler) runShadows(ctx context.Context) {
	logger := klog.FromContext(ctx).WithName("shadow")
	ctx = klog.NewContext(ctx, logger)
	for {
		select {
		case <-ctx.Done():
			return
		case job := <-s.shadows.jobs:
			for _, p := range job.profiles {
				if job.group != nil {
					s.evaluateGroupShadow(ctx, p, job)
				} else {
					s.evaluateShadow(ctx, p, job)
				}
			}
			s.shadows.idle <- struct{}{}
		}
	}
}

// evaluateShadow runs one shadow profile over the job's snapshot, as the
// scheduling cycle would have, compares it with the live decision and
// records the outcome.
func (s *Scheduler) evaluateShadow(ctx context.Context, p *ShadowProfile, job *shadowJob) {
	logger := klog.FromContext(ctx).WithValues("pod", klog.KObj(job.pod), "shadowProfile", p.Source)
	evaluate := s.shadowEvaluation
	if job.liveFiltered && p.Framework.FiltersLike(job.liveFwk) {
		evaluate = s.reusedEvaluation
	}
	e, release, err := evaluate(ctx, p.Framework, job)
	if err != nil {
		logger.V(2).Info("Shadow evaluation failed", "err", err)
		p.recorder.Count(shadow.OutcomeError)
		s.metrics.CountShadowDecision(p.Source, shadow.OutcomeError)
		return
	}
	d := shadow.Compare(job.live, e)
	release()
	p.recorder.Record(framework.PodKey(job.pod), d)
	s.metrics.CountShadowDecision(p.Source, d.Outcome)
	logger.V(4).Info("Shadow evaluated", "outcome", d.Outcome, "liveNode", d.LiveNode, "shadowNode", d.ShadowNode, "deciding", d.Deciding)
}

// shadowEvaluation runs the cycle's search and scoring with fwk on the
// shadows' snapshot. The live node is scored too when the search did not
// reach it, so the two nodes can be compared plugin by plugin. release
// hands the scores back once the comparison is done.
func (s *Scheduler) shadowEvaluation(ctx context.Context, fwk *runtime.Framework, job *shadowJob) (shadow.Evaluation, func(), error) {
	var e shadow.Evaluation
	none := func() {}
	snap := s.shadows.snapshot
	if snap.NumNodes() == 0 {
		return e, none, algorithm.ErrNoNodes
	}
	state := framework.NewCycleState()
	var (
		feasible  []*framework.NodeInfo
		diagnosis framework.Diagnosis
		err       error
	)
	if job.searched != nil {
		feasible, diagnosis, err = algorithm.FilterNodes(ctx, fwk, snap, state, job.pod, job.searched)
	}
	if job.searched == nil || (err == nil && len(feasible) == 0) {
		// A search over every node, as the cycle's; also when none of the
		// nodes the live cycle searched passes the shadow's filters.
		state = framework.NewCycleState()
		next := job.start
		feasible, diagnosis, err = algorithm.FindFeasibleNodes(ctx, fwk, snap, state, job.pod, &next)
	}
	if err != nil {
		return e, none, err
	}
	defer fwk.ReleaseFeasible(feasible)
	nodes := feasible
	if live := job.live.Node; live != "" && !slices.ContainsFunc(feasible, func(ni *framework.NodeInfo) bool { return ni.Name() == live }) {
		switch st := diagnosis.NodeToStatus.Get(live); {
		case st != nil && !st.IsSuccess():
			e.RejectedLive = st.Plugin()
		case len(feasible) > 0:
			// The search ended before the live node.
			if ni, err := snap.NodeInfos().Get(live); err == nil {
				if st := fwk.RunFilterPluginsWithNominatedPods(ctx, state, job.pod, ni); st.IsSuccess() {
					nodes = append(slices.Clip(feasible), ni)
				} else {
					e.RejectedLive = st.Plugin()
				}
			}
		}
	}
	for _, ni := range nodes {
		e.Feasible = append(e.Feasible, ni.Name())
	}
	if len(nodes) == 0 {
		e.Rejecting = sets.List(diagnosis.UnschedulablePlugins)
		return e, none, nil
	}
	if len(nodes) == 1 {
		return e, none, nil
	}
	scores, err := algorithm.PrioritizeNodes(ctx, fwk, state, job.pod, nodes)
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
func (s *Scheduler) reusedEvaluation(ctx context.Context, fwk *runtime.Framework, job *shadowJob) (shadow.Evaluation, func(), error) {
	e := shadow.Evaluation{Feasible: job.feasible}
	none := func() {}
	state := framework.NewCycleState()
	if _, st, _ := fwk.RunPreFilterPlugins(ctx, state, job.pod); !st.IsSuccess() && !st.IsRejected() {
		return e, none, st.AsError()
	}
	if len(job.feasible) == 0 {
		e.Rejecting = job.rejecting
		return e, none, nil
	}
	if len(job.feasible) == 1 {
		return e, none, nil
	}
	nodes := make([]*framework.NodeInfo, 0, len(job.feasible))
	for _, name := range job.feasible {
		ni, err := s.shadows.snapshot.NodeInfos().Get(name)
		if err != nil {
			return e, none, fmt.Errorf("node %s of the live cycle: %w", name, err)
		}
		nodes = append(nodes, ni)
	}
	scores, err := algorithm.PrioritizeNodes(ctx, fwk, state, job.pod, nodes)
	if err != nil {
		return e, none, fmt.Errorf("scoring: %w", err)
	}
	e.Scores = scores
	return e, func() { fwk.ReleaseScores(scores) }, nil
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
