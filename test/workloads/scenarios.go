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

// Scenarios returns every scenario of plain PodGroups, in a fixed order;
// CompositeScenarios returns those of hierarchies.
func Scenarios() []Scenario {
	return []Scenario{
		gangFits(), gangShort(), missingGroup(), missingBasicGroup(), gangIncomplete(),
		basicShort(), gangMinTwoOfFour(), topologyOneRack(), topologyNoRack(),
		topologyKeyMissing(), basicTopology(), gangPreemption(), minCountLowered(),
		nodeAdded(), twoGangs(), boundGangPodDeleted(), priorityMismatch(),
		gatedMember(), lateMemberTopology(), topologyPrebound(), topologyMostMembers(), topologyMostAllocated(),
		victimGroupAll(), preemptionNever(), basicPreemption(), basicFirstMemberPinned(), priorityOrder(),
		groupDeleted(), minCountRaised(), minCountLoweredWaiting(),
	}
}

// RecordedScenarios returns every scenario with a golden: AllScenarios,
// GeneratedScenarios and GeneratedHierarchies.
func RecordedScenarios() []Scenario {
	return slices.Concat(AllScenarios(), GeneratedScenarios(), GeneratedHierarchies())
}

// ScenarioNamed returns the scenario of RecordedScenarios named name.
func ScenarioNamed(name string) (Scenario, bool) {
	for _, s := range RecordedScenarios() {
		if s.Name == name {
			return s, true
		}
	}
	return Scenario{}, false
}

// nodes returns n nodes prefix-1..prefix-n with cpu CPUs and 16Gi each,
// labelled with extra key/value pairs.
func nodes(prefix string, n int, cpu string, labels ...string) []Node {
	out := make([]Node, n)
	for i := range out {
		l := map[string]string{}
		for j := 0; j+1 < len(labels); j += 2 {
			l[labels[j]] = labels[j+1]
		}
		out[i] = Node{Name: fmt.Sprintf("%s-%d", prefix, i+1), CPU: cpu, Memory: "16Gi", Labels: l}
	}
	return out
}

// racks returns len(cpus) racks of perRack nodes each, node
// rack-<r>-<i> with cpus[r] CPUs, labelled RackKey=rack-<r>.
func racks(perRack int, cpus ...string) []Node {
	var out []Node
	for r, cpu := range cpus {
		rack := fmt.Sprintf("rack-%c", 'a'+r)
		out = append(out, nodes(rack, perRack, cpu, RackKey, rack)...)
	}
	return out
}

// members returns n pods prefix-1..prefix-n of group, requesting cpu and 1Gi.
func members(prefix, group string, n int, cpu string) []Pod {
	out := make([]Pod, n)
	for i := range out {
		out[i] = Pod{Name: fmt.Sprintf("%s-%d", prefix, i+1), CPU: cpu, Memory: "1Gi", Group: group}
	}
	return out
}

// withPriority sets the priority class of pods.
func withPriority(pods []Pod, class string) []Pod {
	for i := range pods {
		pods[i].PriorityClassName = class
	}
	return pods
}

// fillers returns one pod per node, named filler-<node>, bound to it and
// requesting cpu.
func fillers(ns []Node, cpu string) []Pod {
	out := make([]Pod, len(ns))
	for i, n := range ns {
		out[i] = Pod{Name: "filler-" + n.Name, CPU: cpu, Memory: "1Gi", NodeName: n.Name}
	}
	return out
}

// names returns the names of nodes, pods, PodGroups or CompositePodGroups.
func names[T Node | Pod | PodGroup | CompositePodGroup](objs []T) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		switch v := any(o).(type) {
		case Node:
			out[i] = v.Name
		case Pod:
			out[i] = v.Name
		case PodGroup:
			out[i] = v.Name
		case CompositePodGroup:
			out[i] = v.Name
		}
	}
	return out
}

// simple is the common shape: create the priority classes, the nodes, the
// PodGroups, then the pods, then record "final".
func simple(s Scenario) Scenario {
	for _, pc := range s.PriorityClasses {
		s.Steps = append(s.Steps, Create(pc.Name))
	}
	s.Steps = append(s.Steps, Create(names(s.Nodes)...), Create(names(s.PodGroups)...), Create(names(s.Pods)...), Observe("final"))
	return s
}

