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
	"math/rand/v2"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
)

// Constraint kinds a generated group's members put on each other, or on
// the nodes they take.
const (
	MembersFree         = "free"
	MembersAntiAffinity = "anti-affinity"
	MembersAffinity     = "affinity"
	MembersHardSpread   = "hard-spread"
	MembersSoftSpread   = "soft-spread"
	MembersPreferApart  = "prefer-apart"
	MembersNodeSelector = "node-selector"
	MembersTolerate     = "tolerate"
	MembersHostPort     = "host-port"
)

// What Generate draws within.
const (
	generatedPriorityLow    = "low"
	generatedPriorityHigh   = "high"
	generatedTaintKey       = "dedicated"
	generatedHostPort       = 8080
	generatedMaxNodes       = 8
	generatedMaxMembers     = 5
	generatedMaxGroups      = 2
	generatedMaxPlainPods   = 3
	generatedFillerFraction = 0.4
)

// CISeeds are the seeds whose scenarios make test plays against
// kube-scheduler's recorded outcomes (GeneratedScenarios).
var CISeeds = []uint64{9, 13, 17, 27, 32}

// CIHierarchySeeds are the seeds whose hierarchy scenarios make test plays
// against kube-scheduler's recorded outcomes (GeneratedHierarchies).
var CIHierarchySeeds = []uint64{8, 12}

// GeneratedHierarchies returns the hierarchy scenarios of CIHierarchySeeds.
func GeneratedHierarchies() []Scenario {
	out := make([]Scenario, len(CIHierarchySeeds))
	for i, seed := range CIHierarchySeeds {
		out[i] = GenerateHierarchy(seed)
	}
	return out
}

// GeneratedScenarios returns the scenarios of CISeeds.
func GeneratedScenarios() []Scenario {
	out := make([]Scenario, len(CISeeds))
	for i, seed := range CISeeds {
		out[i] = Generate(seed)
	}
	return out
}

// memberConstraints are the kinds Generate draws from, in a fixed order.
var memberConstraints = []string{
	MembersFree, MembersAntiAffinity, MembersAffinity, MembersHardSpread, MembersSoftSpread,
	MembersPreferApart, MembersNodeSelector, MembersTolerate, MembersHostPort,
}

// Generate returns the scenario of seed, the same for the same seed: a
// cluster of 2 to 8 nodes in racks and zones (some with room, or all of
// it, taken by low-priority pods bound at creation, one perhaps tainted), then, in
// one step, 1 or 2 PodGroups (gang or basic, perhaps constrained to a
// rack, perhaps of a priority that preempts) whose members put one kind
// of constraint on each other or on their nodes (memberConstraints), and
// a few plain pods. Placements are compared by whether each pod is bound
// (PlaceBound): where pods go among equal nodes is upstream's random
// choice, and the invariants (Invariants) judge where they went.
func Generate(seed uint64) Scenario {
	g := generator{rng: rand.New(rand.NewPCG(seed, 0x6265727468))}
	return g.scenario(seed)
}

type generator struct {
	rng *rand.Rand
	s   Scenario
	// racks are the rack label values in use.
	racks []string
	// tainted is the tainted node's name, if any.
	tainted string
}

// cluster starts the scenario named name: its priority classes, then its
// nodes and the low-priority pods bound to them, whose names it returns,
// in the order they are created.
func (g *generator) cluster(name, description string) []string {
	g.s = Scenario{
		Name:        name,
		Description: description,
		Placement:   PlaceBound,
		PriorityClasses: []PriorityClass{
			{Name: generatedPriorityLow, Value: 10},
			{Name: generatedPriorityHigh, Value: 1000},
		},
	}
	setup := []string{generatedPriorityLow, generatedPriorityHigh}
	setup = append(setup, g.nodes()...)
	return append(setup, g.fillers()...)
}

func (g *generator) scenario(seed uint64) Scenario {
	setup := g.cluster(fmt.Sprintf("generated-%d", seed), fmt.Sprintf("generated from seed %d", seed))
	var workload []string
	for i := range 1 + g.rng.IntN(generatedMaxGroups) {
		workload = append(workload, g.group(fmt.Sprintf("g%d", i+1))...)
	}
	workload = append(workload, g.plainPods()...)
	g.s.Steps = []Step{Create(setup...), Create(workload...), Observe("final")}
	return g.s
}

