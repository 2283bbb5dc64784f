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

package defaultpreemption

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"

	v1 "k8s.io/api/core/v1"
	policy "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/framework"
)

// candidate is a node where the preemptor fits once its victims are gone.
type candidate struct {
	node string
	// victims are ordered from the most to the least important.
	victims []*v1.Pod
	// pdbViolations counts the victims whose eviction a PodDisruptionBudget does not allow.
	pdbViolations int
}

// findCandidates dry-runs preemption on the nodes whose rejection more room
// may resolve, starting at a random node, until enough candidates are found.
// It returns the candidates and each tried node's reason for not being one.
func (p *DefaultPreemption) findCandidates(ctx context.Context, state *framework.CycleState, pod *v1.Pod, statuses framework.NodeToStatusReader, lister framework.NodeInfoLister) ([]*candidate, *framework.NodeToStatus, error) {
	potential, err := statuses.NodesForStatusCode(lister, framework.Unschedulable)
	if err != nil {
		return nil, nil, fmt.Errorf("listing the nodes preemption may help on: %w", err)
	}
	if len(potential) == 0 {
		klog.FromContext(ctx).V(3).Info("Preemption helps on no node")
		return nil, framework.NewNodeToStatus(), nil
	}
	// The statuses may come out in map order; a fixed order makes the
	// random offset the only source of variation.
	sort.Slice(potential, func(i, j int) bool { return potential[i].Node().Name < potential[j].Node().Name })
	var pdbs []*policy.PodDisruptionBudget
	if p.pdbLister != nil {
		if pdbs, err = p.pdbLister.List(labels.Everything()); err != nil {
			return nil, nil, fmt.Errorf("listing PodDisruptionBudgets: %w", err)
		}
	}
	return p.dryRun(ctx, state, pod, potential, pdbs, p.rand(len(potential)), p.numCandidates(len(potential)))
}

// dryRun looks for victims on the potential nodes in parallel, starting at
// offset, and stops once want candidates are found with at least one that
// violates no PodDisruptionBudget. Candidates without violations come first.
func (p *DefaultPreemption) dryRun(ctx context.Context, state *framework.CycleState, pod *v1.Pod, potential []*framework.NodeInfo, pdbs []*policy.PodDisruptionBudget, offset, want int) ([]*candidate, *framework.NodeToStatus, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu                  sync.Mutex
		clean, violating    []*candidate
		errs                []error
		nodeStatuses        = framework.NewNodeToStatus()
		preemptorPriority   = corev1helpers.PodPriority(pod)
		logger              = klog.FromContext(ctx)
		enoughCandidatesNow = func() bool { return len(clean) > 0 && len(clean)+len(violating) >= want }
		groups              = sync.OnceValues(p.wholeGroupVictims)
	)
	// One status serves every node without pods to preempt.
	noVictims := framework.NewStatus(framework.UnschedulableAndUnresolvable, msgNoVictims)
	check := func(i int) {
		ni := potential[(offset+i)%len(potential)]
		name := ni.Node().Name
		units, err := p.nodeVictims(ni, preemptorPriority, groups)
		if err != nil {
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
			return
		}
		if len(units) == 0 {
			mu.Lock()
			nodeStatuses.Set(name, noVictims)
			mu.Unlock()
			return
		}
		victims, violations, st := p.selectVictimsOnNode(ctx, state, pod, ni, units, pdbs)
		if st.IsSuccess() && len(victims) == 0 {
			st = framework.AsStatus(fmt.Errorf("expected at least one victim pod on node %q", name))
		}
		mu.Lock()
		defer mu.Unlock()
		if !st.IsSuccess() {
			if st.Code() == framework.Error {
				errs = append(errs, st.AsError())
			}
			nodeStatuses.Set(name, st)
			return
		}
		c := &candidate{node: name, victims: victims, pdbViolations: violations}
		if violations == 0 {
			if len(clean) < want {
				clean = append(clean, c)
			}
		} else if len(violating) < want {
			violating = append(violating, c)
		}
		logger.V(5).Info("Found a preemption candidate", "node", klog.KRef("", name), "victims", len(victims), "pdbViolations", violations)
		if enoughCandidatesNow() {
			cancel()
		}
	}
	p.parallelizer.Until(ctx, len(potential), check, Name)
	return append(clean, violating...), nodeStatuses, errors.Join(errs...)
}

