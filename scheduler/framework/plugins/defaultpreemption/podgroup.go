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
	"sort"

	v1 "k8s.io/api/core/v1"
	policy "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/framework"
)

// Messages of preemption for a pod group, in kube-scheduler v1.37's words.
const (
	groupPreemptionPrefix = "pod group preemption: "
	msgGroupNotEligible   = "not eligible due to preemptionPolicy=Never."
	msgNoGroupVictims     = "No preemption victims found for incoming preemptor"
	msgGroupOngoing       = "ongoing preemption on nominated nodes"
	// groupDomain is where a group preempts: the whole cluster, as the
	// victims' events name it.
	groupDomain = "cluster"
)

var _ framework.PodGroupPostFilterPlugin = (*DefaultPreemption)(nil)

// PodGroupPostFilter preempts for a scheduling.k8s.io PodGroup that fits in
// no placement, as kube-scheduler v1.37 does: with every pod of lower
// priority than the group taken off the cluster (a member of a PodGroup
// whose disruption mode is All going with its whole group), the group's
// cycle must find a placement; the victims are then given back, the most
// important first, wherever the group still fits with them, and those left
// are evicted. The members are nominated to the nodes the cycle chose.
func (p *DefaultPreemption) PodGroupPostFilter(ctx context.Context, group *framework.GroupNode, members []*v1.Pod, sim framework.PodGroupSimulation) (*framework.PodGroupPostFilterResult, *framework.Status) {
	result, st := p.preemptForGroup(ctx, group, members, sim)
	if msg := st.Message(); msg != "" {
		return result, framework.NewStatus(st.Code(), groupPreemptionPrefix+msg)
	}
	return result, st
}

func (p *DefaultPreemption) preemptForGroup(ctx context.Context, group *framework.GroupNode, members []*v1.Pod, sim framework.PodGroupSimulation) (*framework.PodGroupPostFilterResult, *framework.Status) {
	logger := klog.FromContext(ctx)
	for _, m := range members {
		if pp := m.Spec.PreemptionPolicy; pp != nil && *pp == v1.PreemptNever {
			logger.V(5).Info("Pod group may not preempt others", "reason", msgGroupNotEligible)
			return nil, framework.NewStatus(framework.Unschedulable, msgGroupNotEligible)
		}
	}
	lister := p.handle.SnapshotSharedLister().NodeInfos()
	nodes, err := lister.List()
	if err != nil {
		return nil, framework.AsStatus(err)
	}
	priority := group.Priority()
	if p.groupPreemptionOngoing(members, lister, priority) {
		return &framework.PodGroupPostFilterResult{NominatingInfos: currentNominations(members)}, framework.NewStatus(framework.Success, msgGroupOngoing)
	}

	var potential []*groupVictim
	for _, v := range p.groupVictims(nodes) {
		if v.priority < priority {
			potential = append(potential, v)
		}
	}
	if len(potential) == 0 {
		return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, msgNoGroupVictims)
	}
	if p.runner == nil || sim == nil {
		return nil, framework.AsStatus(fmt.Errorf("the handle %T cannot simulate the group's cycle", p.handle))
	}
	var pdbs []*policy.PodDisruptionBudget
	if p.pdbLister != nil {
		if pdbs, err = p.pdbLister.List(labels.Everything()); err != nil {
			return nil, framework.AsStatus(fmt.Errorf("failed to get pod disruption budgets: %w", err))
		}
	}
	victims, violations, st := p.selectGroupVictims(ctx, potential, pdbs, sim)
	if !st.IsSuccess() {
		return nil, st
	}

	pods := victims.pods
	logger.V(3).Info("Preempting for a pod group", "victims", len(pods), "pdbViolations", violations, "groupDisruptions", victims.groups)
	who := groupPreemptor(group, members)
	if p.async {
		// The members wait at PreEnqueue for the evictions, as upstream's
		// pod group does.
		gated := make([]types.UID, len(members))
		for i, m := range members {
			gated[i] = m.UID
		}
		p.evictInBackground(ctx, groupDomain, pods, who, gated, nil)
	} else if err := p.evict(ctx, groupDomain, pods, who); err != nil {
		return nil, framework.AsStatus(err)
	}
	return &framework.PodGroupPostFilterResult{NominatingInfos: victims.nominations},
		framework.NewStatus(framework.Success, fmt.Sprintf("found a placement for podgroup, preempting %d victims", len(pods)))
}

// groupVictim is what a group's preemption evicts as one: a pod, or every
// placed pod of a PodGroup whose disruption mode is All.
type groupVictim struct {
	pods     []*framework.PodInfo
	priority int32
	// rank orders victims of equal priority: a CompositePodGroup's pods
	// (3) before a PodGroup's (2) before a lone pod (1), as upstream keeps
	// groups whole.
	rank int
	// started is when its earliest pod started; now for pods not started.
	started metav1.Time
	// whole is set for a group whose disruption mode is All, which key names.
	whole bool
	key   victimKey
}