// a) A gang of 4 with room for all.
func gangFits() Scenario {
	return simple(Scenario{
		Name:        "gang-fits",
		Description: "gang minCount 4, 4 pods of 2 CPUs, 2 nodes of 4 CPUs: all bind",
		Placement:   PlaceBound,
		Nodes:       nodes("node", 2, "4"),
		PodGroups:   []PodGroup{{Name: "pg", MinCount: 4}},
		Pods:        members("p", "pg", 4, "2"),
	})
}

// b) A gang of 4 with room for 3.
func gangShort() Scenario {
	return simple(Scenario{
		Name:        "gang-short",
		Description: "gang minCount 4, 4 pods of 2 CPUs, 3 nodes of 2 CPUs: none binds",
		Placement:   PlaceExact,
		Nodes:       nodes("node", 3, "2"),
		PodGroups:   []PodGroup{{Name: "pg", MinCount: 4}},
		Pods:        members("p", "pg", 4, "2"),
	})
}

// c) Pods naming a gang PodGroup that does not exist yet.
func missingGroup() Scenario {
	s := Scenario{
		Name:        "missing-group",
		Description: "3 pods name PodGroup pg (gang minCount 3) before it exists; then it is created; room for all",
		Placement:   PlaceBound,
		Nodes:       nodes("node", 2, "4"),
		PodGroups:   []PodGroup{{Name: "pg", MinCount: 3}},
		Pods:        members("p", "pg", 3, "1"),
	}
	s.Steps = []Step{Create(names(s.Nodes)...), Create(names(s.Pods)...), Observe("before-group"), Create("pg"), Observe("final")}
	return s
}

// c') Pods naming a basic PodGroup that does not exist yet.
func missingBasicGroup() Scenario {
	s := Scenario{
		Name:        "missing-basic-group",
		Description: "2 pods name PodGroup pg (basic) before it exists; then it is created; room for all",
		Placement:   PlaceBound,
		Nodes:       nodes("node", 2, "4"),
		PodGroups:   []PodGroup{{Name: "pg"}},
		Pods:        members("p", "pg", 2, "1"),
	}
	s.Steps = []Step{Create(names(s.Nodes)...), Create(names(s.Pods)...), Observe("before-group"), Create("pg"), Observe("final")}
	return s
}

// d) A gang of 4 with only 3 pods created, then the fourth.
func gangIncomplete() Scenario {
	s := Scenario{
		Name:        "gang-incomplete",
		Description: "gang minCount 4 with 3 pods created, room for all; then the 4th pod",
		Placement:   PlaceBound,
		Nodes:       nodes("node", 2, "4"),
		PodGroups:   []PodGroup{{Name: "pg", MinCount: 4}},
		Pods:        members("p", "pg", 4, "1"),
	}
	s.Steps = []Step{Create(names(s.Nodes)...), Create("pg"), Create("p-1", "p-2", "p-3"), Observe("three-pods"), Create("p-4"), Observe("final")}
	return s
}

// e) A basic group of 3 with room for 2.
func basicShort() Scenario {
	return simple(Scenario{
		Name:        "basic-short",
		Description: "basic PodGroup, 3 pods of 2 CPUs, 2 nodes of 2 CPUs: 2 bind",
		Placement:   PlaceBound,
		Nodes:       nodes("node", 2, "2"),
		PodGroups:   []PodGroup{{Name: "pg"}},
		Pods:        members("p", "pg", 3, "2"),
	})
}

// f) A gang of minCount 2 with 4 pods and room for 3.
func gangMinTwoOfFour() Scenario {
	return simple(Scenario{
		Name:        "gang-min2-of-4",
		Description: "gang minCount 2, 4 pods of 2 CPUs, 3 nodes of 2 CPUs: 3 bind",
		Placement:   PlaceBound,
		Nodes:       nodes("node", 3, "2"),
		PodGroups:   []PodGroup{{Name: "pg", MinCount: 2}},
		Pods:        members("p", "pg", 4, "2"),
	})
}

