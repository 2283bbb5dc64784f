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
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// RackKey is the node label the scenarios use as a topology domain.
const RackKey = "topology.example.com/rack"

// ZoneKey is the node label the scenarios use as a topology domain coarser
// than RackKey: a zone holds racks.
const ZoneKey = "topology.example.com/zone"

// WorkloadName is the Workload every object of a hierarchy refers to in its
// spec.workloadRef, which the apiserver requires of CompositePodGroups and of
// PodGroups with a parent; no Workload of that name needs to exist.
const WorkloadName = "workload"

// Placement says how precisely a scenario's pod placements are compared.
type Placement string

const (
	// PlaceExact compares each pod's node.
	PlaceExact Placement = "exact"
	// PlaceDomain compares each pod's topology domain (the value of its
	// node's label named by the scenario's DomainKey) and whether it is
	// bound: for scenarios where upstream picks at random among equal nodes.
	PlaceDomain Placement = "domain"
	// PlaceBound compares only whether each pod is bound.
	PlaceBound Placement = "bound"
)

// Scenario is one scheduling situation: the objects it uses and the steps
// that create and change them. Objects are named uniquely across kinds; the
// steps refer to them by name.
type Scenario struct {
	// Name names the scenario and its golden file; a DNS label.
	Name string
	// Description says what the scenario checks.
	Description string
	// Placement says how pod placements are compared.
	Placement Placement
	// DomainKey is the node label whose value is recorded as each bound
	// pod's domain; empty records none.
	DomainKey string
	// ZoneKey, when set, is a second node label, coarser than DomainKey,
	// whose value is recorded as each bound pod's zone: for hierarchies
	// whose levels are constrained to different keys.
	ZoneKey string
	// PriorityClasses, Nodes, CompositePodGroups, PodGroups and Pods are
	// the objects the steps create.
	PriorityClasses    []PriorityClass
	Nodes              []Node
	CompositePodGroups []CompositePodGroup
	PodGroups          []PodGroup
	Pods               []Pod
	// Steps run in order; each Observe step records a checkpoint.
	Steps []Step
	// Settle says when the cluster counts as settled before a checkpoint;
	// zero fields take DefaultSettle's.
	Settle Settle
}

// Settle is the rule for "nothing more will happen": the observed state
// has not changed for Quiet, or Max has passed.
type Settle struct {
	Quiet time.Duration
	Max   time.Duration
}

// DefaultSettle waits for 5 s without a change, at most 60 s.
var DefaultSettle = Settle{Quiet: 5 * time.Second, Max: 60 * time.Second}

// PriorityClass is a PriorityClass with its value.
type PriorityClass struct {
	Name  string
	Value int32
	// PreemptionPolicy, when set, is the class's preemption policy, which
	// admission copies to the pods of the class.
	PreemptionPolicy corev1.PreemptionPolicy
}

// Node is a Ready node with the allocatable resources given.
type Node struct {
	Name   string
	Labels map[string]string
	// CPU and Memory are quantities; Pods is the pod capacity (110 when zero).
	CPU    string
	Memory string
	Pods   int
	Taints []corev1.Taint
}

// CompositePodGroup is a scheduling.k8s.io/v1alpha3 CompositePodGroup: a
// group of PodGroups and CompositePodGroups, its children, which name it
// as their parent.
type CompositePodGroup struct {
	Name string
	// Parent, when set, is the CompositePodGroup this one is a child of.
	Parent string
	// MinGroupCount > 0 makes a gang policy needing that many children to
	// be scheduled; 0 a basic policy.
	MinGroupCount int32
	// TopologyKey, when set, is the group's only topology constraint.
	TopologyKey string
	// PriorityClassName is the group's priority class, if any.
	PriorityClassName string
	// DisruptionAll sets disruptionMode all: preemption takes every placed
	// pod of the group's subtree or none. Unset, the apiserver defaults the
	// mode to single.
	DisruptionAll bool
}

// PodGroup is a scheduling.k8s.io/v1beta1 PodGroup.
type PodGroup struct {
	Name string
	// Parent, when set, is the CompositePodGroup the group is a child of.
	Parent string
	// MinCount > 0 makes a gang policy with that minCount; 0 a basic policy.
	MinCount int32
	// TopologyKey, when set, is the group's only topology constraint.
	TopologyKey string
	// PriorityClassName is the group's priority class, if any.
	PriorityClassName string
	// DisruptionAll sets disruptionMode all: preemption takes every placed
	// member of the group or none.
	DisruptionAll bool
}