// plainPods adds up to generatedMaxPlainPods pods of no group, each with
// a constraint of its own, and returns their names.
func (g *generator) plainPods() []string {
	var out []string
	for i := range g.rng.IntN(generatedMaxPlainPods + 1) {
		name := fmt.Sprintf("plain-%d", i+1)
		p := Pod{Name: name, CPU: "1", Memory: "128Mi", Labels: map[string]string{"app": "plain"}}
		g.constrain(&p, g.pick(memberConstraints), "plain")
		g.s.Pods = append(g.s.Pods, p)
		out = append(out, name)
	}
	return out
}

// nodes adds the cluster's nodes and returns their names.
func (g *generator) nodes() []string {
	n := 2 + g.rng.IntN(generatedMaxNodes-1)
	racks := 1 + g.rng.IntN(min(3, n))
	for r := range racks {
		g.racks = append(g.racks, "rack-"+string(rune('a'+r)))
	}
	taint := g.rng.IntN(4) == 0
	var names []string
	for i := range n {
		rack := g.racks[i%racks]
		zone := "zone-1"
		if i%racks >= 2 {
			zone = "zone-2"
		}
		node := Node{
			Name:   fmt.Sprintf("node-%d", i+1),
			Labels: map[string]string{RackKey: rack, ZoneKey: zone},
			CPU:    strconv.Itoa(2 * (1 + g.rng.IntN(2))),
			Memory: "8Gi",
		}
		if taint && i == n-1 {
			node.Taints = []corev1.Taint{{Key: generatedTaintKey, Value: "batch", Effect: corev1.TaintEffectNoSchedule}}
			g.tainted = node.Name
		}
		g.s.Nodes = append(g.s.Nodes, node)
		names = append(names, node.Name)
	}
	return names
}

// fillers binds a low-priority pod of 1 CPU, or of all the node's, to
// some nodes at creation: room taken that preemption may free.
func (g *generator) fillers() []string {
	var names []string
	for _, n := range g.s.Nodes {
		if g.rng.Float64() >= generatedFillerFraction {
			continue
		}
		name := "filler-" + n.Name
		// Half of them fill their node, leaving preemption the only way in.
		cpu := "1"
		if g.rng.IntN(2) == 0 {
			cpu = n.CPU
		}
		p := Pod{Name: name, CPU: cpu, Memory: "128Mi", PriorityClassName: generatedPriorityLow, NodeName: n.Name, Labels: map[string]string{"app": "filler"}}
		if n.Name == g.tainted {
			p.Tolerations = g.toleration()
		}
		g.s.Pods = append(g.s.Pods, p)
		names = append(names, name)
	}
	return names
}

// group adds a PodGroup and its members, and returns their names.
func (g *generator) group(name string) []string {
	members := 2 + g.rng.IntN(generatedMaxMembers-1)
	pg := PodGroup{Name: name}
	switch g.rng.IntN(3) {
	case 0: // basic
	case 1:
		pg.MinCount = int32(members)
	default:
		pg.MinCount = int32(max(1, members-1))
	}
	if g.rng.IntN(10) < 3 {
		pg.TopologyKey = RackKey
	}
	if g.rng.IntN(10) < 3 {
		pg.PriorityClassName = generatedPriorityHigh
		pg.DisruptionAll = g.rng.IntN(2) == 0
	}
	g.s.PodGroups = append(g.s.PodGroups, pg)
	kind := g.pick(memberConstraints)
	names := []string{name}
	for i := range members {
		p := Pod{
			Name: fmt.Sprintf("%s-%d", name, i), CPU: "1", Memory: "128Mi", Group: name,
			PriorityClassName: pg.PriorityClassName, Labels: map[string]string{"app": name},
		}
		g.constrain(&p, kind, name)
		g.s.Pods = append(g.s.Pods, p)
		names = append(names, p.Name)
	}
	return names
}

// constrain gives the pod, labelled app=app, the constraint of kind.
func (g *generator) constrain(p *Pod, kind, app string) {
	label := "app=" + app
	switch kind {
	case MembersAntiAffinity:
		p.AntiAffinity = []Term{{TopologyKey: corev1.LabelHostname, Label: label}}
	case MembersAffinity:
		p.Affinity = []Term{{TopologyKey: RackKey, Label: label}}
	case MembersHardSpread:
		p.Spread = []Spread{{MaxSkew: 1, TopologyKey: corev1.LabelHostname, Label: label, Hard: true}}
	case MembersSoftSpread:
		p.Spread = []Spread{{MaxSkew: 1, TopologyKey: RackKey, Label: label}}
	case MembersPreferApart:
		p.PreferAntiAffinity = []Term{{TopologyKey: corev1.LabelHostname, Label: label}}
	case MembersNodeSelector:
		p.NodeSelector = map[string]string{RackKey: g.racks[len(g.racks)-1]}
	case MembersTolerate:
		p.Tolerations = g.toleration()
	case MembersHostPort:
		p.HostPort = generatedHostPort
	}
}

