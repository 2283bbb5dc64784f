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
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/cache"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/metrics"
	"github.com/berth-io/berth/scheduler/rebalance/evictor"
	"github.com/berth-io/berth/scheduler/rebalance/strategies"
)

// MaxPlanEntries bounds the plan a run keeps, as the status does.
const MaxPlanEntries = 100

// RunResult is what one run of a policy did.
type RunResult struct {
	// Generation is the policy generation that ran.
	Generation int64
	// Start and End bound the run.
	Start, End time.Time
	// DryRun says whether the run made no eviction call.
	DryRun bool
	// Planned counts the evictions chosen within the limits.
	Planned int32
	// Evicted counts the evictions the Eviction API accepted.
	Evicted int32
	// Blocked counts the evictions a PodDisruptionBudget refused.
	Blocked int32
	// Failed counts the evictions that failed otherwise.
	Failed int32
	// Plan lists the first MaxPlanEntries evictions, including those a limit skipped.
	Plan []v1alpha1.PlannedEviction
	// Err says why the run could not start or a strategy stopped; nil when all went well.
	Err error
}

// run is one run of a policy over one snapshot.
type run struct {
	r           *Rebalancer
	policy      *compiledPolicy
	start       time.Time
	nodes       []*framework.NodeInfo
	protections *evictor.Protections
	limits      *evictor.Limits
	// snapshot holds podObjects on nodeObjects as the run started.
	snapshot    *cache.Snapshot
	podObjects  []*v1.Pod
	nodeObjects []*v1.Node
	// nodeFits are the nodeFit checks compiled in this run, by profile.
	nodeFits map[string]*evictor.NodeFit
	// fallback is the profile the policy resolves, read at most once.
	fallback    *profileSpec
	fallbackErr error
	// placed answers where evicted pods would go; nil until asked.
	placed *placements
	// done holds the pods already chosen in this run, whatever became of them.
	done   map[types.UID]bool
	result RunResult
	// releases release the usage stores the run's strategies acquired.
	releases []func()
}

// execute runs every strategy of policy once over a fresh snapshot.
func (r *Rebalancer) execute(ctx context.Context, policy *compiledPolicy, start time.Time) RunResult {
	logger := klog.FromContext(ctx).WithValues("rebalancePolicy", klog.KRef("", policy.name))
	ctx = klog.NewContext(ctx, logger)
	ru := &run{
		r: r, policy: policy, start: start, done: map[types.UID]bool{},
		limits: evictor.NewLimits(policy.spec.Limits), nodeFits: map[string]*evictor.NodeFit{},
	}
	ru.result = RunResult{Generation: policy.generation, Start: ru.start, DryRun: policy.dryRun()}
	defer func() {
		for _, release := range ru.releases {
			release()
		}
	}()
	if r.metrics != nil {
		names := make([]string, len(policy.strategies))
		for i, s := range policy.strategies {
			names[i] = string(s.Name())
		}
		r.metrics.InitRebalancePolicy(policy.name, names)
	}
	if err := ru.prepare(ctx); err != nil {
		ru.result.Err = err
	} else {
		for _, s := range policy.strategies {
			h := &strategyHandle{run: ru, strategy: s.Name(), readsUsage: readsUsage(s)}
			if err := s.Run(ctx, h); err != nil {
				logger.Error(err, "Strategy failed", "strategy", s.Name())
				ru.result.Err = fmt.Errorf("strategy %s: %w", s.Name(), err)
			}
		}
	}
	ru.result.End = r.clock.Now()
	runResult := metrics.RunSucceeded
	if ru.result.Err != nil {
		runResult = metrics.RunFailed
	}
	r.metrics.CountRebalanceRun(policy.name, runResult)
	logger.V(2).Info("Rebalance run finished", "dryRun", ru.result.DryRun, "planned", ru.result.Planned,
		"evicted", ru.result.Evicted, "blocked", ru.result.Blocked, "failed", ru.result.Failed)
	return ru.result
}

