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

// Package explain answers why a pod goes, or would go, where it does: it
// reads the cluster once, compiles a profile as the SchedulingProfile
// controller does, and runs the scheduling cycle's PreFilter, Filter,
// PreScore, Score and NormalizeScore over every node with the scheduler's
// own code, without binding or writing anything. `berth explain` prints it.
package explain

import (
	"context"
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/controllers"
	"github.com/berth-io/berth/scheduler"
	"github.com/berth-io/berth/scheduler/framework/runtime"
)

// SourceCluster is Result.Source for a profile read from the cluster.
const SourceCluster = "cluster"

// Explainer explains pods of one cluster.
type Explainer struct {
	kube     kubernetes.Interface
	berth    client.Reader
	registry runtime.Registry
	opts     options
}

// Option configures an Explainer.
type Option func(*options)

type options struct {
	schedulerOptions []scheduler.Option
	clock            clock.PassiveClock
}

// WithSchedulerOptions passes options to the scheduler built for each
// explanation, e.g. its PodGroup source.
func WithSchedulerOptions(opts ...scheduler.Option) Option {
	return func(o *options) { o.schedulerOptions = append(o.schedulerOptions, opts...) }
}

// WithClock sets the clock of the scheduler built for each explanation,
// which judges whether usage samples are fresh, and the one their ages are
// measured with; the default is the real clock.
func WithClock(c clock.WithTickerAndDelayedExecution) Option {
	return func(o *options) {
		o.clock = c
		o.schedulerOptions = append(o.schedulerOptions, scheduler.WithClock(c))
	}
}

// New returns an Explainer that reads pods, nodes and what the plugins need
// through kube and Berth's SchedulingProfiles and PluginWeights through
// berth, and compiles profiles with registry's plugins, the binary's own.
func New(kube kubernetes.Interface, berth client.Reader, registry runtime.Registry, opts ...Option) *Explainer {
	e := &Explainer{kube: kube, berth: berth, registry: registry, opts: options{clock: clock.RealClock{}}}
	for _, opt := range opts {
		opt(&e.opts)
	}
	return e
}

// Candidate is a profile that is not (yet) in the cluster, with the
// PluginWeights that come with it; both replace the cluster's objects of the
// same names, as `kubectl apply` would.
type Candidate struct {
	// Profile is the candidate SchedulingProfile.
	Profile *v1alpha1.SchedulingProfile
	// Weights are PluginWeights applied with it.
	Weights []v1alpha1.PluginWeight
	// Source names where it was read, e.g. its file.
	Source string
}

// Request says which pod to explain with which profiles.
type Request struct {
	// Namespace and Name identify the pod.
	Namespace, Name string
	// Profile names a SchedulingProfile of the cluster to evaluate.
	Profile string
	// Candidate is a profile from a file to evaluate.
	Candidate *Candidate
	// Nodes limits the node rows of each result; 0 keeps them all.
	Nodes int
}