// g) A rack-constrained gang that fits in one rack only.
func topologyOneRack() Scenario {
	ns := racks(2, "4", "4", "4")
	// Racks a and b keep 2 free CPUs per node, rack c is empty: a gang of
	// 4 x 2 CPUs fits across racks in many ways but in rack c only.
	fill := fillers(ns[:4], "2")
	s := Scenario{
		Name:        "topology-one-rack",
		Description: "gang minCount 4 (4 x 2 CPUs) with topology key rack; racks a and b have 4 free CPUs each, rack c 8: all in rack c",
		Placement:   PlaceDomain,
		DomainKey:   RackKey,
		Nodes:       ns,
		PodGroups:   []PodGroup{{Name: "pg", MinCount: 4, TopologyKey: RackKey}},
		Pods:        append(fill, members("p", "pg", 4, "2")...),
	}
	s.Steps = []Step{Create(names(ns)...), Create(names(fill)...), Create("pg"), Create("p-1", "p-2", "p-3", "p-4"), Observe("final")}
	return s
}

// h) A rack-constrained gang that fits across racks but in none alone.
func topologyNoRack() Scenario {
	ns := racks(2, "4", "4", "4")
	fill := fillers(ns, "2")
	s := Scenario{
		Name:        "topology-no-rack",
		Description: "gang minCount 4 (4 x 2 CPUs) with topology key rack; every rack has 4 free CPUs (12 in all): none binds",
		Placement:   PlaceDomain,
		DomainKey:   RackKey,
		Nodes:       ns,
		PodGroups:   []PodGroup{{Name: "pg", MinCount: 4, TopologyKey: RackKey}},
		Pods:        append(fill, members("p", "pg", 4, "2")...),
	}
	s.Steps = []Step{Create(names(ns)...), Create(names(fill)...), Create("pg"), Create("p-1", "p-2", "p-3", "p-4"), Observe("final")}
	return s
}

// i) A topology key no node carries.
func topologyKeyMissing() Scenario {
	return simple(Scenario{
		Name:        "topology-key-missing",
		Description: "gang minCount 2 with topology key topology.example.com/block, which no node carries; room for all",
		Placement:   PlaceBound,
		Nodes:       racks(1, "4", "4"),
		PodGroups:   []PodGroup{{Name: "pg", MinCount: 2, TopologyKey: "topology.example.com/block"}},
		Pods:        members("p", "pg", 2, "1"),
	})
}

// A basic group with a topology key.
func basicTopology() Scenario {
	return simple(Scenario{
		Name:        "basic-topology",
		Description: "basic PodGroup with topology key rack, 4 pods of 1 CPU, 3 racks of 2 nodes of 4 CPUs: do they share a rack?",
		Placement:   PlaceDomain,
		DomainKey:   RackKey,
		Nodes:       racks(2, "4", "4", "4"),
		PodGroups:   []PodGroup{{Name: "pg", TopologyKey: RackKey}},
		Pods:        members("p", "pg", 4, "1"),
	})
}

// j) A high-priority gang preempting low-priority plain pods.
func gangPreemption() Scenario {
	ns := nodes("node", 2, "4")
	low := []Pod{
		{Name: "low-1", CPU: "2", Memory: "1Gi", NodeName: "node-1", PriorityClassName: "low"},
		{Name: "low-2", CPU: "2", Memory: "1Gi", NodeName: "node-1", PriorityClassName: "low"},
		{Name: "low-3", CPU: "2", Memory: "1Gi", NodeName: "node-2", PriorityClassName: "low"},
		{Name: "low-4", CPU: "2", Memory: "1Gi", NodeName: "node-2", PriorityClassName: "low"},
	}
	gang := withPriority(members("high", "pg", 2, "2"), "high")
	s := Scenario{
		Name:            "gang-preemption",
		Description:     "2 nodes of 4 CPUs full of 4 low-priority plain pods (2 CPUs each); a high-priority gang minCount 2 of 2 x 2 CPUs preempts",
		Placement:       PlaceExact,
		PriorityClasses: []PriorityClass{{Name: "low", Value: 100}, {Name: "high", Value: 1000}},
		Nodes:           ns,
		PodGroups:       []PodGroup{{Name: "pg", MinCount: 2, PriorityClassName: "high"}},
		Pods:            append(low, gang...),
	}
	s.Steps = []Step{Create("low", "high"), Create(names(ns)...), Create(names(low)...), Observe("low-running"),
		Create("pg"), Create(names(gang)...), Observe("final")}
	return s
}