// prepare takes the snapshot and builds the evictor of the run.
func (ru *run) prepare(ctx context.Context) error {
	r, spec := ru.r, ru.policy.spec
	nodes, err := r.nodeLister.List(labels.Everything())
	if err != nil {
		return fmt.Errorf("listing nodes: %w", err)
	}
	pods, err := r.podLister.List(labels.Everything())
	if err != nil {
		return fmt.Errorf("listing pods: %w", err)
	}
	ru.snapshot, ru.podObjects, ru.nodeObjects = cache.NewSnapshot(pods, nodes), pods, nodes
	if ru.nodes, err = ru.snapshot.List(); err != nil {
		return fmt.Errorf("listing the snapshot's nodes: %w", err)
	}
	var threshold *int32
	if spec.Evictor != nil {
		if threshold, err = evictor.ResolvePriorityThreshold(ctx, r.client, spec.Evictor.PriorityThreshold); err != nil {
			return err
		}
	}
	if ru.protections, err = evictor.NewProtections(spec, threshold); err != nil {
		return err
	}
	if !ru.policy.nodeFit() {
		return nil
	}
	// The profile the policy resolves is read and compiled now, so that a
	// missing or broken one fails the run before any eviction, even when
	// the pods chosen turn out to be served by live profiles.
	ps, err := ru.policyProfile(ctx)
	if err != nil {
		return fmt.Errorf("nodeFit: %w", err)
	}
	fwk, err := ru.compile(ctx, ps, ru.snapshot)
	if err != nil {
		return fmt.Errorf("nodeFit: %w", err)
	}
	ru.nodeFits[ps.source] = evictor.NewNodeFit(fwk, ru.nodes)
	return nil
}

// record appends an entry to the bounded plan.
func (ru *run) record(pod *v1.Pod, strategy v1alpha1.StrategyName, reason string, result v1alpha1.EvictionResult) {
	ru.recordExpecting(pod, strategy, reason, result, "")
}

// recordExpecting appends an entry to the bounded plan that names the
// node the pod is expected on once evicted.
func (ru *run) recordExpecting(pod *v1.Pod, strategy v1alpha1.StrategyName, reason string, result v1alpha1.EvictionResult, expected string) {
	ru.r.metrics.CountRebalanceEviction(ru.policy.name, string(strategy), strings.ToLower(string(result)))
	if result != v1alpha1.EvictionSkipped {
		ru.result.Planned++
	}
	if len(ru.result.Plan) >= MaxPlanEntries {
		return
	}
	if len(reason) > 1024 {
		reason = reason[:1021] + "..."
	}
	ru.result.Plan = append(ru.result.Plan, v1alpha1.PlannedEviction{
		Namespace: pod.Namespace, Pod: pod.Name, Node: pod.Spec.NodeName,
		Strategy: strategy, Reason: reason, Result: result, ExpectedNode: expected,
	})
}

// strategyHandle is the run as one strategy sees it.
type strategyHandle struct {
	*run
	strategy v1alpha1.StrategyName
	// readsUsage is set for a strategy that reads what nodes use: it evicts
	// no pod the profile serving it would place straight back.
	readsUsage bool
}

// readsUsage reports whether s reads what nodes use rather than requests.
func readsUsage(s strategies.Strategy) bool {
	r, ok := s.(strategies.MetricsReader)
	if !ok {
		return false
	}
	src, _ := r.MetricsSource()
	return src != ""
}

var _ strategies.Handle = (*strategyHandle)(nil)

// Nodes returns the snapshot's nodes.
func (h *strategyHandle) Nodes() []*framework.NodeInfo { return h.nodes }

// Now returns the time the run started.
func (h *strategyHandle) Now() time.Time { return h.start }

// LimitReached reports whether nodeName or the run has used up its evictions.
func (h *strategyHandle) LimitReached(nodeName string) bool { return h.limits.NodeReached(nodeName) }

// Evictable reports whether the protections let pod go and no strategy chose it yet.
func (h *strategyHandle) Evictable(pod *v1.Pod) bool {
	return !h.done[pod.UID] && h.protections.Check(pod, h.start) == nil
}

