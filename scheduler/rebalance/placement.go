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

package rebalance

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/cache"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/runtime"
	"github.com/berth-io/berth/scheduler/internal/algorithm"
	"github.com/berth-io/berth/scheduler/rebalance/evictor"
)

// ServingProfiles returns the live framework that serves schedulerName,
// or nil when no live profile of Berth serves it.
type ServingProfiles func(schedulerName string) *runtime.Framework

// WithServingProfiles lets nodeFit and the placement check of the
// strategies that read usage use, for each pod, the live profile that
// serves its schedulerName, compiled again over the run's snapshot.
// Without it, and for pods no live profile serves, they use the profile
// the policy resolves (profileRef, or the install's default profile).
func WithServingProfiles(p ServingProfiles) Option {
	return func(r *Rebalancer) { r.serving = p }
}

// profileSpec is a profile to compile for a run: its spec and weights.
type profileSpec struct {
	// schedulerName is the name the profile serves, for its events.
	schedulerName string
	spec          *v1alpha1.SchedulingProfileSpec
	weights       map[string]runtime.WeightOverride
	// source names the profile in messages.
	source string
}

// servingSpec returns the profile that decides where pod's replacement
// goes, for nodeFit: the live profile serving its schedulerName when the
// policy names no profile and Berth serves the pod, else the policy's
// profile.
func (ru *run) servingSpec(ctx context.Context, pod *v1.Pod) (profileSpec, error) {
	if ps, ok := ru.liveSpec(pod); ok {
		return ps, nil
	}
	return ru.policyProfile(ctx)
}

// liveSpec returns the live profile serving pod's schedulerName, when the
// policy names no profile of its own and one serves it.
func (ru *run) liveSpec(pod *v1.Pod) (profileSpec, bool) {
	if ru.policy.spec.ProfileRef != nil || ru.r.serving == nil {
		return profileSpec{}, false
	}
	fwk := ru.r.serving(pod.Spec.SchedulerName)
	if fwk == nil {
		return profileSpec{}, false
	}
	return profileSpec{
		schedulerName: pod.Spec.SchedulerName, spec: fwk.Spec(), weights: fwk.ScoreWeightOverrides(),
		source: fmt.Sprintf("the profile serving %q", pod.Spec.SchedulerName),
	}, true
}

// placingSpec returns the profile whose placement of pod's replacement the
// strategies that read usage check: the policy's profileRef, else the live
// profile serving the pod; ok is false when neither is known (a pod
// another scheduler serves), and the pod is not checked.
func (ru *run) placingSpec(ctx context.Context, pod *v1.Pod) (ps profileSpec, ok bool, err error) {
	if ru.policy.spec.ProfileRef != nil {
		ps, err = ru.policyProfile(ctx)
		return ps, err == nil, err
	}
	ps, ok = ru.liveSpec(pod)
	return ps, ok, nil
}

// policyProfile reads the SchedulingProfile the policy resolves, once a run.
func (ru *run) policyProfile(ctx context.Context) (profileSpec, error) {
	if ru.fallback != nil {
		return *ru.fallback, ru.fallbackErr
	}
	name := ru.policy.profileName()
	var p v1alpha1.SchedulingProfile
	ru.fallback = &profileSpec{source: "SchedulingProfile " + name}
	if ru.r.objects == nil {
		ru.fallbackErr = fmt.Errorf("reading SchedulingProfile %s: no client", name)
		return *ru.fallback, ru.fallbackErr
	}
	if err := ru.r.objects.Get(ctx, types.NamespacedName{Name: name}, &p); err != nil {
		ru.fallbackErr = fmt.Errorf("reading SchedulingProfile %s: %w", name, err)
		return *ru.fallback, ru.fallbackErr
	}
	ru.fallback.schedulerName = p.Spec.SchedulerName
	if ru.fallback.schedulerName == "" {
		ru.fallback.schedulerName = p.Name
	}
	ru.fallback.spec = &p.Spec
	return *ru.fallback, nil
}

// compile builds ps over snap; the framework records no scheduler metrics.
func (ru *run) compile(ctx context.Context, ps profileSpec, snap *cache.Snapshot) (*runtime.Framework, error) {
	opts := []runtime.Option{runtime.WithSnapshotSharedLister(snap), runtime.WithMetrics(nil)}
	if len(ps.weights) > 0 {
		opts = append(opts, runtime.WithScoreWeights(ps.weights))
	}
	fwk, err := ru.r.compiler.CompileProfile(ctx, ps.schedulerName, ps.spec, opts...)
	if err != nil {
		return nil, fmt.Errorf("compiling %s: %w", ps.source, err)
	}
	return fwk, nil
}

// nodeFitFor returns the nodeFit check of the profile that serves pod,
// compiled once a run per profile.
func (ru *run) nodeFitFor(ctx context.Context, pod *v1.Pod) (*evictor.NodeFit, error) {
	ps, err := ru.servingSpec(ctx, pod)
	if err != nil {
		return nil, err
	}
	if fit, ok := ru.nodeFits[ps.source]; ok {
		return fit, nil
	}
	fwk, err := ru.compile(ctx, ps, ru.snapshot)
	if err != nil {
		return nil, err
	}
	fit := evictor.NewNodeFit(fwk, ru.nodes)
	ru.nodeFits[ps.source] = fit
	return fit, nil
}