// k) minCount lowered after a failed attempt.
func minCountLowered() Scenario {
	s := Scenario{
		Name:        "min-count-lowered",
		Description: "gang minCount 4, 4 pods of 2 CPUs, 3 nodes of 2 CPUs: none binds; then minCount is set to 3",
		Placement:   PlaceBound,
		Nodes:       nodes("node", 3, "2"),
		PodGroups:   []PodGroup{{Name: "pg", MinCount: 4}},
		Pods:        members("p", "pg", 4, "2"),
	}
	s.Steps = []Step{Create(names(s.Nodes)...), Create("pg"), Create(names(s.Pods)...), Observe("min-4"), SetMinCount("pg", 3), Observe("final")}
	return s
}

// l) A gang of 8 with room for 7, then a node is added.
func nodeAdded() Scenario {
	ns := nodes("node", 8, "2")
	s := Scenario{
		Name:        "node-added",
		Description: "gang minCount 8, 8 pods of 2 CPUs, 7 nodes of 2 CPUs: none binds; then an 8th node: all bind",
		Placement:   PlaceBound,
		Nodes:       ns,
		PodGroups:   []PodGroup{{Name: "pg", MinCount: 8}},
		Pods:        members("p", "pg", 8, "2"),
		Settle:      Settle{Quiet: 10 * time.Second, Max: 90 * time.Second},
	}
	s.Steps = []Step{Create(names(ns[:7])...), Create("pg"), Create(names(s.Pods)...), Observe("seven-nodes"), Create("node-8"), Observe("final")}
	return s
}

// A gang one of whose members is created with a scheduling gate.
func gatedMember() Scenario {
	pods := members("p", "pg", 4, "2")
	pods[3].Gates = []string{"example.com/hold"}
	s := Scenario{
		Name:        "gated-member",
		Description: "gang minCount 3, 4 pods of 2 CPUs on 4 nodes of 2 CPUs, p-4 created with a scheduling gate: the other 3 bind (the gate holds no one else back), then p-4 once ungated",
		Placement:   PlaceBound,
		Nodes:       nodes("node", 4, "2"),
		PodGroups:   []PodGroup{{Name: "pg", MinCount: 3}},
		Pods:        pods,
	}
	s.Steps = []Step{Create(names(s.Nodes)...), Create("pg"), Create(names(pods)...), Observe("gated"), Ungate("p-4"), Observe("final")}
	return s
}

// Two gangs competing for room for one.
func twoGangs() Scenario {
	a, b := members("a", "pg-a", 3, "2"), members("b", "pg-b", 3, "2")
	s := Scenario{
		Name:        "two-gangs",
		Description: "gangs pg-a and pg-b, minCount 3 each, 3 pods of 2 CPUs each, 4 nodes of 2 CPUs: one gang binds whole, the other not at all",
		Placement:   PlaceBound,
		Nodes:       nodes("node", 4, "2"),
		PodGroups:   []PodGroup{{Name: "pg-a", MinCount: 3}, {Name: "pg-b", MinCount: 3}},
		Pods:        append(a, b...),
	}
	s.Steps = []Step{Create(names(s.Nodes)...), Create("pg-a", "pg-b"), Create(names(a)...), Create(names(b)...), Observe("final")}
	return s
}

// A bound gang loses a pod.
func boundGangPodDeleted() Scenario {
	s := Scenario{
		Name:        "bound-gang-pod-deleted",
		Description: "gang minCount 3 of 3 pods binds; then one pod is deleted: does the PodGroup condition change?",
		Placement:   PlaceBound,
		Nodes:       nodes("node", 2, "4"),
		PodGroups:   []PodGroup{{Name: "pg", MinCount: 3}},
		Pods:        members("p", "pg", 3, "1"),
	}
	s.Steps = []Step{Create(names(s.Nodes)...), Create("pg"), Create(names(s.Pods)...), Observe("bound"), Delete("p-3"), Observe("final")}
	return s
}