// moreImportantVictim orders victims as upstream does: higher priority,
// then a group's pods before a lone pod, then more pods, then the one that
// started earlier.
func moreImportantVictim(a, b *groupVictim) bool {
	if a.priority != b.priority {
		return a.priority > b.priority
	}
	if a.rank != b.rank {
		return a.rank > b.rank
	}
	if len(a.pods) != len(b.pods) {
		return len(a.pods) > len(b.pods)
	}
	return a.started.Before(&b.started)
}

// groupVictims returns every pod on the nodes as a victim, in the nodes'
// order, the pods of a PodGroup or CompositePodGroup whose disruption mode
// is All gathered into one victim where the first of them is met.
func (p *DefaultPreemption) groupVictims(nodes []*framework.NodeInfo) []*groupVictim {
	now := metav1.NewTime(p.clock.Now())
	var out []*groupVictim
	whole := map[victimKey]*groupVictim{}
	for _, ni := range nodes {
		for _, pi := range ni.Pods {
			u := p.victimUnitOf(pi.Pod)
			started := startTime(pi.Pod, now)
			if !u.whole {
				out = append(out, &groupVictim{pods: []*framework.PodInfo{pi}, priority: u.priority, rank: u.rank, started: started})
				continue
			}
			if v := whole[u.key]; v != nil {
				v.pods = append(v.pods, pi)
				if started.Before(&v.started) {
					v.started = started
				}
				continue
			}
			v := &groupVictim{pods: []*framework.PodInfo{pi}, priority: u.priority, rank: u.rank, started: started, whole: true, key: u.key}
			whole[u.key] = v
			out = append(out, v)
		}
	}
	return out
}

// victimKey names the group whose pods a preemption evicts together.
type victimKey struct {
	key   framework.GroupKey
	berth bool
}

// victimUnit is how a running pod is preempted.
type victimUnit struct {
	// whole is set when the pod goes only with every pod of the group key
	// names.
	whole bool
	key   victimKey
	// priority is the priority the pod is preempted at.
	priority int32
	// rank is the victim's rank (groupVictim.rank).
	rank int
}

// victimUnitOf says how a pod is preempted, as kube-scheduler v1.37 does: a
// pod in no group alone, at its own priority; a member of a PodGroup at the
// priority of the topmost group above it (the PodGroup, or the highest
// CompositePodGroup its preemption's walk up the hierarchy reaches), and
// with every pod under the highest of those groups whose disruption mode
// is All, if one is, or alone.
func (p *DefaultPreemption) victimUnitOf(pod *v1.Pod) victimUnit {
	ref, ok := framework.GroupRefOf(pod)
	w := p.handle.Workloads()
	if !ok || w == nil {
		return victimUnit{priority: priorityOf(pod), rank: 1}
	}
	var chain []*framework.GroupNode
	if h, ok := framework.HierarchyOf(w); ok {
		chain = h.Ancestors(ref)
	} else if pg, err := w.PodGroup(ref); err == nil {
		chain = []*framework.GroupNode{framework.PodGroupNode(pg)}
	}
	if len(chain) == 0 {
		return victimUnit{priority: priorityOf(pod), rank: 2}
	}
	u := victimUnit{priority: chain[len(chain)-1].Priority(), rank: 2}
	for i := len(chain) - 1; i >= 0; i-- {
		if n := chain[i]; n.DisruptsAll() {
			u.whole, u.key = true, victimKey{key: n.Key, berth: ref.Berth}
			if !n.IsLeaf() {
				u.rank = 3
			}
			break
		}
	}
	return u
}

// chosenVictims are the pods a group's preemption evicts and where its
// members go once they are gone.
type chosenVictims struct {
	pods []*v1.Pod
	// groups counts the victims that are members of PodGroups.
	groups      int
	nominations map[types.NamespacedName]*framework.NominatingInfo
}

// selectGroupVictims takes every potential victim off the simulated
// cluster, has the group's cycle place the members there, and gives the
// victims back one by one, budget-protected ones first and the most
// important first within each kind, keeping each one the members still fit
// beside. It returns the victims left, most important first, and how many
// of their pods exceed a PodDisruptionBudget.
func (p *DefaultPreemption) selectGroupVictims(ctx context.Context, potential []*groupVictim, pdbs []*policy.PodDisruptionBudget, sim framework.PodGroupSimulation) (*chosenVictims, int, *framework.Status) {
	for _, v := range potential {
		for _, pi := range v.pods {
			if err := sim.RemovePod(pi.Pod, pi.Pod.Spec.NodeName); err != nil {
				return nil, 0, framework.AsStatus(err)
			}
		}
	}
	placed, st := sim.ScheduleGroup(ctx)
	if !st.IsSuccess() {
		return nil, 0, st
	}
	var assignments []framework.ProposedAssignment
	for _, a := range placed.Assignments {
		if a.NodeName != "" {
			assignments = append(assignments, a)
		}
	}

	sort.SliceStable(potential, func(i, j int) bool { return moreImportantVictim(potential[i], potential[j]) })
	violating, clean, violatingPods := splitVictimsByPDB(potential, pdbs)

	var evicted []*groupVictim
	violations := 0
	for _, v := range append(violating, clean...) {
		fits, err := p.reprieve(ctx, v, assignments, sim)
		if err != nil {
			return nil, 0, framework.AsStatus(err)
		}
		if !fits {
			evicted = append(evicted, v)
			violations += violatingPods[v]
		}
	}
	sort.SliceStable(evicted, func(i, j int) bool { return moreImportantVictim(evicted[i], evicted[j]) })

	out := &chosenVictims{nominations: make(map[types.NamespacedName]*framework.NominatingInfo, len(assignments))}
	for _, v := range evicted {
		if v.rank > 1 {
			out.groups++
		}
		for _, pi := range v.pods {
			out.pods = append(out.pods, pi.Pod)
		}
	}
	for _, a := range assignments {
		out.nominations[types.NamespacedName{Namespace: a.Pod.Namespace, Name: a.Pod.Name}] = &framework.NominatingInfo{
			NominatingMode: framework.ModeOverride, NominatedNodeName: a.NodeName,
		}
	}
	return out, violations, nil
}

