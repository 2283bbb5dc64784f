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

package workloads

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/workload"
)

// pollInterval is how often Play looks at the cluster while it settles.
const pollInterval = 200 * time.Millisecond

type playOptions struct {
	logger logr.Logger
	berth  client.Client
}

// PlayOption configures Play.
type PlayOption func(*playOptions)

// WithLogger makes Play report its steps to logger.
func WithLogger(logger logr.Logger) PlayOption { return func(o *playOptions) { o.logger = logger } }

// WithBerthPodGroups plays the scenario through Berth's own front door:
// its PodGroups become scheduling.berth.io PodGroups, written and read
// through c, and its pods join them with the scheduling.berth.io/pod-group
// label instead of spec.schedulingGroup. The observation has the same
// shape, so it compares with the same goldens. Berth's PodGroups have no
// parents, so Play refuses composite scenarios (Scenario.Composite) with it.
func WithBerthPodGroups(c client.Client) PlayOption { return func(o *playOptions) { o.berth = c } }

// Play runs s against the cluster client reaches, whose scheduler (serving
// the default-scheduler name) must already run, and returns what it saw at
// each checkpoint. It creates s's namespaced objects in a new namespace
// named s.Name-<random> and its nodes and priority classes as named, so the
// cluster must have no other nodes. A composite scenario (Scenario.Composite)
// needs an apiserver serving scheduling.k8s.io/v1alpha3 CompositePodGroups.
// Play also stands in for the kubelets:
// a pod being deleted gracefully (a preemption victim) is observed, then
// deleted for good. Refusals of steps by the apiserver are recorded in the
// next checkpoint, not returned as errors.
func Play(ctx context.Context, client kubernetes.Interface, s Scenario, opts ...PlayOption) (Observation, error) {
	o := playOptions{logger: logr.Discard()}
	for _, opt := range opts {
		opt(&o)
	}
	if err := s.Validate(); err != nil {
		return Observation{}, err
	}
	if o.berth != nil && s.Composite() {
		return Observation{}, fmt.Errorf("scenario %s uses CompositePodGroups, which Berth's own PodGroups cannot join", s.Name)
	}
	ns, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: s.Name + "-"}}, metav1.CreateOptions{})
	if err != nil {
		return Observation{}, fmt.Errorf("creating the namespace: %w", err)
	}
	p := &player{client: client, berth: o.berth, s: &s, ns: ns.Name, logger: o.logger.WithValues("scenario", s.Name),
		lastSeen: map[string]*corev1.Pod{}, deletedBy: map[string]string{}, nodes: map[string]*corev1.Node{},
		uids: map[types.UID]string{}, nominations: map[string][]string{}, groupHistory: map[string][]Condition{}}
	obs := Observation{Scenario: s.Name, Placement: s.Placement}
	var stepErrors []string
	for i, st := range s.Steps {
		if st.Observe != "" {
			cp, err := p.settle(ctx, st.Observe)
			if err != nil {
				return obs, err
			}
			cp.StepErrors, stepErrors = stepErrors, nil
			obs.Checkpoints = append(obs.Checkpoints, cp)
			continue
		}
		p.logger.Info("Step", "index", i, "step", st)
		for _, err := range p.step(ctx, st) {
			if !isRefusal(err) {
				return obs, fmt.Errorf("step %d: %w", i, err)
			}
			p.logger.Info("The apiserver refused a step", "index", i, "err", err)
			stepErrors = append(stepErrors, p.normalize(err.Error()))
		}
	}
	return obs, nil
}

// isRefusal tells the apiserver's refusals of a request (invalid, forbidden,
// conflict) apart from failures to reach it.
func isRefusal(err error) bool {
	return apierrors.IsInvalid(err) || apierrors.IsForbidden(err) || apierrors.IsBadRequest(err) ||
		apierrors.IsConflict(err) || apierrors.IsNotFound(err) || apierrors.IsAlreadyExists(err) || apierrors.IsMethodNotSupported(err)
}