// nodeVictims returns what preempting for a pod of the priority may evict
// to make room on the node, as kube-scheduler v1.37 with workload-aware
// preemption does: each pod on it whose preemption priority (victimUnitOf)
// is lower, alone or, for a member of a group whose disruption mode is All,
// with every placed pod of that group, wherever it runs (groups supplies
// those).
func (p *DefaultPreemption) nodeVictims(ni *framework.NodeInfo, priority int32, groups func() (map[victimKey]*groupVictim, error)) ([]*groupVictim, error) {
	var out []*groupVictim
	for _, v := range p.groupVictims([]*framework.NodeInfo{ni}) {
		if v.priority >= priority {
			continue
		}
		if v.whole {
			all, err := groups()
			if err != nil {
				return nil, err
			}
			v = all[v.key]
		}
		out = append(out, v)
	}
	return out, nil
}

// wholeGroupVictims returns the victims of the groups whose disruption mode
// is All across the snapshot, each with all its placed pods.
func (p *DefaultPreemption) wholeGroupVictims() (map[victimKey]*groupVictim, error) {
	nodes, err := p.handle.SnapshotSharedLister().NodeInfos().List()
	if err != nil {
		return nil, fmt.Errorf("listing the snapshot's nodes: %w", err)
	}
	out := map[victimKey]*groupVictim{}
	for _, v := range p.groupVictims(nodes) {
		if v.whole {
			out[v.key] = v
		}
	}
	return out, nil
}

// selectVictimsOnNode finds the fewest, least important victims to take
// for the preemptor to fit on the node, working on copies of the node and
// the cycle state: it removes every potential victim (a group's pods on
// other nodes only from the plugins' cycle state, as upstream does), checks
// that the preemptor then fits, and gives the victims back from the most
// important down as long as it still fits, trying the ones a
// PodDisruptionBudget protects first (a victim is protected when any of its
// pods is). It returns the victims' pods, the most important victim's
// first, and how many of them violate a budget.
func (p *DefaultPreemption) selectVictimsOnNode(ctx context.Context, state *framework.CycleState, preemptor *v1.Pod, nodeInfo *framework.NodeInfo, potential []*groupVictim, pdbs []*policy.PodDisruptionBudget) ([]*v1.Pod, int, *framework.Status) {
	if len(potential) == 0 {
		return nil, 0, framework.NewStatus(framework.UnschedulableAndUnresolvable, msgNoVictims)
	}
	state, nodeInfo = state.Clone(), nodeInfo.Clone()
	main := nodeInfo.Node().Name
	lister := p.handle.SnapshotSharedLister().NodeInfos()
	nodeOf := func(pi *framework.PodInfo) (*framework.NodeInfo, error) {
		if name := pi.Pod.Spec.NodeName; name != main {
			return lister.Get(name)
		}
		return nodeInfo, nil
	}
	remove := func(v *groupVictim) error {
		for _, pi := range v.pods {
			ni, err := nodeOf(pi)
			if err != nil {
				return err
			}
			if ni == nodeInfo {
				if err := nodeInfo.RemovePod(pi.Pod); err != nil {
					return err
				}
			}
			if st := p.runner.RunPreFilterExtensionRemovePod(ctx, state, preemptor, pi, ni); !st.IsSuccess() {
				return st.AsError()
			}
		}
		return nil
	}
	add := func(v *groupVictim) error {
		for _, pi := range v.pods {
			ni, err := nodeOf(pi)
			if err != nil {
				return err
			}
			if ni == nodeInfo {
				nodeInfo.AddPodInfo(pi)
			}
			if st := p.runner.RunPreFilterExtensionAddPod(ctx, state, preemptor, pi, ni); !st.IsSuccess() {
				return st.AsError()
			}
		}
		return nil
	}
	for _, v := range potential {
		if err := remove(v); err != nil {
			return nil, 0, framework.AsStatus(err)
		}
	}
	// Affinity of the preemptor to its own victims is not considered, as upstream:
	// if it does not fit with all of them gone, the node is no candidate.
	if st := p.runner.RunFilterPluginsWithNominatedPods(ctx, state, preemptor, nodeInfo); !st.IsSuccess() {
		return nil, 0, st
	}

	potential = slices.Clone(potential)
	sort.SliceStable(potential, func(i, j int) bool { return moreImportantVictim(potential[i], potential[j]) })
	violatingVictims, cleanVictims, violatingPods := splitVictimsByPDB(potential, pdbs)

	var victims []*groupVictim
	reprieve := func(v *groupVictim) (bool, error) {
		if err := add(v); err != nil {
			return false, err
		}
		if p.runner.RunFilterPluginsWithNominatedPods(ctx, state, preemptor, nodeInfo).IsSuccess() {
			return true, nil
		}
		if err := remove(v); err != nil {
			return false, err
		}
		victims = append(victims, v)
		return false, nil
	}
	violations := 0
	for _, v := range violatingVictims {
		fits, err := reprieve(v)
		if err != nil {
			return nil, 0, framework.AsStatus(err)
		}
		if !fits {
			violations += violatingPods[v]
		}
	}
	for _, v := range cleanVictims {
		if _, err := reprieve(v); err != nil {
			return nil, 0, framework.AsStatus(err)
		}
	}
	if len(violatingVictims) > 0 && len(cleanVictims) > 0 {
		sort.SliceStable(victims, func(i, j int) bool { return moreImportantVictim(victims[i], victims[j]) })
	}
	var pods []*v1.Pod
	for _, v := range victims {
		for _, pi := range v.pods {
			pods = append(pods, pi.Pod)
		}
	}
	return pods, violations, nil
}

