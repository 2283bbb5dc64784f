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
	"reflect"
	"strings"
	"testing"
)

func TestGenerateIsReproducibleAndValid(t *testing.T) {
	kinds := map[string]bool{}
	var gangs, basics, topology, preempting, plain, fillers, tainted int
	for seed := uint64(1); seed <= 300; seed++ {
		s := Generate(seed)
		if err := s.Validate(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if again := Generate(seed); !reflect.DeepEqual(s, again) {
			t.Fatalf("seed %d gives two scenarios", seed)
		}
		for _, g := range s.PodGroups {
			if g.MinCount > 0 {
				gangs++
			} else {
				basics++
			}
			if g.TopologyKey != "" {
				topology++
			}
			if g.PriorityClassName != "" {
				preempting++
			}
		}
		for _, p := range s.Pods {
			switch {
			case p.NodeName != "":
				fillers++
			case p.Group == "":
				plain++
			}
			kinds[constraintOf(p)] = true
		}
		for _, n := range s.Nodes {
			if len(n.Taints) > 0 {
				tainted++
			}
		}
	}
	if reflect.DeepEqual(Generate(1), Generate(2)) {
		t.Error("seeds 1 and 2 give the same scenario")
	}
	for _, k := range memberConstraints {
		if !kinds[k] {
			t.Errorf("no pod of 300 seeds has constraint %s", k)
		}
	}
	for what, n := range map[string]int{"gangs": gangs, "basic groups": basics, "rack placements": topology, "preempting groups": preempting, "plain pods": plain, "fillers": fillers, "tainted nodes": tainted} {
		if n == 0 {
			t.Errorf("300 seeds generate no %s", what)
		}
	}
}

// constraintOf names the constraint kind of a generated pod.
func constraintOf(p Pod) string {
	switch {
	case len(p.AntiAffinity) > 0:
		return MembersAntiAffinity
	case len(p.Affinity) > 0:
		return MembersAffinity
	case len(p.Spread) > 0 && p.Spread[0].Hard:
		return MembersHardSpread
	case len(p.Spread) > 0:
		return MembersSoftSpread
	case len(p.PreferAntiAffinity) > 0:
		return MembersPreferApart
	case len(p.NodeSelector) > 0:
		return MembersNodeSelector
	case len(p.Tolerations) > 0 && p.NodeName == "":
		return MembersTolerate
	case p.HostPort != 0:
		return MembersHostPort
	}
	return MembersFree
}

func TestInvariants(t *testing.T) {
	s := Scenario{
		Name: "apart", Placement: PlaceBound,
		Nodes:     []Node{{Name: "n1", CPU: "4", Memory: "8Gi"}, {Name: "n2", CPU: "4", Memory: "8Gi"}},
		PodGroups: []PodGroup{{Name: "g", MinCount: 3}},
	}
	for _, name := range []string{"g-0", "g-1", "g-2"} {
		s.Pods = append(s.Pods, Pod{Name: name, CPU: "1", Memory: "128Mi", Group: "g", Labels: map[string]string{"app": "g"},
			AntiAffinity: []Term{{TopologyKey: "kubernetes.io/hostname", Label: "app=g"}}})
	}
	observed := func(nodes ...string) Observation {
		cp := Checkpoint{Name: "final"}
		for i, n := range nodes {
			cp.Pods = append(cp.Pods, PodState{Name: s.Pods[i].Name, Node: n})
		}
		return Observation{Scenario: s.Name, Checkpoints: []Checkpoint{cp}}
	}
	tests := []struct {
		name  string
		nodes []string
		want  []string // substrings, one per expected violation line
	}{
		{name: "nothing bound", nodes: []string{"", "", ""}},
		{name: "two members on two nodes: a gang below minCount", nodes: []string{"n1", "n2", ""}, want: []string{"GangMinCount"}},
		{name: "three members on two nodes: anti-affinity broken", nodes: []string{"n1", "n2", "n1"}, want: []string{"PodAntiAffinity", "PodAntiAffinity"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Invariants(s, "final", observed(tt.nodes...))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("violations %q, want %d (%v)", got, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("violation %q, want one of %s", got[i], w)
				}
			}
		})
	}
	if _, err := Invariants(s, "nowhere", observed()); err == nil {
		t.Error("an unknown checkpoint: want an error")
	}
}