// Pods whose priority differs from their group's.
func priorityMismatch() Scenario {
	pods := members("p", "pg", 2, "1")
	pods[0].PriorityClassName = "high"
	return simple(Scenario{
		Name:            "priority-mismatch",
		Description:     "gang minCount 2 with priority class high; one pod has class high, the other none",
		Placement:       PlaceBound,
		PriorityClasses: []PriorityClass{{Name: "high", Value: 1000}},
		Nodes:           nodes("node", 2, "4"),
		PodGroups:       []PodGroup{{Name: "pg", MinCount: 2, PriorityClassName: "high"}},
		Pods:            pods,
	})
}

// A rack-constrained gang that has bound gets late members: they go to
// its rack or nowhere.
func lateMemberTopology() Scenario {
	ns := append(nodes("rack-a", 2, "4", RackKey, "rack-a"), nodes("rack-b", 1, "5", RackKey, "rack-b")...)
	gang := members("p", "pg", 2, "3")
	late := []Pod{
		{Name: "p-3", CPU: "1", Memory: "1Gi", Group: "pg"},
		{Name: "p-4", CPU: "3", Memory: "1Gi", Group: "pg"},
	}
	s := Scenario{
		Name: "late-member-topology",
		Description: "gang minCount 2 (2 x 3 CPUs) with topology key rack binds in rack-a (2 nodes of 4 CPUs; rack-b is 1 node of 5); " +
			"then p-3 (1 CPU) joins rack-a though rack-b has more room, and p-4 (3 CPUs), which fits only in rack-b, binds nowhere",
		Placement: PlaceDomain,
		DomainKey: RackKey,
		Nodes:     ns,
		PodGroups: []PodGroup{{Name: "pg", MinCount: 2, TopologyKey: RackKey}},
		Pods:      append(gang, late...),
	}
	s.Steps = []Step{Create(names(ns)...), Create("pg"), Create(names(gang)...), Observe("bound"),
		Create("p-3"), Observe("small-member"), Create("p-4"), Observe("final")}
	return s
}

// A rack-constrained gang one of whose members was bound before the
// scheduler saw it: the others must join that rack.
func topologyPrebound() Scenario {
	ns := racks(2, "4", "4")
	// rack-b keeps 2 free CPUs on rack-b-2 only; rack-a is empty.
	fill := []Pod{{Name: "filler-rack-b-2", CPU: "2", Memory: "1Gi", NodeName: "rack-b-2"}}
	pods := members("p", "pg", 3, "2")
	pods[0].NodeName = "rack-b-1"
	pods[0].CPU = "4"
	s := Scenario{
		Name: "topology-prebound",
		Description: "gang minCount 3 with topology key rack; p-1 (4 CPUs) is bound to rack-b-1 at creation; p-2 and p-3 (2 CPUs) " +
			"fit in rack-a but only one fits in rack-b: none binds",
		Placement: PlaceExact,
		DomainKey: RackKey,
		Nodes:     ns,
		PodGroups: []PodGroup{{Name: "pg", MinCount: 3, TopologyKey: RackKey}},
		Pods:      append(fill, pods...),
	}
	s.Steps = []Step{Create(names(ns)...), Create(names(fill)...), Create("pg"), Create("p-1"), Observe("one-bound"),
		Create("p-2", "p-3"), Observe("final")}
	return s
}

// A rack-constrained gang with more members than minCount, and racks
// that hold different numbers of them: PodGroupPodsCount ranks them.
func topologyMostMembers() Scenario {
	ns := racks(2, "4", "4", "4")
	// Free CPUs: rack-a 2+4 (3 members of 2), rack-b 4+4 (4 members),
	// rack-c 2+2 (2 members).
	fill := fillers([]Node{ns[0], ns[4], ns[5]}, "2")
	s := Scenario{
		Name: "topology-most-members",
		Description: "gang minCount 2, 4 pods of 2 CPUs, topology key rack; rack-a holds 3 of them, rack-b 4, rack-c 2: " +
			"all 4 bind in rack-b (PodGroupPodsCount outweighs NodeResourcesFit, which ranks the racks alike)",
		Placement: PlaceDomain,
		DomainKey: RackKey,
		Nodes:     ns,
		PodGroups: []PodGroup{{Name: "pg", MinCount: 2, TopologyKey: RackKey}},
		Pods:      append(fill, members("p", "pg", 4, "2")...),
	}
	// The pods wait for their group, so that all four join its first cycle.
	s.Steps = []Step{Create(names(ns)...), Create(names(fill)...), Create("p-1", "p-2", "p-3", "p-4"), Observe("no-group"),
		Create("pg"), Observe("final")}
	return s
}

