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
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// CompositeScenarios returns the composite scenarios (Scenario.Composite),
// in a fixed order: hierarchies of CompositePodGroups and PodGroups, from
// docs/design/composite-podgroup.md, section 7. They need an apiserver and
// scheduler with the CompositePodGroup feature gate, so Scenarios() does
// not list them. Their names start with "cpg-".
func CompositeScenarios() []Scenario {
	return []Scenario{
		cpgBasicPartial(), cpgGangAllOrNothing(), cpgQuorumGating(), cpgMissingParent(), cpgCycle(),
		cpgEmptyChild(), cpgNestedTopology(), cpgDomainPinned(), cpgDomainSplit(), cpgPriorityMismatch(),
		cpgPreemptAll(), cpgPreemptSingle(), cpgPreemptNever(), cpgDepth(4), cpgDepth(5),
	}
}

// AllScenarios returns Scenarios() followed by CompositeScenarios().
func AllScenarios() []Scenario {
	return append(Scenarios(), CompositeScenarios()...)
}

// hierarchy is the common shape of the composite scenarios: create the
// priority classes, the nodes, the pods, the PodGroups, then the
// CompositePodGroups from the last listed to the first, then record
// "final". List the root first: a tree is complete, and its pods tried,
// only once every ancestor exists, so its first cycle sees every pod.
func hierarchy(s Scenario) Scenario {
	s.Steps = append(s.Steps, hierarchySteps(s.PriorityClasses, s.Nodes, s.Pods, s.PodGroups, s.CompositePodGroups)...)
	s.Steps = append(s.Steps, Observe("final"))
	return s
}

// hierarchySteps creates the objects given in the order hierarchy does,
// leaving out empty steps.
func hierarchySteps(pcs []PriorityClass, ns []Node, pods []Pod, pgs []PodGroup, cpgs []CompositePodGroup) []Step {
	var out []Step
	for _, pc := range pcs {
		out = append(out, Create(pc.Name))
	}
	composites := names(cpgs)
	slices.Reverse(composites)
	for _, step := range [][]string{names(ns), names(pods), names(pgs), composites} {
		if len(step) > 0 {
			out = append(out, Create(step...))
		}
	}
	return out
}

// zones returns len(racksPerZone) zones zone-<z> of racksPerZone[z-1]
// racks rack-<z><letter> of perRack nodes of cpu CPUs each, node
// rack-<z><letter>-<i>, labelled ZoneKey and RackKey.
func zones(perRack int, cpu string, racksPerZone ...int) []Node {
	var out []Node
	for z, n := range racksPerZone {
		zone := fmt.Sprintf("zone-%d", z+1)
		for r := range n {
			rack := fmt.Sprintf("rack-%d%c", z+1, 'a'+r)
			out = append(out, nodes(rack, perRack, cpu, ZoneKey, zone, RackKey, rack)...)
		}
	}
	return out
}

// 1. A basic CompositePodGroup, one of whose gangs fits.
func cpgBasicPartial() Scenario {
	return hierarchy(Scenario{
		Name: "cpg-basic-partial",
		Description: "basic CompositePodGroup root of gangs a and b (minCount 2, 2 pods of 2 CPUs each), 3 nodes of 2 CPUs: " +
			"a, the older, binds; b binds none",
		Placement:          PlaceBound,
		Nodes:              nodes("node", 3, "2"),
		CompositePodGroups: []CompositePodGroup{{Name: "root"}},
		PodGroups:          []PodGroup{{Name: "a", MinCount: 2, Parent: "root"}, {Name: "b", MinCount: 2, Parent: "root"}},
		Pods:               append(members("a", "a", 2, "2"), members("b", "b", 2, "2")...),
	})
}