// Evict plans, and outside a dry run makes, the eviction of pod. A member of
// a gang that would leave its gang below minCount goes with every other
// bound member of the gang, or stays with them (evictGang).
func (h *strategyHandle) Evict(ctx context.Context, pod *v1.Pod, reason string) bool {
	logger := klog.FromContext(ctx).WithValues("pod", klog.KObj(pod), "strategy", h.strategy)
	if h.done[pod.UID] {
		return false
	}
	if err := h.protections.Check(pod, h.start); err != nil {
		logger.V(4).Info("Pod is protected", "why", err.Error())
		return false
	}
	if h.r.gangs != nil {
		if gang, ok := h.r.gangs.GangOf(pod); ok {
			if unit := h.unitOf(pod, gang); unit != nil {
				return h.evictGang(ctx, pod, reason, *unit)
			}
		}
	}
	if err := h.limits.Allow(pod); err != nil {
		h.done[pod.UID] = true
		h.record(pod, h.strategy, reason+"; skipped: "+err.Error(), v1alpha1.EvictionSkipped)
		return false
	}
	if err := h.checkNodeFit(ctx, pod); err != nil {
		logger.V(3).Info("Pod stays: nodeFit found no other node", "why", err.Error())
		return false
	}
	if !h.readsUsage {
		return h.evict(ctx, pod, reason, "")
	}
	expected, why, checked, err := h.expectedNode(ctx, pod)
	switch {
	case !checked && err == nil:
		logger.V(4).Info("No profile of Berth is known to serve the pod: where it goes is not checked", "schedulerName", pod.Spec.SchedulerName)
		return h.evict(ctx, pod, reason, "")
	case err != nil:
		why = "checking where it would be placed: " + err.Error()
		fallthrough
	case expected == "":
		logger.V(3).Info("Pod stays", "why", why)
		h.done[pod.UID] = true
		h.record(pod, h.strategy, reason+"; skipped: "+why, v1alpha1.EvictionSkipped)
		return false
	}
	if !h.evict(ctx, pod, reason, expected) {
		h.unplace(pod, expected)
		return false
	}
	return true
}

// gangUnit is what goes with a gang member that cannot go alone: the
// group whose rule takes it, the rule, and the bound pods that go.
type gangUnit struct {
	// name names the group: the member's PodGroup or a CompositePodGroup
	// above it.
	name string
	// rule is the rule that takes the pods together, for messages.
	rule string
	// why completes the plan's note: why the pods go together.
	why string
	// members are the bound pods that go, pod among them.
	members []*v1.Pod
}

// unitOf returns what must go with pod, a member of gang, or nil when it
// may go alone. Its PodGroup goes whole when its disruption mode is All
// or one member fewer would leave it below minCount; then each
// CompositePodGroup above it goes whole when its disruption mode is All
// or when what goes would take it below its minGroupCount of scheduled
// children. Pods evicted earlier in the run count as gone.
func (h *strategyHandle) unitOf(pod *v1.Pod, gang Gang) *gangUnit {
	staying := func(pods []*v1.Pod) []*v1.Pod {
		var out []*v1.Pod
		for _, m := range pods {
			if !h.done[m.UID] {
				out = append(out, m)
			}
		}
		return out
	}
	var unit *gangUnit
	members := staying(gang.Bound)
	switch {
	case gang.Whole:
		unit = &gangUnit{name: gang.Name, rule: "disruption mode All", why: "whose disruption mode is All"}
	case len(members)-1 < gang.MinCount:
		unit = &gangUnit{name: gang.Name, rule: fmt.Sprintf("minCount %d", gang.MinCount),
			why: fmt.Sprintf("since one fewer would leave it below minCount %d", gang.MinCount)}
	}
	going := []*v1.Pod{pod}
	if unit != nil {
		going = members
	}
	for c := gang.Parent; c != nil; c = c.Parent {
		gone := func(p *v1.Pod) bool {
			return h.done[p.UID] || slices.ContainsFunc(going, func(g *v1.Pod) bool { return g.UID == p.UID })
		}
		switch {
		case c.Whole:
			unit = &gangUnit{name: c.Name, rule: "disruption mode All", why: "whose disruption mode is All"}
		case c.MinGroupCount > 0 && c.scheduled(func(p *v1.Pod) bool { return h.done[p.UID] }) && !c.scheduled(gone):
			unit = &gangUnit{name: c.Name, rule: fmt.Sprintf("minGroupCount %d", c.MinGroupCount),
				why: fmt.Sprintf("since its PodGroups would leave it below minGroupCount %d", c.MinGroupCount)}
		default:
			continue
		}
		going = staying(c.pods())
	}
	if unit == nil {
		return nil
	}
	unit.members = going
	return unit
}