// checkNodeFit returns nil when nodeFit is off or finds pod another node,
// else why not.
func (ru *run) checkNodeFit(ctx context.Context, pod *v1.Pod) error {
	if !ru.policy.nodeFit() {
		return nil
	}
	fit, err := ru.nodeFitFor(ctx, pod)
	if err != nil {
		return fmt.Errorf("nodeFit: %w", err)
	}
	return fit.Check(ctx, pod)
}

// placements answers, for the strategies that read what nodes use, where
// the profile serving a pod would place it once evicted. It evaluates over
// a snapshot of its own, built at the first question of a run, on which
// each eviction the run makes moves its pod to the node expected: a later
// pod's answer counts the earlier ones where they are expected to land.
// What nodes use is read as the scheduler would read it right after the
// eviction: the store's last sample, with the pod still in it.
type placements struct {
	snap       *cache.Snapshot
	frameworks map[string]*runtime.Framework
}

// expectedNode returns the node the profile serving pod would pick for
// its replacement on the run's placement snapshot, and moves pod there;
// or "" and why when that is pod's own node or no node fits, leaving pod
// where it is. checked is false, and nothing moves, when no profile of
// Berth is known to serve pod.
func (ru *run) expectedNode(ctx context.Context, pod *v1.Pod) (node, why string, checked bool, err error) {
	ps, ok, err := ru.placingSpec(ctx, pod)
	if err != nil || !ok {
		return "", "", ok, err
	}
	if ru.placed == nil {
		ru.placed = &placements{snap: cache.NewSnapshot(ru.podObjects, ru.nodeObjects), frameworks: map[string]*runtime.Framework{}}
	}
	fwk, ok := ru.placed.frameworks[ps.source]
	if !ok {
		if fwk, err = ru.compile(ctx, ps, ru.placed.snap); err != nil {
			return "", "", true, err
		}
		ru.placed.frameworks[ps.source] = fwk
	}
	own := pod.Spec.NodeName
	if err := ru.placed.snap.RemovePod(pod, own); err != nil {
		return "", "", true, fmt.Errorf("taking pod off node %s: %w", own, err)
	}
	pending := pod.DeepCopy()
	pending.Spec.NodeName = ""
	e, evalErr := algorithm.Evaluate(ctx, fwk, ru.placed.snap, pending)
	best, why := bestNode(e, own, ps.source)
	if evalErr != nil || best == "" {
		return "", why, true, ru.placeBack(pod, own, evalErr)
	}
	pi, _ := framework.NewPodInfo(algorithm.AssumedCopy(pod, best))
	if err := ru.placed.snap.AddPod(pi, best); err != nil {
		return "", "", true, fmt.Errorf("placing pod on node %s: %w", best, err)
	}
	return best, "", true, nil
}

// unplace undoes expectedNode's move of pod to node, for an eviction that
// did not happen.
func (ru *run) unplace(pod *v1.Pod, node string) {
	if err := ru.placed.snap.RemovePod(algorithm.AssumedCopy(pod, node), node); err == nil {
		_ = ru.placeBack(pod, pod.Spec.NodeName, nil)
	}
}

// placeBack returns pod to its node on the placement snapshot, and err.
func (ru *run) placeBack(pod *v1.Pod, node string, err error) error {
	pi, _ := framework.NewPodInfo(pod)
	if addErr := ru.placed.snap.AddPod(pi, node); addErr != nil && err == nil {
		err = fmt.Errorf("putting pod back on node %s: %w", node, addErr)
	}
	return err
}

// bestNode returns the node the scheduler would pick among e's feasible
// nodes, or "" and why the pod stays: no node fits, or its own node is
// among the best (the scheduler picks uniformly among nodes that tie, so
// the pod could come straight back).
func bestNode(e *algorithm.Evaluation, own, source string) (string, string) {
	if e == nil || len(e.Feasible) == 0 {
		return "", fmt.Sprintf("no node passes the filters of %s", source)
	}
	if len(e.Feasible) == 1 {
		if e.Feasible[0] == own {
			return "", fmt.Sprintf("%s would place it straight back on node %s, the only node that fits", source, own)
		}
		return e.Feasible[0], ""
	}
	best, bestScore, ownScore, ownFeasible := "", int64(0), int64(0), false
	for _, s := range e.Scores {
		if s.Name == own {
			ownScore, ownFeasible = s.TotalScore, true
			continue
		}
		if best == "" || s.TotalScore > bestScore {
			best, bestScore = s.Name, s.TotalScore
		}
	}
	if ownFeasible && ownScore >= bestScore {
		return "", fmt.Sprintf("%s would place it straight back on node %s (score %d; best other node %s, %d)", source, own, ownScore, best, bestScore)
	}
	return best, ""
}