// 2. A gang CompositePodGroup one of whose gangs does not fit, then does.
func cpgGangAllOrNothing() Scenario {
	s := Scenario{
		Name: "cpg-gang-all-or-nothing",
		Description: "CompositePodGroup root, gang of minGroupCount 2, of gangs a (minCount 2, 2 pods) and b (minCount 3, " +
			"3 pods), 2 CPUs each, 4 nodes of 2 CPUs: nothing binds; then a 5th node: all 5 bind",
		Placement:          PlaceBound,
		Nodes:              nodes("node", 5, "2"),
		CompositePodGroups: []CompositePodGroup{{Name: "root", MinGroupCount: 2}},
		PodGroups:          []PodGroup{{Name: "a", MinCount: 2, Parent: "root"}, {Name: "b", MinCount: 3, Parent: "root"}},
		Pods:               append(members("a", "a", 2, "2"), members("b", "b", 3, "2")...),
		Settle:             Settle{Quiet: 10 * time.Second, Max: 90 * time.Second},
	}
	s.Steps = append(hierarchySteps(nil, s.Nodes[:4], s.Pods, s.PodGroups, s.CompositePodGroups),
		Observe("four-nodes"), Create("node-5"), Observe("final"))
	return s
}

// 3. A gang CompositePodGroup short of its quorum of complete children.
func cpgQuorumGating() Scenario {
	s := Scenario{
		Name: "cpg-quorum-gating",
		Description: "CompositePodGroup root, gang of minGroupCount 2, of gangs a and b (minCount 2 each); a has its 2 pods, " +
			"b 1, room for all: nothing is tried; then b's 2nd pod: all 4 bind",
		Placement:          PlaceBound,
		Nodes:              nodes("node", 4, "2"),
		CompositePodGroups: []CompositePodGroup{{Name: "root", MinGroupCount: 2}},
		PodGroups:          []PodGroup{{Name: "a", MinCount: 2, Parent: "root"}, {Name: "b", MinCount: 2, Parent: "root"}},
		Pods:               append(members("a", "a", 2, "2"), members("b", "b", 2, "2")...),
	}
	s.Steps = append(hierarchySteps(nil, s.Nodes, s.Pods[:3], s.PodGroups, s.CompositePodGroups),
		Observe("b-short"), Create("b-2"), Observe("final"))
	return s
}

// 4. A PodGroup whose parent does not exist yet.
func cpgMissingParent() Scenario {
	s := Scenario{
		Name:               "cpg-missing-parent",
		Description:        "gang a (minCount 2) names CompositePodGroup root as its parent before root exists, room for both pods: nothing is tried; then root (basic): both bind",
		Placement:          PlaceBound,
		Nodes:              nodes("node", 2, "2"),
		CompositePodGroups: []CompositePodGroup{{Name: "root"}},
		PodGroups:          []PodGroup{{Name: "a", MinCount: 2, Parent: "root"}},
		Pods:               members("a", "a", 2, "2"),
	}
	s.Steps = []Step{Create(names(s.Nodes)...), Create("a"), Create(names(s.Pods)...), Observe("no-parent"),
		Create("root"), Observe("final")}
	return s
}

// 5. Parents that form a cycle.
func cpgCycle() Scenario {
	return hierarchy(Scenario{
		Name:        "cpg-cycle",
		Description: "CompositePodGroups x and y are each other's parent; gang a (minCount 2) is a child of x, room for its pods: nothing is tried",
		Placement:   PlaceBound,
		Nodes:       nodes("node", 2, "2"),
		CompositePodGroups: []CompositePodGroup{
			{Name: "x", Parent: "y"},
			{Name: "y", Parent: "x"},
		},
		PodGroups: []PodGroup{{Name: "a", MinCount: 2, Parent: "x"}},
		Pods:      members("a", "a", 2, "2"),
	})
}

// 6. A basic CompositePodGroup with a child that has no pods.
func cpgEmptyChild() Scenario {
	return hierarchy(Scenario{
		Name:               "cpg-empty-child",
		Description:        "basic CompositePodGroup root of basic PodGroups a (2 pods) and e (none), room for all: a's pods bind; what does e read?",
		Placement:          PlaceBound,
		Nodes:              nodes("node", 2, "2"),
		CompositePodGroups: []CompositePodGroup{{Name: "root"}},
		PodGroups:          []PodGroup{{Name: "a", Parent: "root"}, {Name: "e", Parent: "root"}},
		Pods:               members("a", "a", 2, "2"),
	})
}