// Pod is a pod with one container.
type Pod struct {
	Name   string
	CPU    string
	Memory string
	// Group is spec.schedulingGroup.podGroupName; empty for a plain pod.
	Group string
	// PriorityClassName is the pod's priority class, if any.
	PriorityClassName string
	// NodeName, when set, binds the pod at creation, bypassing the
	// scheduler: a deterministic filler or preemption victim.
	NodeName string
	// Gates are the pod's scheduling gates at creation.
	Gates []string
	// Labels are the pod's labels.
	Labels map[string]string
	// Affinity and AntiAffinity are required pod (anti-)affinity terms,
	// PreferAntiAffinity preferred anti-affinity terms of weight 100.
	Affinity, AntiAffinity, PreferAntiAffinity []Term
	// Spread are topology spread constraints.
	Spread []Spread
	// NodeSelector is the pod's node selector.
	NodeSelector map[string]string
	// Tolerations are the pod's tolerations.
	Tolerations []corev1.Toleration
	// HostPort, when set, is a host port (TCP) the pod's container takes.
	HostPort int32
}

// Term is a pod (anti-)affinity term: the pods labelled Label (key=value)
// in the same domain of TopologyKey.
type Term struct {
	TopologyKey string
	Label       string
}

// Spread is a topology spread constraint over the pods labelled Label
// (key=value): hard (DoNotSchedule) or soft (ScheduleAnyway).
type Spread struct {
	MaxSkew     int32
	TopologyKey string
	Label       string
	Hard        bool
}

// Step is one action of a scenario; exactly one of its fields is set.
type Step struct {
	// Create creates the named objects, in order.
	Create []string `json:"create,omitempty"`
	// Delete deletes the named pods (grace period 0), PodGroups and
	// CompositePodGroups at once.
	Delete []string `json:"delete,omitempty"`
	// SetMinCount changes a PodGroup's gang minCount.
	SetMinCount *MinCountChange `json:"setMinCount,omitempty"`
	// Ungate removes every scheduling gate of the named pods.
	Ungate []string `json:"ungate,omitempty"`
	// Observe waits until the cluster settles and records a checkpoint of this name.
	Observe string `json:"observe,omitempty"`
}

// MinCountChange sets the gang minCount of PodGroup Group to MinCount.
type MinCountChange struct {
	Group    string
	MinCount int32
}

// Create is a step creating the named objects in order.
func Create(names ...string) Step { return Step{Create: names} }

// Delete is a step deleting the named pods, PodGroups and CompositePodGroups.
func Delete(names ...string) Step { return Step{Delete: names} }

// SetMinCount is a step changing a PodGroup's gang minCount.
func SetMinCount(group string, n int32) Step {
	return Step{SetMinCount: &MinCountChange{Group: group, MinCount: n}}
}

// Ungate is a step removing the scheduling gates of the named pods.
func Ungate(names ...string) Step { return Step{Ungate: names} }

// Observe is a step that waits for the cluster to settle and records a checkpoint.
func Observe(checkpoint string) Step { return Step{Observe: checkpoint} }

// settle returns the scenario's settle rule with defaults filled in.
func (s *Scenario) settle() Settle {
	r := s.Settle
	if r.Quiet <= 0 {
		r.Quiet = DefaultSettle.Quiet
	}
	if r.Max <= 0 {
		r.Max = DefaultSettle.Max
	}
	return r
}

// Composite tells whether s uses CompositePodGroups: it has some, or one
// of its PodGroups names a parent. Such a scenario needs an apiserver and
// scheduler with the CompositePodGroup feature gate.
func (s *Scenario) Composite() bool {
	if len(s.CompositePodGroups) > 0 {
		return true
	}
	for _, g := range s.PodGroups {
		if g.Parent != "" {
			return true
		}
	}
	return false
}

// kindOf returns the kind of the object named name: "PriorityClass",
// "Node", "CompositePodGroup", "PodGroup", "Pod" or "" when the scenario
// has none.
func (s *Scenario) kindOf(name string) string {
	for _, pc := range s.PriorityClasses {
		if pc.Name == name {
			return "PriorityClass"
		}
	}
	for _, n := range s.Nodes {
		if n.Name == name {
			return "Node"
		}
	}
	for _, g := range s.CompositePodGroups {
		if g.Name == name {
			return "CompositePodGroup"
		}
	}
	for _, g := range s.PodGroups {
		if g.Name == name {
			return "PodGroup"
		}
	}
	for _, p := range s.Pods {
		if p.Name == name {
			return "Pod"
		}
	}
	return ""
}