// A rack-constrained gang that fits whole in every rack: NodeResourcesFit
// ranks the racks by how full they would be.
func topologyMostAllocated() Scenario {
	ns := racks(2, "4", "4", "4")
	fill := fillers(ns[2:4], "1")
	s := Scenario{
		Name: "topology-most-allocated",
		Description: "gang minCount 2, 2 pods of 2 CPUs, topology key rack; every rack holds both, rack-b's nodes already " +
			"run 1 CPU each: both bind in rack-b, the fullest",
		Placement: PlaceDomain,
		DomainKey: RackKey,
		Nodes:     ns,
		PodGroups: []PodGroup{{Name: "pg", MinCount: 2, TopologyKey: RackKey}},
		Pods:      append(fill, members("p", "pg", 2, "2")...),
	}
	s.Steps = []Step{Create(names(ns)...), Create(names(fill)...), Create("p-1", "p-2"), Observe("no-group"),
		Create("pg"), Observe("final")}
	return s
}

// A gang preempting a lower-priority gang whose disruption mode is all.
func victimGroupAll() Scenario {
	ns := []Node{{Name: "node-1", CPU: "3", Memory: "16Gi"}, {Name: "node-2", CPU: "2", Memory: "16Gi"}}
	low := []Pod{
		{Name: "low-1", CPU: "2", Memory: "1Gi", Group: "pg-low", PriorityClassName: "low", NodeName: "node-1"},
		{Name: "low-2", CPU: "2", Memory: "1Gi", Group: "pg-low", PriorityClassName: "low", NodeName: "node-2"},
	}
	high := withPriority(members("high", "pg-high", 1, "2"), "high")
	s := Scenario{
		Name: "victim-group-all",
		Description: "low-priority gang pg-low (disruptionMode all) has a pod on each of 2 nodes (3 and 2 CPUs, 2 used on each); " +
			"a high-priority gang of one 2-CPU pod needs one node: both low pods are preempted",
		Placement:       PlaceExact,
		PriorityClasses: []PriorityClass{{Name: "low", Value: 100}, {Name: "high", Value: 1000}},
		Nodes:           ns,
		PodGroups: []PodGroup{
			{Name: "pg-low", MinCount: 2, PriorityClassName: "low", DisruptionAll: true},
			{Name: "pg-high", MinCount: 1, PriorityClassName: "high"},
		},
		Pods: append(low, high...),
	}
	s.Steps = []Step{Create("low", "high"), Create(names(ns)...), Create("pg-low"), Create(names(low)...), Observe("low-running"),
		Create("pg-high"), Create(names(high)...), Observe("final")}
	return s
}

// A high-priority gang whose pods may not preempt.
func preemptionNever() Scenario {
	ns := nodes("node", 2, "4")
	low := []Pod{
		{Name: "low-1", CPU: "3", Memory: "1Gi", NodeName: "node-1", PriorityClassName: "low"},
		{Name: "low-2", CPU: "3", Memory: "1Gi", NodeName: "node-2", PriorityClassName: "low"},
	}
	gang := withPriority(members("high", "pg", 2, "2"), "high-never")
	s := Scenario{
		Name: "preemption-never",
		Description: "2 nodes of 4 CPUs with a 3-CPU low-priority pod each; a high-priority gang minCount 2 (2 x 2 CPUs) " +
			"whose priority class has preemptionPolicy Never: nothing is preempted, none binds",
		Placement: PlaceExact,
		PriorityClasses: []PriorityClass{{Name: "low", Value: 100},
			{Name: "high-never", Value: 1000, PreemptionPolicy: corev1.PreemptNever}},
		Nodes:     ns,
		PodGroups: []PodGroup{{Name: "pg", MinCount: 2, PriorityClassName: "high-never"}},
		Pods:      append(low, gang...),
	}
	s.Steps = []Step{Create("low", "high-never"), Create(names(ns)...), Create(names(low)...), Observe("low-running"),
		Create("pg"), Create(names(gang)...), Observe("final")}
	return s
}