// nestedTopology are the objects of the nested-topology scenarios: 2 zones
// of 2 racks of 2 nodes of 2 CPUs, a gang CompositePodGroup root of
// minGroupCount 2 constrained to a zone, of gangs a and b (minCount 2, 2
// pods of 2 CPUs each) constrained to a rack.
func nestedTopology(s Scenario) Scenario {
	s.Placement, s.DomainKey, s.ZoneKey = PlaceDomain, RackKey, ZoneKey
	s.Nodes = zones(2, "2", 2, 2)
	s.CompositePodGroups = []CompositePodGroup{{Name: "root", MinGroupCount: 2, TopologyKey: ZoneKey}}
	s.PodGroups = []PodGroup{
		{Name: "a", MinCount: 2, TopologyKey: RackKey, Parent: "root"},
		{Name: "b", MinCount: 2, TopologyKey: RackKey, Parent: "root"},
	}
	s.Pods = append(members("a", "a", 2, "2"), members("b", "b", 2, "2")...)
	return s
}

// 7. Topology keys on two levels.
func cpgNestedTopology() Scenario {
	s := nestedTopology(Scenario{
		Name: "cpg-nested-topology",
		Description: "gang CompositePodGroup root (minGroupCount 2, topology key zone) of gangs a and b (minCount 2, topology " +
			"key rack), 2 zones of 2 racks of 2 nodes, one rack of zone-1 full: all 4 pods in zone-2, each gang in one rack",
	})
	fill := fillers(s.Nodes[:2], "2")
	s.Pods = append(fill, s.Pods...)
	return hierarchy(s)
}

// 8. A hierarchy one of whose pods was bound before the scheduler saw it.
func cpgDomainPinned() Scenario {
	s := nestedTopology(Scenario{
		Name: "cpg-domain-pinned",
		Description: "as cpg-nested-topology with every node free, but a-1 is bound to rack-1a-1 at creation: a-2 joins " +
			"rack-1a and b binds in rack-1b, in zone-1",
	})
	s.Pods[0].NodeName = "rack-1a-1"
	return hierarchy(s)
}

// 8'. A hierarchy whose bound pods are in two zones.
func cpgDomainSplit() Scenario {
	s := nestedTopology(Scenario{
		Name: "cpg-domain-split",
		Description: "as cpg-nested-topology with every node free, but a-1 is bound to rack-1a-1 and b-1 to rack-2a-1 at " +
			"creation, in two zones: none binds",
	})
	s.Pods[0].NodeName = "rack-1a-1"
	s.Pods[2].NodeName = "rack-2a-1"
	return hierarchy(s)
}

// 9. A pod whose priority differs from its root's.
func cpgPriorityMismatch() Scenario {
	pods := withPriority(append(members("a", "a", 2, "2"), members("b", "b", 1, "2")...), "high")
	pods[1].PriorityClassName = ""
	return hierarchy(Scenario{
		Name: "cpg-priority-mismatch",
		Description: "basic CompositePodGroup root of class high (1000) of basic PodGroups a and b of class high; a-1 and b-1 " +
			"have class high, a-2 none; room for all",
		Placement:          PlaceBound,
		PriorityClasses:    []PriorityClass{{Name: "high", Value: 1000}},
		Nodes:              nodes("node", 3, "2"),
		CompositePodGroups: []CompositePodGroup{{Name: "root", PriorityClassName: "high"}},
		PodGroups:          []PodGroup{{Name: "a", Parent: "root", PriorityClassName: "high"}, {Name: "b", Parent: "root", PriorityClassName: "high"}},
		Pods:               pods,
	})
}