// Validate checks that names are unique, that parents name
// CompositePodGroups of the scenario, that steps name known objects of the
// right kind, each created once, and that the scenario ends with an Observe
// step. A parent need not be created, nor before its children, and parents
// may form a cycle: scenarios of missing parents and cycles create their
// objects in the order, or leave out the ones, that they test.
func (s *Scenario) Validate() error {
	var errs []error
	if s.Name == "" {
		errs = append(errs, errors.New("a scenario needs a name"))
	}
	switch s.Placement {
	case PlaceExact, PlaceDomain, PlaceBound:
	default:
		errs = append(errs, fmt.Errorf("placement %q is none of exact, domain, bound", s.Placement))
	}
	if s.Placement == PlaceDomain && s.DomainKey == "" {
		errs = append(errs, errors.New("placement domain needs a DomainKey"))
	}
	seen := map[string]bool{}
	var names []string
	for _, pc := range s.PriorityClasses {
		names = append(names, pc.Name)
	}
	for _, n := range s.Nodes {
		names = append(names, n.Name)
	}
	for _, g := range s.CompositePodGroups {
		names = append(names, g.Name)
		if g.MinGroupCount < 0 {
			errs = append(errs, fmt.Errorf("CompositePodGroup %q has minGroupCount %d, want 0 (basic) or more", g.Name, g.MinGroupCount))
		}
		if g.Parent != "" && s.kindOf(g.Parent) != "CompositePodGroup" {
			errs = append(errs, fmt.Errorf("CompositePodGroup %q has parent %q, which is no CompositePodGroup of the scenario", g.Name, g.Parent))
		}
	}
	for _, g := range s.PodGroups {
		names = append(names, g.Name)
		if g.Parent != "" && s.kindOf(g.Parent) != "CompositePodGroup" {
			errs = append(errs, fmt.Errorf("PodGroup %q has parent %q, which is no CompositePodGroup of the scenario", g.Name, g.Parent))
		}
	}
	for _, p := range s.Pods {
		names = append(names, p.Name)
	}
	for _, n := range names {
		if seen[n] {
			errs = append(errs, fmt.Errorf("name %q is used twice", n))
		}
		seen[n] = true
	}
	created := map[string]bool{}
	checkpoints := map[string]bool{}
	for i, st := range s.Steps {
		set := 0
		if len(st.Create) > 0 {
			set++
		}
		if len(st.Delete) > 0 {
			set++
		}
		if st.SetMinCount != nil {
			set++
		}
		if len(st.Ungate) > 0 {
			set++
		}
		if st.Observe != "" {
			set++
		}
		if set != 1 {
			errs = append(errs, fmt.Errorf("step %d sets %d actions, want 1", i, set))
		}
		for _, n := range st.Create {
			if s.kindOf(n) == "" {
				errs = append(errs, fmt.Errorf("step %d creates unknown object %q", i, n))
			}
			if created[n] {
				errs = append(errs, fmt.Errorf("step %d creates %q again", i, n))
			}
			created[n] = true
		}
		for _, n := range st.Delete {
			if k := s.kindOf(n); (k != "Pod" && k != "PodGroup" && k != "CompositePodGroup") || !created[n] {
				errs = append(errs, fmt.Errorf("step %d deletes %q, which is no pod, PodGroup or CompositePodGroup created before", i, n))
			}
		}
		for _, n := range st.Ungate {
			if s.kindOf(n) != "Pod" || !created[n] {
				errs = append(errs, fmt.Errorf("step %d ungates %q, which is no pod created before", i, n))
			}
		}
		if c := st.SetMinCount; c != nil && (s.kindOf(c.Group) != "PodGroup" || !created[c.Group]) {
			errs = append(errs, fmt.Errorf("step %d changes %q, which is no PodGroup created before", i, c.Group))
		}
		if st.Observe != "" {
			if checkpoints[st.Observe] {
				errs = append(errs, fmt.Errorf("checkpoint %q is recorded twice", st.Observe))
			}
			checkpoints[st.Observe] = true
		}
	}
	if len(s.Steps) == 0 || s.Steps[len(s.Steps)-1].Observe == "" {
		errs = append(errs, errors.New("the last step must be an Observe step"))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("scenario %s: %w", s.Name, err)
	}
	return nil
}