// evictGang evicts pod, a gang member that cannot go alone, together with
// the other bound members of its unit (unit.members, pod among them), or
// none of them: a member that is protected,
// a limit the whole gang would exceed, or a member nodeFit finds no other
// node for keeps the gang where it is, and the plan says so. So does a
// PodDisruptionBudget that does not allow evicting all the members it
// covers, checked before any member goes: the Eviction API takes them one
// by one and would refuse a later member after evicting the earlier ones.
// An eviction refused anyway (the budget changed meanwhile) leaves the
// earlier members evicted; the plan shows each.
func (h *strategyHandle) evictGang(ctx context.Context, pod *v1.Pod, reason string, unit gangUnit) bool {
	ctx = klog.NewContext(ctx, klog.FromContext(ctx).WithValues("gang", unit.name))
	logger := klog.FromContext(ctx).WithValues("pod", klog.KObj(pod), "strategy", h.strategy)
	members := unit.members
	skip := func(why string) bool {
		logger.V(3).Info("Gang stays whole", "why", why)
		h.done[pod.UID] = true
		h.record(pod, h.strategy, fmt.Sprintf("%s; skipped: gang %s stays whole (%s): %s", reason, unit.name, unit.rule, why), v1alpha1.EvictionSkipped)
		return false
	}
	for _, m := range members {
		if m.UID == pod.UID {
			continue
		}
		if err := h.protections.Check(m, h.start); err != nil {
			return skip(fmt.Sprintf("member %s is protected: %v", m.Name, err))
		}
	}
	if err := h.limits.AllowAll(members); err != nil {
		return skip(fmt.Sprintf("evicting its %d members would pass a limit: %v", len(members), err))
	}
	if why, err := h.budgetRefuses(ctx, members); err != nil {
		return skip(fmt.Sprintf("reading its PodDisruptionBudgets: %v", err))
	} else if why != "" {
		return skip(why)
	}
	for _, m := range members {
		if err := h.checkNodeFit(ctx, m); err != nil {
			return skip(fmt.Sprintf("nodeFit found no other node for member %s: %v", m.Name, err))
		}
	}
	note := fmt.Sprintf("%s; with all %d members of gang %s, %s", reason, len(members), unit.name, unit.why)
	evicted := false
	for _, m := range members {
		if ok := h.evict(ctx, m, note, ""); ok && m.UID == pod.UID {
			evicted = true
		}
	}
	return evicted
}

// budgetRefuses says which PodDisruptionBudget of the members' namespace
// does not allow evicting all the members it selects (those it already
// counts as disrupted aside), or "" when every budget does.
func (h *strategyHandle) budgetRefuses(ctx context.Context, members []*v1.Pod) (string, error) {
	if len(members) == 0 {
		return "", nil
	}
	list, err := h.r.client.PolicyV1().PodDisruptionBudgets(members[0].Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return "", fmt.Errorf("listing PodDisruptionBudgets: %w", err)
	}
	for i := range list.Items {
		pdb := &list.Items[i]
		selector, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil || selector.Empty() {
			continue
		}
		needed := 0
		for _, m := range members {
			if _, disrupted := pdb.Status.DisruptedPods[m.Name]; !disrupted && selector.Matches(labels.Set(m.Labels)) {
				needed++
			}
		}
		if needed > int(pdb.Status.DisruptionsAllowed) {
			return fmt.Sprintf("PodDisruptionBudget %s allows %d disruptions, and evicting the gang takes %d", pdb.Name, pdb.Status.DisruptionsAllowed, needed), nil
		}
	}
	return "", nil
}

// evict plans, and outside a dry run makes, one eviction the checks
// allowed; expected, when set, is the node the pod is expected on.
func (h *strategyHandle) evict(ctx context.Context, pod *v1.Pod, reason, expected string) bool {
	logger := klog.FromContext(ctx).WithValues("pod", klog.KObj(pod), "strategy", h.strategy)
	h.done[pod.UID] = true
	if h.result.DryRun {
		h.limits.Count(pod)
		h.recordExpecting(pod, h.strategy, reason, v1alpha1.EvictionPlanned, expected)
		return true
	}
	result, err := evictor.Evict(ctx, h.r.client, pod)
	note := reason
	if err != nil {
		note = reason + "; " + err.Error()
	}
	h.recordExpecting(pod, h.strategy, note, result, expected)
	switch result {
	case v1alpha1.EvictionEvicted:
		h.result.Evicted++
		h.limits.Count(pod)
		logger.V(2).Info("Evicted pod", "node", pod.Spec.NodeName, "reason", reason)
		if h.r.recorder != nil {
			h.r.recorder.Eventf(pod, nil, v1.EventTypeNormal, EventReasonEvicted, "Evict",
				"evicted from node %s by RebalancePolicy %s (%s): %s", pod.Spec.NodeName, h.policy.name, h.strategy, reason)
		}
		return true
	case v1alpha1.EvictionBlocked:
		h.result.Blocked++
		logger.V(2).Info("Eviction blocked by a PodDisruptionBudget", "node", pod.Spec.NodeName)
	default:
		h.result.Failed++
		logger.Error(err, "Eviction failed", "node", pod.Spec.NodeName)
	}
	return false
}