// player is the state of one Play.
type player struct {
	client kubernetes.Interface
	// berth, when set, writes and reads Berth's PodGroups instead of Kubernetes' own.
	berth  client.Client
	s      *Scenario
	ns     string
	logger logr.Logger
	// lastSeen is every pod as last seen, gone ones included.
	lastSeen map[string]*corev1.Pod
	// deletedBy says who deleted a pod that is gone.
	deletedBy map[string]string
	// nodes are the nodes as last seen, for their domains.
	nodes map[string]*corev1.Node
	// uids names the pods, PodGroups and CompositePodGroups seen so far by
	// UID, as kind/name.
	uids map[types.UID]string
	// nominations are the distinct nominated nodes of each pod, in the
	// order seen.
	nominations map[string][]string
	// groupHistory are the distinct conditions of each PodGroup and
	// CompositePodGroup (objects are named uniquely across kinds), in the
	// order seen.
	groupHistory map[string][]Condition
}

// step runs one step other than Observe and returns its errors; after a
// refusal it goes on with the step's next object.
func (p *player) step(ctx context.Context, st Step) []error {
	var errs []error
	for _, name := range st.Create {
		if err := p.create(ctx, name); err != nil {
			errs = append(errs, err)
		}
	}
	for _, name := range st.Delete {
		switch p.s.kindOf(name) {
		case "PodGroup":
			if err := p.deleteGroup(ctx, name); err != nil {
				errs = append(errs, err)
			}
			continue
		case "CompositePodGroup":
			if err := p.client.SchedulingV1alpha3().CompositePodGroups(p.ns).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
				errs = append(errs, fmt.Errorf("deleting CompositePodGroup %s: %w", name, err))
			}
			continue
		}
		p.deletedBy[name] = "scenario"
		if err := p.client.CoreV1().Pods(p.ns).Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil {
			errs = append(errs, fmt.Errorf("deleting pod %s: %w", name, err))
		}
	}
	for _, name := range st.Ungate {
		patch := `[{"op":"remove","path":"/spec/schedulingGates"}]`
		if _, err := p.client.CoreV1().Pods(p.ns).Patch(ctx, name, types.JSONPatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			errs = append(errs, fmt.Errorf("removing the scheduling gates of pod %s: %w", name, err))
		}
	}
	if c := st.SetMinCount; c != nil {
		patch := fmt.Sprintf(`{"spec":{"schedulingPolicy":{"gang":{"minCount":%d}}}}`, c.MinCount)
		var err error
		if p.berth != nil {
			pg := &v1alpha1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: p.ns, Name: c.Group}}
			err = p.berth.Patch(ctx, pg, client.RawPatch(types.MergePatchType, []byte(patch)))
		} else {
			_, err = p.client.SchedulingV1beta1().PodGroups(p.ns).Patch(ctx, c.Group, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("setting the minCount of PodGroup %s to %d: %w", c.Group, c.MinCount, err))
		}
	}
	return errs
}

// deleteGroup deletes the scenario's PodGroup named name.
func (p *player) deleteGroup(ctx context.Context, name string) error {
	var err error
	if p.berth != nil {
		err = p.berth.Delete(ctx, &v1alpha1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: p.ns, Name: name}})
	} else {
		err = p.client.SchedulingV1beta1().PodGroups(p.ns).Delete(ctx, name, metav1.DeleteOptions{})
	}
	if err != nil {
		return fmt.Errorf("deleting PodGroup %s: %w", name, err)
	}
	return nil
}

// create creates the scenario's object named name.
func (p *player) create(ctx context.Context, name string) error {
	for _, pc := range p.s.PriorityClasses {
		if pc.Name == name {
			_, err := p.client.SchedulingV1().PriorityClasses().Create(ctx, pc.Object(), metav1.CreateOptions{})
			if err != nil {
				return fmt.Errorf("creating PriorityClass %s: %w", name, err)
			}
			return nil
		}
	}
	for _, n := range p.s.Nodes {
		if n.Name == name {
			return CreateNode(ctx, p.client, n.Object())
		}
	}
	for _, g := range p.s.CompositePodGroups {
		if g.Name == name {
			if _, err := p.client.SchedulingV1alpha3().CompositePodGroups(p.ns).Create(ctx, g.Object(p.ns), metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("creating CompositePodGroup %s: %w", name, err)
			}
			return nil
		}
	}
	for _, g := range p.s.PodGroups {
		if g.Name == name {
			var err error
			if p.berth != nil {
				err = p.berth.Create(ctx, g.BerthObject(p.ns))
			} else {
				_, err = p.client.SchedulingV1beta1().PodGroups(p.ns).Create(ctx, g.Object(p.ns), metav1.CreateOptions{})
			}
			if err != nil {
				return fmt.Errorf("creating PodGroup %s: %w", name, err)
			}
			return nil
		}
	}
	for _, pod := range p.s.Pods {
		if pod.Name == name {
			obj := pod.Object(p.ns)
			if p.berth != nil {
				obj = pod.BerthObject(p.ns)
			}
			if _, err := p.client.CoreV1().Pods(p.ns).Create(ctx, obj, metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("creating pod %s: %w", name, err)
			}
			return nil
		}
	}
	return fmt.Errorf("the scenario has no object %q", name)
}

