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
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestScenariosValidate(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range Scenarios() {
		if err := s.Validate(); err != nil {
			t.Error(err)
		}
		if seen[s.Name] {
			t.Errorf("scenario %s is listed twice", s.Name)
		}
		seen[s.Name] = true
	}
}

func TestValidateRejects(t *testing.T) {
	base := func() Scenario {
		return Scenario{
			Name: "s", Placement: PlaceExact,
			Nodes:     []Node{{Name: "n", CPU: "1", Memory: "1Gi"}},
			PodGroups: []PodGroup{{Name: "pg", MinCount: 1}},
			Pods:      []Pod{{Name: "p", CPU: "1", Memory: "1Gi", Group: "pg"}},
			Steps:     []Step{Create("n", "pg", "p"), Observe("final")},
		}
	}
	tests := []struct {
		name   string
		change func(*Scenario)
		want   string
	}{
		{"no name", func(s *Scenario) { s.Name = "" }, "needs a name"},
		{"unknown placement", func(s *Scenario) { s.Placement = "x" }, "placement"},
		{"domain without key", func(s *Scenario) { s.Placement = PlaceDomain }, "DomainKey"},
		{"duplicate name", func(s *Scenario) { s.Pods[0].Name = "n" }, "used twice"},
		{"unknown object", func(s *Scenario) { s.Steps[0] = Create("x") }, "unknown object"},
		{"created twice", func(s *Scenario) { s.Steps = append([]Step{Create("n")}, s.Steps...) }, "again"},
		{"delete before create", func(s *Scenario) { s.Steps = append([]Step{Delete("p")}, s.Steps...) }, "deletes"},
		{"delete a node", func(s *Scenario) { s.Steps = append(s.Steps[:1], Delete("n"), Observe("x")) }, "no pod, PodGroup"},
		{"minCount of a node", func(s *Scenario) { s.Steps = append(s.Steps[:1], SetMinCount("n", 1), Observe("x")) }, "changes"},
		{"two actions", func(s *Scenario) { s.Steps[0].Observe = "o" }, "sets 2 actions"},
		{"checkpoint twice", func(s *Scenario) { s.Steps = append(s.Steps, Observe("final")) }, "recorded twice"},
		{"no final observe", func(s *Scenario) { s.Steps = s.Steps[:1] }, "last step"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := base()
			if err := s.Validate(); err != nil {
				t.Fatalf("base scenario: %v", err)
			}
			tt.change(&s)
			err := s.Validate()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Validate() = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestObjects(t *testing.T) {
	g := PodGroup{Name: "pg", MinCount: 3, TopologyKey: RackKey, PriorityClassName: "high"}.Object("ns")
	if g.Namespace != "ns" || g.Spec.SchedulingPolicy.Gang == nil || g.Spec.SchedulingPolicy.Gang.MinCount != 3 ||
		g.Spec.SchedulingPolicy.Basic != nil || g.Spec.SchedulingConstraints.Topology[0].Key != RackKey || g.Spec.PriorityClassName != "high" {
		t.Errorf("gang PodGroup = %+v", g)
	}
	if g.Spec.DisruptionMode != nil {
		t.Errorf("gang PodGroup has disruption mode %+v, want none", g.Spec.DisruptionMode)
	}
	if b := (PodGroup{Name: "pg"}).Object("ns"); b.Spec.SchedulingPolicy.Basic == nil || b.Spec.SchedulingPolicy.Gang != nil || b.Spec.SchedulingConstraints != nil {
		t.Errorf("basic PodGroup = %+v", b)
	}
	all := PodGroup{Name: "pg", MinCount: 2, DisruptionAll: true}
	if d := all.Object("ns").Spec.DisruptionMode; d == nil || d.All == nil || d.Single != nil {
		t.Errorf("disruptionMode of a DisruptionAll PodGroup = %+v", d)
	}
	if d := all.BerthObject("ns").Spec.DisruptionMode; d == nil || d.All == nil || d.Single != nil {
		t.Errorf("disruptionMode of a DisruptionAll Berth PodGroup = %+v", d)
	}
	if pc := (PriorityClass{Name: "never", Value: 5, PreemptionPolicy: corev1.PreemptNever}).Object(); pc.PreemptionPolicy == nil || *pc.PreemptionPolicy != corev1.PreemptNever || pc.Value != 5 {
		t.Errorf("PriorityClass with preemptionPolicy Never = %+v", pc)
	}
	if pc := (PriorityClass{Name: "default", Value: 5}).Object(); pc.PreemptionPolicy != nil {
		t.Errorf("PriorityClass without a preemption policy has %q", *pc.PreemptionPolicy)
	}
	p := Pod{Name: "p", CPU: "2", Memory: "1Gi", Group: "pg", PriorityClassName: "low", NodeName: "n"}.Object("ns")
	if *p.Spec.SchedulingGroup.PodGroupName != "pg" || p.Spec.PriorityClassName != "low" || p.Spec.NodeName != "n" ||
		p.Spec.Containers[0].Resources.Requests.Cpu().String() != "2" {
		t.Errorf("pod = %+v", p.Spec)
	}
	if plain := (Pod{Name: "p", CPU: "1", Memory: "1Gi"}).Object("ns"); plain.Spec.SchedulingGroup != nil {
		t.Errorf("plain pod has a scheduling group %+v", plain.Spec.SchedulingGroup)
	}
	n := Node{Name: "n", CPU: "4", Memory: "8Gi", Labels: map[string]string{RackKey: "a"}}.Object()
	if n.Labels[RackKey] != "a" || n.Status.Allocatable.Cpu().String() != "4" || n.Status.Allocatable.Pods().Value() != 110 {
		t.Errorf("node = %+v", n)
	}
}

func TestCompositeScenarios(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range Scenarios() {
		if s.Composite() {
			t.Errorf("Scenarios() lists composite scenario %s, which an apiserver without the CompositePodGroup gate cannot play", s.Name)
		}
		seen[s.Name] = true
	}
	for _, s := range CompositeScenarios() {
		if err := s.Validate(); err != nil {
			t.Error(err)
		}
		if !s.Composite() {
			t.Errorf("CompositeScenarios() lists %s, which is not composite", s.Name)
		}
		if !strings.HasPrefix(s.Name, "cpg-") {
			t.Errorf("composite scenario %s is not named cpg-...", s.Name)
		}
		if seen[s.Name] {
			t.Errorf("scenario %s is listed twice", s.Name)
		}
		seen[s.Name] = true
		if _, ok := ScenarioNamed(s.Name); !ok {
			t.Errorf("ScenarioNamed(%q) finds nothing", s.Name)
		}
	}
	if got, want := len(AllScenarios()), len(seen); got != want {
		t.Errorf("AllScenarios() lists %d scenarios, want %d", got, want)
	}
}

func TestValidateHierarchies(t *testing.T) {
	base := func() Scenario {
		return Scenario{
			Name: "s", Placement: PlaceBound,
			Nodes:              []Node{{Name: "n", CPU: "1", Memory: "1Gi"}},
			CompositePodGroups: []CompositePodGroup{{Name: "root", MinGroupCount: 1}, {Name: "mid", Parent: "root"}},
			PodGroups:          []PodGroup{{Name: "pg", MinCount: 1, Parent: "mid"}},
			Pods:               []Pod{{Name: "p", CPU: "1", Memory: "1Gi", Group: "pg"}},
			Steps:              []Step{Create("n", "p", "pg", "mid", "root"), Observe("final")},
		}
	}
	tests := []struct {
		name   string
		change func(*Scenario)
		// want is "" when the change is valid, else part of the error.
		want string
	}{
		{"as is", func(*Scenario) {}, ""},
		{"parent never created", func(s *Scenario) { s.Steps[0] = Create("n", "p", "pg", "mid") }, ""},
		{"parent created later", func(s *Scenario) {
			s.Steps = []Step{Create("n", "p", "pg"), Observe("no-parent"), Create("mid", "root"), Observe("final")}
		}, ""},
		{"cycle", func(s *Scenario) { s.CompositePodGroups[0].Parent = "mid" }, ""},
		{"own parent", func(s *Scenario) { s.CompositePodGroups[0].Parent = "root" }, ""},
		{"delete a CompositePodGroup", func(s *Scenario) { s.Steps = append(s.Steps, Delete("mid"), Observe("deleted")) }, ""},
		{"PodGroup parent unknown", func(s *Scenario) { s.PodGroups[0].Parent = "nosuch" }, `PodGroup "pg" has parent "nosuch", which is no CompositePodGroup`},
		{"PodGroup parent a PodGroup", func(s *Scenario) {
			s.PodGroups = append(s.PodGroups, PodGroup{Name: "other", Parent: "pg"})
		}, `PodGroup "other" has parent "pg"`},
		{"CompositePodGroup parent unknown", func(s *Scenario) { s.CompositePodGroups[1].Parent = "nosuch" }, `CompositePodGroup "mid" has parent "nosuch"`},
		{"CompositePodGroup parent a pod", func(s *Scenario) { s.CompositePodGroups[1].Parent = "p" }, `CompositePodGroup "mid" has parent "p"`},
		{"negative minGroupCount", func(s *Scenario) { s.CompositePodGroups[0].MinGroupCount = -1 }, "minGroupCount -1"},
		{"name shared with a PodGroup", func(s *Scenario) { s.CompositePodGroups[1].Name = "pg" }, "used twice"},
		{"delete before create", func(s *Scenario) { s.Steps = append([]Step{Delete("root")}, s.Steps...) }, "deletes"},
		{"minCount of a CompositePodGroup", func(s *Scenario) {
			s.Steps = append(s.Steps, SetMinCount("root", 2), Observe("changed"))
		}, "no PodGroup created before"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := base()
			tt.change(&s)
			err := s.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Validate() = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestComposite(t *testing.T) {
	tests := []struct {
		name string
		s    Scenario
		want bool
	}{
		{"plain PodGroups", Scenario{PodGroups: []PodGroup{{Name: "pg"}}}, false},
		{"a CompositePodGroup", Scenario{CompositePodGroups: []CompositePodGroup{{Name: "c"}}}, true},
		{"a PodGroup with a parent only", Scenario{PodGroups: []PodGroup{{Name: "pg", Parent: "c"}}}, true},
	}
	for _, tt := range tests {
		if got := tt.s.Composite(); got != tt.want {
			t.Errorf("%s: Composite() = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestCompositeObjects(t *testing.T) {
	tests := []struct {
		name  string
		g     CompositePodGroup
		check func(t *testing.T, g CompositePodGroup)
	}{{
		name: "basic root",
		g:    CompositePodGroup{Name: "root"},
		check: func(t *testing.T, g CompositePodGroup) {
			o := g.Object("ns")
			if o.Namespace != "ns" || o.Name != "root" || o.Spec.SchedulingPolicy.Basic == nil || o.Spec.SchedulingPolicy.Gang != nil ||
				o.Spec.ParentCompositePodGroupName != nil || o.Spec.SchedulingConstraints != nil || o.Spec.DisruptionMode != nil ||
				o.Spec.PriorityClassName != "" {
				t.Errorf("CompositePodGroup = %+v", o)
			}
			if r := o.Spec.WorkloadRef; r == nil || r.WorkloadName != WorkloadName || r.TemplateName != "root" {
				t.Errorf("workloadRef = %+v, want %s/root", r, WorkloadName)
			}
		},
	}, {
		name: "gang child with everything",
		g:    CompositePodGroup{Name: "c", Parent: "root", MinGroupCount: 2, TopologyKey: ZoneKey, PriorityClassName: "high", DisruptionAll: true},
		check: func(t *testing.T, g CompositePodGroup) {
			o := g.Object("ns")
			if o.Spec.SchedulingPolicy.Gang == nil || o.Spec.SchedulingPolicy.Gang.MinGroupCount != 2 || o.Spec.SchedulingPolicy.Basic != nil {
				t.Errorf("schedulingPolicy = %+v", o.Spec.SchedulingPolicy)
			}
			if p := o.Spec.ParentCompositePodGroupName; p == nil || *p != "root" {
				t.Errorf("parent = %v, want root", p)
			}
			if c := o.Spec.SchedulingConstraints; c == nil || len(c.Topology) != 1 || c.Topology[0].Key != ZoneKey {
				t.Errorf("schedulingConstraints = %+v", c)
			}
			if d := o.Spec.DisruptionMode; d == nil || d.All == nil || d.Single != nil {
				t.Errorf("disruptionMode = %+v", d)
			}
			if o.Spec.PriorityClassName != "high" {
				t.Errorf("priorityClassName = %q", o.Spec.PriorityClassName)
			}
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.check(t, tt.g) })
	}
	child := PodGroup{Name: "pg", MinCount: 2, Parent: "root"}.Object("ns")
	if p := child.Spec.ParentCompositePodGroupName; p == nil || *p != "root" {
		t.Errorf("parent of a child PodGroup = %v, want root", p)
	}
	if r := child.Spec.WorkloadRef; r == nil || r.WorkloadName != WorkloadName || r.TemplateName != "pg" {
		t.Errorf("workloadRef of a child PodGroup = %+v", r)
	}
	if plain := (PodGroup{Name: "pg"}).Object("ns"); plain.Spec.ParentCompositePodGroupName != nil || plain.Spec.WorkloadRef != nil {
		t.Errorf("a PodGroup without a parent has parent %v and workloadRef %+v", plain.Spec.ParentCompositePodGroupName, plain.Spec.WorkloadRef)
	}
}