// startTime is when the pod started, or now for a pod that has not.
func startTime(pod *v1.Pod, now metav1.Time) metav1.Time {
	if pod.Status.StartTime != nil {
		return *pod.Status.StartTime
	}
	return now
}

// splitVictimsByPDB splits the victims, in order, into those one of whose
// pods some PodDisruptionBudget does not allow evicting and the rest, and
// counts the pods of each of the first kind that exceed a budget.
func splitVictimsByPDB(victims []*groupVictim, pdbs []*policy.PodDisruptionBudget) (violating, clean []*groupVictim, violatingPods map[*groupVictim]int) {
	budgets := newPDBBudgets(pdbs)
	violatingPods = map[*groupVictim]int{}
	for _, v := range victims {
		n := 0
		for _, pi := range v.pods {
			if budgets.take(pi.Pod) {
				n++
			}
		}
		if n > 0 {
			violating = append(violating, v)
			violatingPods[v] = n
		} else {
			clean = append(clean, v)
		}
	}
	return violating, clean, violatingPods
}

// pdbBudgets are the disruptions the PodDisruptionBudgets still allow while
// victims are picked one after another.
type pdbBudgets struct {
	pdbs      []*policy.PodDisruptionBudget
	allowed   []int32
	selectors []labels.Selector
}

// newPDBBudgets starts from each budget's allowed disruptions.
func newPDBBudgets(pdbs []*policy.PodDisruptionBudget) *pdbBudgets {
	b := &pdbBudgets{pdbs: pdbs, allowed: make([]int32, len(pdbs)), selectors: make([]labels.Selector, len(pdbs))}
	for i, pdb := range pdbs {
		b.allowed[i] = pdb.Status.DisruptionsAllowed
		if s, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector); err == nil && !s.Empty() {
			b.selectors[i] = s
		}
	}
	return b
}

// take uses up the budgets that the pod's eviction counts against, and
// reports whether it exceeds one of them. A pod a budget already counts as
// disrupted uses none of it.
func (b *pdbBudgets) take(pod *v1.Pod) bool {
	if len(pod.Labels) == 0 {
		return false
	}
	for i, pdb := range b.pdbs {
		if b.selectors[i] == nil || pdb.Namespace != pod.Namespace || !b.selectors[i].Matches(labels.Set(pod.Labels)) {
			continue
		}
		if _, disrupted := pdb.Status.DisruptedPods[pod.Name]; disrupted {
			continue
		}
		b.allowed[i]--
		if b.allowed[i] < 0 {
			return true
		}
	}
	return false
}