// toleration tolerates the generated taint.
func (g *generator) toleration() []corev1.Toleration {
	return []corev1.Toleration{{Key: generatedTaintKey, Operator: corev1.TolerationOpEqual, Value: "batch", Effect: corev1.TaintEffectNoSchedule}}
}

func (g *generator) pick(from []string) string { return from[g.rng.IntN(len(from))] }

// GenerateHierarchy returns the hierarchy scenario of seed, the same for
// the same seed: a cluster drawn as Generate draws it, then, in one step,
// a CompositePodGroup root (gang or basic, perhaps constrained to a rack,
// perhaps of a priority that preempts), perhaps a CompositePodGroup below
// it, 2 or 3 PodGroups under them whose members put one kind of
// constraint on each other or on their nodes, and a few plain pods; the
// pods are created before the groups, the root last. It
// plays only through Kubernetes' PodGroups, on an apiserver serving
// CompositePodGroups. Its draws are its own: Generate's scenarios do not
// change with it.
func GenerateHierarchy(seed uint64) Scenario {
	g := generator{rng: rand.New(rand.NewPCG(seed, 0x637067))}
	return g.hierarchy(seed)
}

func (g *generator) hierarchy(seed uint64) Scenario {
	setup := g.cluster(fmt.Sprintf("generated-hierarchy-%d", seed), fmt.Sprintf("hierarchy generated from seed %d", seed))

	groups := 2 + g.rng.IntN(2)
	root := CompositePodGroup{Name: "root"}
	if g.rng.IntN(10) < 3 {
		root.PriorityClassName = generatedPriorityHigh
		root.DisruptionAll = g.rng.IntN(2) == 0
	}
	parentOf := make([]string, groups)
	composites := []CompositePodGroup{root}
	if g.rng.IntN(10) < 3 {
		// The last two PodGroups go under a CompositePodGroup of their own.
		mid := CompositePodGroup{Name: "mid", Parent: root.Name, PriorityClassName: root.PriorityClassName}
		g.composite(&mid, 2)
		composites = append(composites, mid)
		for i := range groups {
			parentOf[i] = root.Name
			if i >= groups-2 {
				parentOf[i] = mid.Name
			}
		}
		g.composite(&composites[0], groups-1)
	} else {
		for i := range groups {
			parentOf[i] = root.Name
		}
		g.composite(&composites[0], groups)
	}
	g.s.CompositePodGroups = composites
	var groupNames, members []string
	for i := range groups {
		created := g.member(fmt.Sprintf("g%d", i+1), parentOf[i], root.PriorityClassName)
		groupNames, members = append(groupNames, created[0]), append(members, created[1:]...)
	}
	members = append(members, g.plainPods()...)
	// The pods come first and the hierarchy after them, root last, so that
	// its first cycle has every member on either scheduler: which members
	// a faster scheduler's first cycle catches is timing, not semantics.
	composite := names(composites)
	slices.Reverse(composite)
	g.s.Steps = []Step{Create(setup...), Create(members...), Create(append(groupNames, composite...)...), Observe("final")}
	return g.s
}

// composite draws a CompositePodGroup's policy over its children children:
// basic, a gang of all of them, or a gang of all but one; and perhaps a
// rack to keep its subtree in.
func (g *generator) composite(c *CompositePodGroup, children int) {
	switch g.rng.IntN(3) {
	case 0: // basic
	case 1:
		c.MinGroupCount = int32(children)
	default:
		c.MinGroupCount = int32(max(1, children-1))
	}
	if g.rng.IntN(10) < 3 {
		c.TopologyKey = RackKey
	}
}

// member adds a PodGroup under parent whose members have the priority
// class of its hierarchy, and returns the names of the group and its
// members.
func (g *generator) member(name, parent, priorityClass string) []string {
	out := g.group(name)
	pg := &g.s.PodGroups[len(g.s.PodGroups)-1]
	pg.Parent = parent
	pg.PriorityClassName, pg.DisruptionAll = priorityClass, false
	for i := range g.s.Pods {
		if g.s.Pods[i].Group == name {
			g.s.Pods[i].PriorityClassName = priorityClass
		}
	}
	return out
}