// CreateNode creates node with its status. Admission taints a new node
// not-ready and no node lifecycle controller lifts it, so CreateNode sets
// the node's own taints back, as that controller would for a Ready node.
func CreateNode(ctx context.Context, client kubernetes.Interface, node *corev1.Node) error {
	nodes := client.CoreV1().Nodes()
	created, err := nodes.Create(ctx, node, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("creating node %s: %w", node.Name, err)
	}
	if len(created.Spec.Taints) != len(node.Spec.Taints) {
		created.Spec.Taints = node.Spec.Taints
		if created, err = nodes.Update(ctx, created, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("lifting the not-ready taint of node %s: %w", node.Name, err)
		}
	}
	created.Status = node.Status
	if _, err := nodes.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("setting the status of node %s: %w", node.Name, err)
	}
	return nil
}

// settle observes the cluster until nothing changed for the settle rule's
// Quiet, or its Max passed, and returns the last observation.
func (p *player) settle(ctx context.Context, name string) (Checkpoint, error) {
	rule := p.s.settle()
	start := time.Now()
	var last string
	lastChange := start
	for {
		cp, err := p.observe(ctx, name)
		if err != nil {
			return cp, err
		}
		raw, err := json.Marshal(withoutCounts(cp))
		if err != nil {
			return cp, fmt.Errorf("encoding a checkpoint: %w", err)
		}
		now := time.Now()
		if string(raw) != last {
			last, lastChange = string(raw), now
		} else if now.Sub(lastChange) >= rule.Quiet {
			p.logger.Info("Settled", "checkpoint", name, "after", now.Sub(start).Round(time.Millisecond))
			return cp, nil
		}
		if now.Sub(start) >= rule.Max {
			p.logger.Info("Did not settle", "checkpoint", name, "max", rule.Max)
			cp.Unsettled = true
			return cp, nil
		}
		select {
		case <-ctx.Done():
			return cp, fmt.Errorf("settling for checkpoint %s: %w", name, context.Cause(ctx))
		case <-time.After(pollInterval):
		}
	}
}

// withoutCounts returns cp with its event counts zeroed: retries move them
// without anything else changing.
func withoutCounts(cp Checkpoint) Checkpoint {
	out := cp
	out.Pods = slices.Clone(cp.Pods)
	for i := range out.Pods {
		out.Pods[i].Events = zeroCounts(out.Pods[i].Events)
	}
	out.PodGroups = slices.Clone(cp.PodGroups)
	for i := range out.PodGroups {
		out.PodGroups[i].Events = zeroCounts(out.PodGroups[i].Events)
	}
	out.CompositePodGroups = slices.Clone(cp.CompositePodGroups)
	for i := range out.CompositePodGroups {
		out.CompositePodGroups[i].Events = zeroCounts(out.CompositePodGroups[i].Events)
	}
	return out
}

func zeroCounts(evs []EventSummary) []EventSummary {
	out := slices.Clone(evs)
	for i := range out {
		out[i].Count = 0
	}
	return out
}