// compositePreemption is the shape of the preemption scenarios: 4 nodes
// of 2 CPUs, each running a pod of CompositePodGroup low-root of priority
// class low (DisruptionAll as given) of gangs la and lb (minCount 2, pods
// bound at creation); then CompositePodGroup high-root, gang of
// minGroupCount 1, of gang h (minCount 2, 2 pods of 2 CPUs) of priority
// class highClass.
func compositePreemption(s Scenario, lowAll bool, highClass PriorityClass) Scenario {
	s.Nodes = nodes("node", 4, "2")
	s.PriorityClasses = []PriorityClass{{Name: "low", Value: 100}, highClass}
	lows := []CompositePodGroup{{Name: "low-root", PriorityClassName: "low", DisruptionAll: lowAll}}
	lowGroups := []PodGroup{
		{Name: "la", MinCount: 2, Parent: "low-root", PriorityClassName: "low"},
		{Name: "lb", MinCount: 2, Parent: "low-root", PriorityClassName: "low"},
	}
	low := withPriority(append(members("la", "la", 2, "2"), members("lb", "lb", 2, "2")...), "low")
	for i := range low {
		low[i].NodeName = s.Nodes[i].Name
	}
	highs := []CompositePodGroup{{Name: "high-root", MinGroupCount: 1, PriorityClassName: highClass.Name}}
	highGroups := []PodGroup{{Name: "h", MinCount: 2, Parent: "high-root", PriorityClassName: highClass.Name}}
	high := withPriority(members("h", "h", 2, "2"), highClass.Name)
	s.Placement = PlaceBound
	s.CompositePodGroups = append(lows, highs...)
	s.PodGroups = append(lowGroups, highGroups...)
	s.Pods = append(low, high...)
	s.Steps = append(hierarchySteps(s.PriorityClasses, s.Nodes, low, lowGroups, lows), Observe("low-running"))
	s.Steps = append(s.Steps, hierarchySteps(nil, nil, high, highGroups, highs)...)
	s.Steps = append(s.Steps, Observe("final"))
	return s
}

// 10. Preempting a CompositePodGroup whose disruption mode is all.
func cpgPreemptAll() Scenario {
	return compositePreemption(Scenario{
		Name: "cpg-preempt-all",
		Description: "low-priority CompositePodGroup low-root (disruptionMode all) of 2 gangs of 2 pods fills 4 nodes; high-priority " +
			"CompositePodGroup high-root (gang of 1) of a gang of 2 pods preempts all 4 low pods, then binds",
	}, true, PriorityClass{Name: "high", Value: 1000})
}

// 11. Preempting a CompositePodGroup whose disruption mode is single.
func cpgPreemptSingle() Scenario {
	return compositePreemption(Scenario{
		Name: "cpg-preempt-single",
		Description: "as cpg-preempt-all with low-root's disruption mode single (the default): each low pod is a victim of its own, " +
			"2 of them are preempted, the high pods bind",
	}, false, PriorityClass{Name: "high", Value: 1000})
}

// 12. A high-priority hierarchy whose pods may not preempt.
func cpgPreemptNever() Scenario {
	return compositePreemption(Scenario{
		Name: "cpg-preempt-never",
		Description: "as cpg-preempt-single with the high pods of a priority class with preemptionPolicy Never " +
			"(PodGroupPreemptionPolicy off): nothing is preempted, the high pods stay pending",
	}, false, PriorityClass{Name: "high-never", Value: 1000, PreemptionPolicy: corev1.PreemptNever})
}

// 13. A basic PodGroup under a chain of CompositePodGroups, levels deep.
func cpgDepth(levels int) Scenario {
	var cpgs []CompositePodGroup
	for i := levels; i >= 1; i-- {
		g := CompositePodGroup{Name: fmt.Sprintf("c%d", i)}
		if i < levels {
			g.Parent = fmt.Sprintf("c%d", i+1)
		}
		cpgs = append(cpgs, g)
	}
	outcome := "both bind"
	if levels > 4 {
		outcome = "nothing is tried"
	}
	return hierarchy(Scenario{
		Name: fmt.Sprintf("cpg-depth-%d", levels),
		Description: fmt.Sprintf("basic PodGroup a (2 pods) under a chain of %d basic CompositePodGroups c1 (its parent) to c%d "+
			"(the root), room for all: %s", levels, levels, outcome),
		Placement:          PlaceBound,
		Nodes:              nodes("node", 2, "2"),
		CompositePodGroups: cpgs,
		PodGroups:          []PodGroup{{Name: "a", Parent: "c1"}},
		Pods:               members("a", "a", 2, "2"),
	})
}