// A high-priority basic group preempting plain pods of two priorities.
func basicPreemption() Scenario {
	ns := []Node{{Name: "node-1", CPU: "6", Memory: "16Gi"}, {Name: "node-2", CPU: "4", Memory: "16Gi"}}
	low := []Pod{
		{Name: "low-1", CPU: "2", Memory: "1Gi", NodeName: "node-1", PriorityClassName: "low"},
		{Name: "mid-1", CPU: "2", Memory: "1Gi", NodeName: "node-1", PriorityClassName: "mid"},
		{Name: "low-3", CPU: "2", Memory: "1Gi", NodeName: "node-1", PriorityClassName: "low"},
		{Name: "low-2", CPU: "2", Memory: "1Gi", NodeName: "node-2", PriorityClassName: "low"},
		{Name: "mid-2", CPU: "2", Memory: "1Gi", NodeName: "node-2", PriorityClassName: "mid"},
	}
	group := withPriority(members("high", "pg", 3, "2"), "high")
	s := Scenario{
		Name: "basic-preemption",
		Description: "nodes of 6 and 4 CPUs, full with low- and mid-priority pods (2 CPUs each, a mid one on each node); a " +
			"high-priority basic group of 3 pods of 2 CPUs, created before their group so that they are placed together, preempts the low ones",
		Placement:       PlaceExact,
		PriorityClasses: []PriorityClass{{Name: "low", Value: 100}, {Name: "mid", Value: 200}, {Name: "high", Value: 1000}},
		Nodes:           ns,
		PodGroups:       []PodGroup{{Name: "pg", PriorityClassName: "high"}},
		Pods:            append(low, group...),
	}
	s.Steps = []Step{Create("low", "mid", "high"), Create(names(ns)...), Create(names(low)...), Observe("low-running"),
		Create(names(group)...), Observe("no-group"), Create("pg"), Observe("final")}
	return s
}

// A high-priority basic group with a topology key whose first member is
// scheduled alone: it goes to the fullest rack (PlacementScore packs), and
// the members after it must join that rack.
func basicFirstMemberPinned() Scenario {
	ns := racks(2, "4", "4")
	low := []Pod{{Name: "low-rack-b-1", CPU: "4", Memory: "1Gi", NodeName: "rack-b-1", PriorityClassName: "low"}}
	group := withPriority(members("p", "pg", 5, "1"), "high")
	s := Scenario{
		Name: "basic-first-member-pinned",
		Description: "2 racks of 2 nodes of 4 CPUs, rack-b-1 full with a low-priority pod; a high-priority basic group with topology key rack " +
			"whose first member (1 CPU) comes alone goes to the fuller rack-b; the 4 after it join rack-b, which has room for 3 of them",
		Placement:       PlaceExact,
		PriorityClasses: []PriorityClass{{Name: "low", Value: 100}, {Name: "high", Value: 1000}},
		Nodes:           ns,
		PodGroups:       []PodGroup{{Name: "pg", TopologyKey: RackKey, PriorityClassName: "high"}},
		Pods:            append(low, group...),
	}
	s.Steps = []Step{Create("low", "high"), Create(names(ns)...), Create(names(low)...), Observe("low-running"),
		Create("pg"), Create("p-1"), Observe("first"), Create("p-2", "p-3", "p-4", "p-5"), Observe("final")}
	return s
}