// reprieve gives a victim back to the simulated cluster and reports
// whether every member still passes the filters on its node, each member
// checked with the ones before it on their nodes. A victim the members do
// not fit beside is taken off again; the members are taken off either way.
func (p *DefaultPreemption) reprieve(ctx context.Context, v *groupVictim, assignments []framework.ProposedAssignment, sim framework.PodGroupSimulation) (fits bool, err error) {
	lister := p.handle.SnapshotSharedLister().NodeInfos()
	for _, pi := range v.pods {
		node := pi.Pod.Spec.NodeName
		if err := sim.AddPod(pi, node); err != nil {
			return false, err
		}
		ni, err := lister.Get(node)
		if err != nil {
			return false, err
		}
		for _, a := range assignments {
			if st := p.runner.RunPreFilterExtensionAddPod(ctx, a.State, a.Pod, pi, ni); !st.IsSuccess() {
				return false, st.AsError()
			}
		}
	}

	var undo []func() error
	defer func() {
		for i := len(undo) - 1; i >= 0; i-- {
			err = errors.Join(err, undo[i]())
		}
	}()
	for _, a := range assignments {
		ni, err := lister.Get(a.NodeName)
		if err != nil {
			return false, err
		}
		if !p.runner.RunFilterPluginsWithNominatedPods(ctx, a.State, a.Pod, ni).IsSuccess() {
			return false, p.takeBack(ctx, v, assignments, sim)
		}
		member, err := framework.NewPodInfo(a.Pod)
		if err != nil {
			return false, err
		}
		if err := sim.AddPod(member, a.NodeName); err != nil {
			return false, err
		}
		p.runner.RunReservePluginsReserve(ctx, a.State, a.Pod, a.NodeName)
		undo = append(undo, func() error {
			p.runner.RunReservePluginsUnreserve(ctx, a.State, a.Pod, a.NodeName)
			return sim.RemovePod(a.Pod, a.NodeName)
		})
	}
	return true, nil
}

// takeBack takes a victim that could not stay off the simulated cluster
// again, and out of the members' cycle states.
func (p *DefaultPreemption) takeBack(ctx context.Context, v *groupVictim, assignments []framework.ProposedAssignment, sim framework.PodGroupSimulation) error {
	lister := p.handle.SnapshotSharedLister().NodeInfos()
	for _, pi := range v.pods {
		node := pi.Pod.Spec.NodeName
		if err := sim.RemovePod(pi.Pod, node); err != nil {
			return err
		}
		ni, err := lister.Get(node)
		if err != nil {
			return err
		}
		for _, a := range assignments {
			if st := p.runner.RunPreFilterExtensionRemovePod(ctx, a.State, a.Pod, pi, ni); !st.IsSuccess() {
				return st.AsError()
			}
		}
	}
	return nil
}

// groupPreemptionOngoing reports whether the group already preempted: a
// member is nominated to a node where a pod of lower priority is being
// deleted because a scheduler preempted it.
func (p *DefaultPreemption) groupPreemptionOngoing(members []*v1.Pod, lister framework.NodeInfoLister, priority int32) bool {
	seen := map[string]bool{}
	for _, m := range members {
		node := m.Status.NominatedNodeName
		if node == "" || seen[node] {
			continue
		}
		seen[node] = true
		ni, err := lister.Get(node)
		if err != nil {
			continue
		}
		for _, pi := range ni.Pods {
			if p.victimUnitOf(pi.Pod).priority < priority && terminatingByPreemption(pi.Pod) {
				return true
			}
		}
	}
	return false
}

// currentNominations keeps each member where it is nominated.
func currentNominations(members []*v1.Pod) map[types.NamespacedName]*framework.NominatingInfo {
	out := make(map[types.NamespacedName]*framework.NominatingInfo, len(members))
	for _, m := range members {
		out[types.NamespacedName{Namespace: m.Namespace, Name: m.Name}] = &framework.NominatingInfo{
			NominatingMode: framework.ModeOverride, NominatedNodeName: m.Status.NominatedNodeName,
		}
	}
	return out
}