// Explain evaluates the pod with the profile the request names, the
// candidate, or both (then it compares them); with neither, with the live
// profile that serves the pod's schedulerName.
func (e *Explainer) Explain(ctx context.Context, req Request) (*Report, error) {
	pod, err := e.kube.CoreV1().Pods(req.Namespace).Get(ctx, req.Name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("getting pod %s/%s: %w", req.Namespace, req.Name, err)
	}
	var profiles v1alpha1.SchedulingProfileList
	if err := e.berth.List(ctx, &profiles); err != nil {
		return nil, fmt.Errorf("listing SchedulingProfiles: %w", err)
	}
	var weights v1alpha1.PluginWeightList
	if err := e.berth.List(ctx, &weights); err != nil {
		return nil, fmt.Errorf("listing PluginWeights: %w", err)
	}

	sched, err := scheduler.New(ctx, e.kube, append([]scheduler.Option{scheduler.WithScheduledEvents(false), scheduler.WithRegistry(e.registry)}, e.opts.schedulerOptions...)...)
	if err != nil {
		return nil, fmt.Errorf("building the scheduler: %w", err)
	}
	var plans []*plan
	if req.Profile != "" || req.Candidate == nil {
		p, err := liveProfile(pod, req.Profile, profiles.Items)
		if err != nil {
			return nil, err
		}
		pl, err := compile(ctx, sched, p, SourceCluster, profiles.Items, weights.Items)
		if err != nil {
			return nil, err
		}
		plans = append(plans, pl)
	}
	if c := req.Candidate; c != nil {
		if c.Profile == nil {
			return nil, errors.New("the candidate holds no SchedulingProfile")
		}
		allProfiles := replaceProfile(profiles.Items, c.Profile)
		allWeights := replaceWeights(weights.Items, c.Weights)
		pl, err := compile(ctx, sched, c.Profile, c.Source, allProfiles, allWeights)
		if err != nil {
			return nil, err
		}
		plans = append(plans, pl)
	}

	// The plugins asked for their informers while they were compiled; all
	// of them start and sync now, and stop before the cycle runs.
	if err := sched.SyncOnce(ctx); err != nil {
		return nil, fmt.Errorf("reading the cluster: %w", err)
	}
	fwks := make([]*runtime.Framework, len(plans))
	for i, pl := range plans {
		fwks[i] = pl.fwk
	}
	// The load-aware plugins' sources are read once, now that the nodes
	// they divide usage by are known, so that the cycle reads a fresh sample.
	reads := readUsage(ctx, sched.NodeUsage(), fwks, e.opts.clock.Now)
	evals, err := sched.EvaluatePod(ctx, pod, fwks...)
	if err != nil {
		return nil, fmt.Errorf("evaluating pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	usages := make([]*profileUsage, len(fwks))
	for i, fwk := range fwks {
		if usages[i], err = usageOf(fwk, sched.NodeUsage(), reads); err != nil {
			return nil, err
		}
	}

	report := &Report{
		Pod: pod.Namespace + "/" + pod.Name, SchedulerName: pod.Spec.SchedulerName,
		BoundTo: pod.Spec.NodeName, NominatedNode: pod.Status.NominatedNodeName, TieBreak: TieBreak,
	}
	group, err := sched.EvaluateGroup(ctx, pod, fwks[0])
	if err != nil {
		return nil, fmt.Errorf("evaluating the pod group of %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	if group != nil {
		report.Group = newGroupReport(group, plans[0].profile.Name)
	}
	report.Recorded, report.RecordedNote = recordedDecision(pod, profiles.Items)
	for _, g := range pod.Spec.SchedulingGates {
		report.SchedulingGates = append(report.SchedulingGates, g.Name)
	}
	for i, pl := range plans {
		r := newResult(pod, evals[i], pl.weights)
		r.Profile, r.Source, r.Generation = pl.profile.Name, pl.source, pl.profile.Generation
		r.ServesSchedulerName = controllers.SchedulerNameOf(pl.profile)
		r.ShadowOf = pl.profile.Spec.ShadowOf
		switch {
		case r.ShadowOf != "" && r.ShadowOf != pod.Spec.SchedulerName:
			r.Note = fmt.Sprintf("SchedulingProfile %s shadows schedulerName %s, not the pod's %s", pl.profile.Name, r.ShadowOf, pod.Spec.SchedulerName)
		case r.ShadowOf == "" && r.ServesSchedulerName != pod.Spec.SchedulerName:
			r.Note = fmt.Sprintf("SchedulingProfile %s serves schedulerName %s, not the pod's %s", pl.profile.Name, r.ServesSchedulerName, pod.Spec.SchedulerName)
		}
		report.Results = append(report.Results, r)
	}
	if len(report.Results) == 2 {
		report.Diff = compare(report.Results[0], report.Results[1])
	}
	for i, r := range report.Results {
		r.limit(req.Nodes)
		usages[i].addTo(r)
	}
	return report, nil
}

// plan is one profile compiled for the explanation.
type plan struct {
	profile *v1alpha1.SchedulingProfile
	source  string
	fwk     *runtime.Framework
	weights map[string]int32
}

// compile compiles p as the SchedulingProfile controller does.
func compile(ctx context.Context, sched *scheduler.Scheduler, p *v1alpha1.SchedulingProfile, source string, profiles []v1alpha1.SchedulingProfile, weights []v1alpha1.PluginWeight) (*plan, error) {
	fwk, err := controllers.CompileWithWeights(ctx, sched.CompileProfile, p, profiles, weights)
	if err != nil {
		return nil, fmt.Errorf("compiling SchedulingProfile %s: %w", p.Name, err)
	}
	w := make(map[string]int32)
	for _, info := range fwk.ListPlugins() {
		if info.Weight > 0 {
			w[info.Name] = info.Weight
		}
	}
	return &plan{profile: p, source: source, fwk: fwk, weights: w}, nil
}

// liveProfile returns the SchedulingProfile named name, or, without a name,
// the one serving the pod's schedulerName.
func liveProfile(pod *v1.Pod, name string, profiles []v1alpha1.SchedulingProfile) (*v1alpha1.SchedulingProfile, error) {
	if name != "" {
		for i := range profiles {
			if profiles[i].Name == name {
				return &profiles[i], nil
			}
		}
		return nil, fmt.Errorf("no SchedulingProfile %q in the cluster", name)
	}
	if p := controllers.ServingProfile(pod.Spec.SchedulerName, profiles); p != nil {
		return p, nil
	}
	return nil, fmt.Errorf("no SchedulingProfile serves schedulerName %q of pod %s/%s", pod.Spec.SchedulerName, pod.Namespace, pod.Name)
}

// replaceProfile returns profiles with p in place of the one of its name.
func replaceProfile(profiles []v1alpha1.SchedulingProfile, p *v1alpha1.SchedulingProfile) []v1alpha1.SchedulingProfile {
	out := make([]v1alpha1.SchedulingProfile, 0, len(profiles)+1)
	for _, q := range profiles {
		if q.Name != p.Name {
			out = append(out, q)
		}
	}
	return append(out, *p)
}

// replaceWeights returns weights with each of extra in place of the one of its name.
func replaceWeights(weights, extra []v1alpha1.PluginWeight) []v1alpha1.PluginWeight {
	out := make([]v1alpha1.PluginWeight, 0, len(weights)+len(extra))
	for _, w := range weights {
		if !containsWeight(extra, w.Name) {
			out = append(out, w)
		}
	}
	return append(out, extra...)
}

func containsWeight(weights []v1alpha1.PluginWeight, name string) bool {
	for i := range weights {
		if weights[i].Name == name {
			return true
		}
	}
	return false
}