// Two gangs of different priorities waiting for room for one. A group that
// does not fit retries when its backoff ends, not on cluster events, in
// kube-scheduler as in Berth, so the group whose backoff ends first after
// the big node comes takes it; groups whose backoffs end in the same
// one-second window go in priority order. pg-high's members are created
// first so that its backoff never ends after pg-low's: created the other way
// round, pg-low's first try could fall a window before pg-high's and keep
// that lead, and which gang binds would depend on when the tries fell.
func priorityOrder() Scenario {
	small := Node{Name: "small", CPU: "1", Memory: "16Gi"}
	big := Node{Name: "big", CPU: "6", Memory: "16Gi"}
	low := withPriority(members("low", "pg-low", 2, "3"), "low")
	high := withPriority(members("high", "pg-high", 2, "3"), "high")
	s := Scenario{
		Name: "priority-order",
		Description: "gangs pg-low (priority 100) and pg-high (priority 1000), 2 pods of 3 CPUs each, wait on a 1-CPU node; " +
			"then a node of 6 CPUs, room for one gang: pg-high binds, pg-low does not",
		Placement:       PlaceBound,
		PriorityClasses: []PriorityClass{{Name: "low", Value: 100}, {Name: "high", Value: 1000}},
		Nodes:           []Node{small, big},
		PodGroups: []PodGroup{
			{Name: "pg-low", MinCount: 2, PriorityClassName: "low"},
			{Name: "pg-high", MinCount: 2, PriorityClassName: "high"},
		},
		Pods:   append(low, high...),
		Settle: Settle{Quiet: 12 * time.Second, Max: 90 * time.Second},
	}
	s.Steps = []Step{Create("low", "high"), Create("small"), Create("pg-low", "pg-high"), Create(names(high)...), Create(names(low)...),
		Observe("waiting"), Create("big"), Observe("final")}
	return s
}

// A PodGroup deleted while its members wait.
func groupDeleted() Scenario {
	s := Scenario{
		Name: "group-deleted",
		Description: "gang minCount 3, 3 pods of 2 CPUs, 2 nodes of 2 CPUs: none binds; the PodGroup is deleted; " +
			"then a third node: still none binds",
		Placement: PlaceBound,
		Nodes:     nodes("node", 3, "2"),
		PodGroups: []PodGroup{{Name: "pg", MinCount: 3}},
		Pods:      members("p", "pg", 3, "2"),
		Settle:    Settle{Quiet: 10 * time.Second, Max: 90 * time.Second},
	}
	s.Steps = []Step{Create("node-1", "node-2"), Create("pg"), Create(names(s.Pods)...), Observe("unschedulable"),
		Delete("pg"), Observe("deleted"), Create("node-3"), Observe("final")}
	return s
}

// minCount raised while the gang waits: the new minCount holds.
func minCountRaised() Scenario {
	s := Scenario{
		Name: "min-count-raised",
		Description: "gang minCount 3, 3 pods of 2 CPUs, 2 nodes of 2 CPUs: none binds; minCount is set to 4 and 2 nodes are added: " +
			"still none binds; then a 4th pod: all 4 bind",
		Placement: PlaceBound,
		Nodes:     nodes("node", 4, "2"),
		PodGroups: []PodGroup{{Name: "pg", MinCount: 3}},
		Pods:      members("p", "pg", 4, "2"),
		Settle:    Settle{Quiet: 10 * time.Second, Max: 90 * time.Second},
	}
	s.Steps = []Step{Create("node-1", "node-2"), Create("pg"), Create("p-1", "p-2", "p-3"), Observe("min-3"),
		SetMinCount("pg", 4), Create("node-3", "node-4"), Observe("min-4"), Create("p-4"), Observe("final")}
	return s
}

// minCount lowered while the gang has too few members to be tried.
func minCountLoweredWaiting() Scenario {
	s := Scenario{
		Name:        "min-count-lowered-waiting",
		Description: "gang minCount 3 with 2 pods created, room for all: they wait; then minCount is set to 2: both bind",
		Placement:   PlaceBound,
		Nodes:       nodes("node", 2, "4"),
		PodGroups:   []PodGroup{{Name: "pg", MinCount: 3}},
		Pods:        members("p", "pg", 2, "1"),
	}
	s.Steps = []Step{Create(names(s.Nodes)...), Create("pg"), Create(names(s.Pods)...), Observe("waiting"),
		SetMinCount("pg", 2), Observe("final")}
	return s
}
