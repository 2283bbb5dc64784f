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

package explain

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/berth-io/berth/scheduler"
)

// GroupReport explains the scheduling.k8s.io PodGroup the pod belongs to:
// its members and, placement by placement, why the group fits or not.
type GroupReport struct {
	// Group is the PodGroup's namespace/name.
	Group string `json:"group"`
	// Profile names the SchedulingProfile whose cycle was run.
	Profile string `json:"profile"`
	// Policy is "gang" or "basic"; empty when the PodGroup is unknown.
	Policy string `json:"policy"`
	// MinCount is how many members must be placed together.
	MinCount int `json:"minCount"`
	// TopologyKey is the node label the group keeps to one value of.
	TopologyKey string `json:"topologyKey,omitempty"`
	// Members counts the group's pods; Placed those bound or assumed.
	Members int `json:"members"`
	Placed  int `json:"placed"`
	// Waiting says why the members wait before any cycle, if they do.
	Waiting string `json:"waiting,omitempty"`
	// CompositeRoot names the CompositePodGroup at the root of the
	// PodGroup's hierarchy, if it has one: its cycle places the whole
	// hierarchy, while this report tries the PodGroup alone.
	CompositeRoot string `json:"compositeRoot,omitempty"`
	// Placements are the placements the cycle tries, in its order.
	Placements []GroupPlacement `json:"placements,omitempty"`
	// Status is why the group fits nowhere; empty when it fits somewhere.
	Status string `json:"status,omitempty"`
}

// GroupPlacement is one placement's try.
type GroupPlacement struct {
	Name   string `json:"name"`
	Nodes  int    `json:"nodes"`
	Placed int    `json:"placed"`
	// Status is why the group does not fit there; empty when it does.
	Status string `json:"status,omitempty"`
}

// newGroupReport converts the scheduler's evaluation.
func newGroupReport(e *scheduler.GroupEvaluation, profile string) *GroupReport {
	g := &GroupReport{
		Group: e.Group, Profile: profile, MinCount: e.MinCount, TopologyKey: e.TopologyKey,
		Members: e.Members, Placed: e.Placed, Waiting: e.Waiting, Status: e.Status, CompositeRoot: e.Root,
	}
	switch {
	case e.Gang:
		g.Policy = "gang"
	case e.MinCount > 0:
		g.Policy = "basic"
	}
	for _, p := range e.Placements {
		g.Placements = append(g.Placements, GroupPlacement{Name: p.Name, Nodes: p.Nodes, Placed: p.Placed, Status: p.Status})
	}
	return g
}

// writeGroup writes the group's part of the table report.
func writeGroup(b *strings.Builder, g *GroupReport) {
	if g.Policy == "" {
		fmt.Fprintf(b, "It names PodGroup %s, which the scheduler does not know; its members wait before any cycle: %s.\n", g.Group, g.Waiting)
		return
	}
	fmt.Fprintf(b, "It belongs to PodGroup %s (%s", g.Group, g.Policy)
	if g.Policy == "gang" {
		fmt.Fprintf(b, ", minCount %d", g.MinCount)
	}
	if g.TopologyKey != "" {
		fmt.Fprintf(b, ", in one %s", g.TopologyKey)
	}
	fmt.Fprintf(b, "): %d pods, %d placed.\n", g.Members, g.Placed)
	if g.CompositeRoot != "" {
		fmt.Fprintf(b, "It is part of the hierarchy of CompositePodGroup %s, which is scheduled in one cycle; this explains the PodGroup alone.\n", g.CompositeRoot)
	}
	if g.Waiting != "" {
		fmt.Fprintf(b, "Its members wait before any cycle: %s.\n", g.Waiting)
		return
	}
	if len(g.Placements) == 0 {
		if g.Status != "" {
			fmt.Fprintf(b, "Its cycle tries no placement: %s.\n", g.Status)
		}
		return
	}
	fmt.Fprintf(b, "Its cycle (profile %s) tries %d placements:\n", g.Profile, len(g.Placements))
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  PLACEMENT\tNODES\tMEMBERS PLACED\tRESULT")
	for _, p := range g.Placements {
		name, result := p.Name, p.Status
		if name == "" {
			name = "all nodes"
		}
		if result == "" {
			result = "the group fits"
		}
		fmt.Fprintf(tw, "  %s\t%d\t%d\t%s\n", name, p.Nodes, p.Placed, result)
	}
	_ = tw.Flush()
	if g.Status != "" {
		fmt.Fprintf(b, "The group fits nowhere: %s.\n", g.Status)
	}
}
