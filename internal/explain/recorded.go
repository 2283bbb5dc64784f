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

	v1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/controllers"
)

// Recorded is the live decision that placed a bound pod, as a profile
// that records its decisions (spec.recordDecisions) wrote it to its status.
type Recorded struct {
	// Profile names the SchedulingProfile that placed the pod.
	Profile string `json:"profile"`
	v1alpha1.SchedulingDecision
}

// recordedDecision finds the decision that placed a bound pod among the
// profiles' status.recentDecisions; when there is none, it says why.
func recordedDecision(pod *v1.Pod, profiles []v1alpha1.SchedulingProfile) (*Recorded, string) {
	if pod.Spec.NodeName == "" {
		return nil, ""
	}
	for i := range profiles {
		for _, d := range profiles[i].Status.RecentDecisions {
			if d.PodUID == pod.UID {
				return &Recorded{Profile: profiles[i].Name, SchedulingDecision: d}, ""
			}
		}
	}
	serving := controllers.ServingProfile(pod.Spec.SchedulerName, profiles)
	switch {
	case serving == nil:
		return nil, fmt.Sprintf("no SchedulingProfile serves schedulerName %s now, and none recorded this pod's placement", pod.Spec.SchedulerName)
	case ptr.Deref(serving.Spec.RecordDecisions, 0) == 0:
		return nil, fmt.Sprintf("SchedulingProfile %s records no decisions; set spec.recordDecisions to keep its last placements", serving.Name)
	default:
		return nil, fmt.Sprintf("the placement is not among the last %d that SchedulingProfile %s recorded (status.recentDecisions): it is older, or another scheduler bound the pod",
			*serving.Spec.RecordDecisions, serving.Name)
	}
}

// writeRecorded writes the recorded decision of a bound pod, or why there is none.
func writeRecorded(b *strings.Builder, r *Report) {
	d := r.Recorded
	if d == nil {
		if r.RecordedNote != "" {
			fmt.Fprintf(b, "No recorded decision: %s.\n", r.RecordedNote)
		}
		return
	}
	fmt.Fprintf(b, "Recorded: SchedulingProfile %s, generation %d, bound it to %s at %s; %d of %d nodes searched were feasible.\n",
		d.Profile, d.Generation, d.Node, d.Time.UTC().Format("2006-01-02T15:04:05Z"), d.FeasibleNodes, d.EvaluatedNodes)
	if d.PodGroup != nil {
		writeRecordedGroup(b, d.PodGroup)
	}
	if len(d.Nodes) == 0 {
		b.WriteString("It was the only feasible node: nothing was scored.\n")
		return
	}
	var plugins []string
	for _, n := range d.Nodes {
		for _, s := range n.Scores {
			if !contains(plugins, s.Plugin) {
				plugins = append(plugins, s.Plugin)
			}
		}
	}
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(append([]string{"NODE", "RESULT", "TOTAL"}, plugins...), "\t"))
	for i, n := range d.Nodes {
		result := "runner-up"
		switch {
		case i == 0:
			result = "chosen"
		case n.Total == d.Nodes[0].Total:
			// The scheduler picked among the tied nodes at random.
			result = "tied"
		}
		row := []string{n.Node, result, fmt.Sprint(n.Total)}
		for _, p := range plugins {
			row = append(row, recordedCell(n, p))
		}
		fmt.Fprintln(tw, strings.TrimRight(strings.Join(row, "\t"), "\t"))
	}
	_ = tw.Flush()
	b.WriteString("Recorded cells are weighted scores (normalized score × weight), as the scheduler summed them.\n")
}

func recordedCell(n v1alpha1.DecisionNode, plugin string) string {
	for _, s := range n.Scores {
		if s.Plugin == plugin {
			return fmt.Sprint(s.Score)
		}
	}
	return ""
}

// writeRecordedGroup writes how the PodGroup cycle that bound a member
// chose its placement: the placements tried and feasible, and their ranking.
func writeRecordedGroup(b *strings.Builder, g *v1alpha1.DecisionPodGroup) {
	where := "on any nodes (no topology constraint)"
	if g.TopologyKey != "" {
		where = fmt.Sprintf("in %s=%s", g.TopologyKey, g.Placement)
	}
	fmt.Fprintf(b, "Its PodGroup %s was placed as a group %s: the whole group fitted in %d of the %d placements tried.\n",
		g.Name, where, g.PlacementsFeasible, g.PlacementsTried)
	if len(g.Placements) == 0 {
		return
	}
	var plugins []string
	for _, p := range g.Placements {
		for _, s := range p.Scores {
			if !contains(plugins, s.Plugin) {
				plugins = append(plugins, s.Plugin)
			}
		}
	}
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(append([]string{"PLACEMENT", "RESULT", "TOTAL"}, plugins...), "\t"))
	for i, p := range g.Placements {
		result := "runner-up"
		switch {
		case i == 0:
			result = "chosen"
		case p.Total == g.Placements[0].Total:
			// The cycle picked among the tied placements at random.
			result = "tied"
		}
		name := p.Placement
		if name == "" {
			name = "(all nodes)"
		}
		row := []string{name, result, fmt.Sprint(p.Total)}
		for _, pl := range plugins {
			cell := ""
			for _, s := range p.Scores {
				if s.Plugin == pl {
					cell = fmt.Sprint(s.Score)
				}
			}
			row = append(row, cell)
		}
		fmt.Fprintln(tw, strings.TrimRight(strings.Join(row, "\t"), "\t"))
	}
	_ = tw.Flush()
}