// observe reads the scenario's pods, PodGroups, CompositePodGroups (if it
// has any), nodes and events once,
// finishing the deletion of pods being deleted gracefully on the way.
func (p *player) observe(ctx context.Context, name string) (Checkpoint, error) {
	cp := Checkpoint{Name: name}
	pods, err := p.client.CoreV1().Pods(p.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return cp, fmt.Errorf("listing pods: %w", err)
	}
	present := map[string]bool{}
	for i := range pods.Items {
		pod := &pods.Items[i]
		present[pod.Name] = true
		p.lastSeen[pod.Name] = pod
		p.uids[pod.UID] = "pod/" + pod.Name
		if pod.DeletionTimestamp != nil {
			// What a kubelet would do once the containers stopped.
			p.logger.Info("Finishing the deletion of a pod", "pod", pod.Name)
			err := p.client.CoreV1().Pods(p.ns).Delete(ctx, pod.Name, metav1.DeleteOptions{
				GracePeriodSeconds: ptr.To[int64](0), Preconditions: &metav1.Preconditions{UID: &pod.UID}})
			if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
				return cp, fmt.Errorf("deleting pod %s: %w", pod.Name, err)
			}
		}
	}
	groups, err := p.listGroups(ctx)
	if err != nil {
		return cp, err
	}
	byName := map[string]*schedulingv1beta1.PodGroup{}
	for i := range groups.Items {
		g := &groups.Items[i]
		byName[g.Name] = g
		p.uids[g.UID] = "podgroup/" + g.Name
	}
	composites := map[string]*schedulingv1alpha3.CompositePodGroup{}
	if len(p.s.CompositePodGroups) > 0 {
		list, err := p.client.SchedulingV1alpha3().CompositePodGroups(p.ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return cp, fmt.Errorf("listing CompositePodGroups: %w", err)
		}
		for i := range list.Items {
			g := &list.Items[i]
			composites[g.Name] = g
			p.uids[g.UID] = "compositepodgroup/" + g.Name
		}
	}
	nodes, err := p.client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return cp, fmt.Errorf("listing nodes: %w", err)
	}
	for i := range nodes.Items {
		p.nodes[nodes.Items[i].Name] = &nodes.Items[i]
	}
	events, err := p.client.CoreV1().Events(p.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return cp, fmt.Errorf("listing events: %w", err)
	}
	for _, sp := range p.s.Pods {
		pod, ok := p.lastSeen[sp.Name]
		if !ok {
			continue
		}
		st := p.podState(pod, events.Items)
		if !present[sp.Name] {
			st.Deleted = true
			st.DeletedBy = cmp.Or(p.deletedBy[sp.Name], "scheduler")
		}
		cp.Pods = append(cp.Pods, st)
	}
	for _, sg := range p.s.PodGroups {
		if g := byName[sg.Name]; g != nil {
			cp.PodGroups = append(cp.PodGroups, p.podGroupState(g, events.Items))
		}
	}
	for _, sg := range p.s.CompositePodGroups {
		if g := composites[sg.Name]; g != nil {
			cp.CompositePodGroups = append(cp.CompositePodGroups, p.compositePodGroupState(g, events.Items))
		}
	}
	slices.SortFunc(cp.Pods, func(a, b PodState) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(cp.PodGroups, func(a, b PodGroupState) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(cp.CompositePodGroups, func(a, b CompositePodGroupState) int { return strings.Compare(a.Name, b.Name) })
	return cp, nil
}

// listGroups lists the scenario's PodGroups; Berth's are read as the
// scheduler reads them (workload.FromBerth), with their status.
func (p *player) listGroups(ctx context.Context) (*schedulingv1beta1.PodGroupList, error) {
	if p.berth == nil {
		groups, err := p.client.SchedulingV1beta1().PodGroups(p.ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, fmt.Errorf("listing PodGroups: %w", err)
		}
		return groups, nil
	}
	var list v1alpha1.PodGroupList
	if err := p.berth.List(ctx, &list, client.InNamespace(p.ns)); err != nil {
		return nil, fmt.Errorf("listing Berth's PodGroups: %w", err)
	}
	out := &schedulingv1beta1.PodGroupList{}
	for i := range list.Items {
		out.Items = append(out.Items, *workload.FromBerth(&list.Items[i]))
	}
	return out, nil
}

// podState normalises a pod.
func (p *player) podState(pod *corev1.Pod, events []corev1.Event) PodState {
	st := PodState{Name: pod.Name, Node: pod.Spec.NodeName, NominatedNode: pod.Status.NominatedNodeName}
	if g := pod.Spec.SchedulingGroup; g != nil && g.PodGroupName != nil {
		st.Group = *g.PodGroupName
	} else if g := pod.Labels[v1alpha1.PodGroupLabel]; g != "" && p.berth != nil {
		st.Group = g
	}
	if node := p.nodes[pod.Spec.NodeName]; node != nil {
		if p.s.DomainKey != "" {
			st.Domain = node.Labels[p.s.DomainKey]
		}
		if p.s.ZoneKey != "" {
			st.Zone = node.Labels[p.s.ZoneKey]
		}
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled || c.Type == corev1.DisruptionTarget {
			st.Conditions = append(st.Conditions, Condition{Type: string(c.Type), Status: string(c.Status), Reason: c.Reason, Message: p.normalize(c.Message)})
		}
	}
	slices.SortFunc(st.Conditions, func(a, b Condition) int { return strings.Compare(a.Type, b.Type) })
	st.Events = p.summarize(events, "Pod", pod.Name)
	if n := pod.Status.NominatedNodeName; n != "" {
		if seen := p.nominations[pod.Name]; len(seen) == 0 || seen[len(seen)-1] != n {
			p.nominations[pod.Name] = append(seen, n)
		}
	}
	st.NominatedNodes = slices.Clone(p.nominations[pod.Name])
	return st
}

// podGroupState normalises a PodGroup.
func (p *player) podGroupState(g *schedulingv1beta1.PodGroup, events []corev1.Event) PodGroupState {
	st := PodGroupState{Name: g.Name, Parent: ptr.Deref(g.Spec.ParentCompositePodGroupName, "")}
	if gang := g.Spec.SchedulingPolicy.Gang; gang != nil {
		st.MinCount = gang.MinCount
	}
	st.Conditions = p.conditions(g.Status.Conditions)
	st.Events = p.summarize(events, "PodGroup", g.Name)
	st.ConditionHistory = p.history(g.Name, st.Conditions)
	return st
}

// compositePodGroupState normalises a CompositePodGroup.
func (p *player) compositePodGroupState(g *schedulingv1alpha3.CompositePodGroup, events []corev1.Event) CompositePodGroupState {
	st := CompositePodGroupState{Name: g.Name, Parent: ptr.Deref(g.Spec.ParentCompositePodGroupName, "")}
	if gang := g.Spec.SchedulingPolicy.Gang; gang != nil {
		st.MinGroupCount = gang.MinGroupCount
	}
	st.Conditions = p.conditions(g.Status.Conditions)
	st.Events = p.summarize(events, "CompositePodGroup", g.Name)
	st.ConditionHistory = p.history(g.Name, st.Conditions)
	return st
}

// conditions normalises a group's conditions, sorted by type.
func (p *player) conditions(conds []metav1.Condition) []Condition {
	var out []Condition
	for _, c := range conds {
		out = append(out, Condition{Type: c.Type, Status: string(c.Status), Reason: c.Reason, Message: p.normalize(c.Message)})
	}
	slices.SortFunc(out, func(a, b Condition) int { return strings.Compare(a.Type, b.Type) })
	return out
}

// history adds the group's conditions to the distinct ones seen so far and
// returns those when there are more than one.
func (p *player) history(group string, conds []Condition) []Condition {
	for _, c := range conds {
		if seen := p.groupHistory[group]; len(seen) == 0 || seen[len(seen)-1] != c {
			p.groupHistory[group] = append(seen, c)
		}
	}
	if h := p.groupHistory[group]; len(h) > 1 {
		return slices.Clone(h)
	}
	return nil
}

// summarize groups the events about kind/name by reason.
func (p *player) summarize(events []corev1.Event, kind, name string) []EventSummary {
	byReason := map[string]*EventSummary{}
	for _, e := range events {
		if e.InvolvedObject.Kind != kind || e.InvolvedObject.Name != name {
			continue
		}
		s := byReason[e.Reason]
		if s == nil {
			s = &EventSummary{Reason: e.Reason}
			byReason[e.Reason] = s
		}
		count := e.Count
		if e.Series != nil {
			count = e.Series.Count
		}
		s.Count += max(count, 1)
		if msg := p.normalize(e.Message); !slices.Contains(s.Messages, msg) {
			s.Messages = append(s.Messages, msg)
		}
	}
	out := make([]EventSummary, 0, len(byReason))
	for _, s := range byReason {
		slices.Sort(s.Messages)
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b EventSummary) int { return strings.Compare(a.Reason, b.Reason) })
	if len(out) == 0 {
		return nil
	}
	return out
}

// normalize replaces the scenario's namespace in a message by $NS and the
// UIDs of its pods, PodGroups and CompositePodGroups by $UID(<kind>/<name>).
func (p *player) normalize(msg string) string {
	msg = strings.ReplaceAll(msg, p.ns, "$NS")
	for uid, name := range p.uids {
		msg = strings.ReplaceAll(msg, string(uid), "$UID("+name+")")
	}
	return msg
}