func TestCompareOutcomes(t *testing.T) {
	obs := func(node, message, groupReason string) Observation {
		return Observation{Checkpoints: []Checkpoint{{
			Name: "final",
			Pods: []PodState{{Name: "p", Node: node, Conditions: []Condition{{Type: "PodScheduled", Status: "False", Reason: "Unschedulable", Message: message}}}},
			PodGroups: []PodGroupState{{Name: "g", Conditions: []Condition{
				{Type: "PodGroupInitiallyScheduled", Status: "False", Reason: groupReason, Message: message},
			}}},
		}}}
	}
	if d := CompareOutcomes(obs("n1", "0/2 nodes", "Unschedulable"), obs("n2", "0/3 nodes", "Unschedulable")); len(d) != 0 {
		t.Errorf("other node and message: differences %q, want none", d)
	}
	if d := CompareOutcomes(obs("n1", "m", "Unschedulable"), obs("", "m", "Unschedulable")); len(d) != 2 ||
		!strings.Contains(d[0], `final/boundWithoutGroup: "1" != "0"`) || !strings.Contains(d[1], "final/pod/p/bound") {
		t.Errorf("bound against pending: differences %q, want the count and the pod's bound", d)
	}
	nondeterministic := obs("n1", "m", "Unschedulable")
	nondeterministic.Nondeterministic = []string{"final/pod/p/bound"}
	if d := CompareOutcomes(nondeterministic, obs("", "m", "Unschedulable")); len(d) != 0 {
		t.Errorf("a pod the reference's runs disagreed on, and its count: differences %q, want none", d)
	}
	if d := CompareOutcomes(obs("", "m", "Unschedulable"), obs("", "m", "SchedulerError")); len(d) != 1 || !strings.Contains(d[0], "podgroup/g/condition") {
		t.Errorf("another reason: differences %q, want the group's condition", d)
	}
}

func TestGenerateHierarchyIsReproducibleAndValid(t *testing.T) {
	var gangs, basics, topology, preempting, nested int
	for seed := uint64(1); seed <= 300; seed++ {
		s := GenerateHierarchy(seed)
		if err := s.Validate(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if !s.Composite() {
			t.Fatalf("seed %d: no CompositePodGroup", seed)
		}
		if again := GenerateHierarchy(seed); !reflect.DeepEqual(s, again) {
			t.Fatalf("seed %d gives two scenarios", seed)
		}
		root := s.CompositePodGroups[0]
		for _, c := range s.CompositePodGroups {
			switch {
			case c.MinGroupCount > 0:
				gangs++
			default:
				basics++
			}
			if c.TopologyKey != "" {
				topology++
			}
			if c.Parent != "" {
				nested++
			}
		}
		if root.PriorityClassName != "" {
			preempting++
		}
		for _, p := range s.Pods {
			if p.Group != "" && p.PriorityClassName != root.PriorityClassName {
				t.Errorf("seed %d: member %s has priority class %q, its root %q", seed, p.Name, p.PriorityClassName, root.PriorityClassName)
			}
		}
	}
	if reflect.DeepEqual(GenerateHierarchy(1), GenerateHierarchy(2)) {
		t.Error("seeds 1 and 2 give the same scenario")
	}
	if reflect.DeepEqual(GenerateHierarchy(7).Nodes, Generate(7).Nodes) && reflect.DeepEqual(GenerateHierarchy(8).Nodes, Generate(8).Nodes) {
		t.Error("GenerateHierarchy draws the clusters Generate draws for the same seeds")
	}
	for what, n := range map[string]int{"gang CompositePodGroups": gangs, "basic CompositePodGroups": basics, "rack placements": topology, "preempting roots": preempting, "nested CompositePodGroups": nested} {
		if n == 0 {
			t.Errorf("300 seeds generate no %s", what)
		}
	}
}

func TestViolationKey(t *testing.T) {
	tests := []struct {
		line, want string
	}{
		{
			line: `Pod default/plain-2 on "node-2": PodTopologySpread: kubernetes.io/hostname=node-2 holds 2 pods`,
			want: "Pod default/plain-2: PodTopologySpread",
		},
		{line: "something else", want: "something else"},
	}
	for _, tt := range tests {
		if got := ViolationKey(tt.line); got != tt.want {
			t.Errorf("ViolationKey(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
	other := `Pod default/plain-2 on "node-3": PodTopologySpread: kubernetes.io/hostname=node-3 holds 2 pods`
	if ViolationKey(other) != ViolationKey(tests[0].line) {
		t.Error("the same constraint of the same pod on another node gives another key")
	}
}
