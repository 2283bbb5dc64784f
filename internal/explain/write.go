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
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"sigs.k8s.io/yaml"
)

// Write writes the report in format: "table", "json" or "yaml".
func (r *Report) Write(w io.Writer, format string) error {
	switch format {
	case "table", "":
		return r.WriteTable(w)
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			return fmt.Errorf("encoding JSON: %w", err)
		}
		return nil
	case "yaml":
		out, err := yaml.Marshal(r)
		if err != nil {
			return fmt.Errorf("encoding YAML: %w", err)
		}
		_, err = w.Write(out)
		return err
	default:
		return fmt.Errorf("unknown output format %q: want table, json or yaml", format)
	}
}

// WriteTable writes the report for a reader: the pod, then per profile a
// table of nodes (cells are normalized score × weight), then the diff.
func (r *Report) WriteTable(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Pod %s (schedulerName %s)", r.Pod, r.SchedulerName)
	switch {
	case r.BoundTo != "":
		fmt.Fprintf(&b, " is bound to %s; evaluated as if pending, taken off %s.\n", r.BoundTo, r.BoundTo)
	default:
		b.WriteString(" is pending.\n")
	}
	writeRecorded(&b, r)
	if len(r.SchedulingGates) > 0 {
		fmt.Fprintf(&b, "It has scheduling gates (%s): the scheduler tries it only once they are removed.\n", strings.Join(r.SchedulingGates, ", "))
	}
	if r.NominatedNode != "" {
		fmt.Fprintf(&b, "It is nominated to %s, which the scheduler tries first.\n", r.NominatedNode)
	}
	if r.Group != nil {
		writeGroup(&b, r.Group)
	}
	for _, res := range r.Results {
		b.WriteString("\n")
		writeResult(&b, r, res)
	}
	if d := r.Diff; d != nil {
		b.WriteString("\n")
		writeDiff(&b, d)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeResult(b *strings.Builder, r *Report, res *Result) {
	fmt.Fprintf(b, "Profile %s", res.Profile)
	serves := "serves " + res.ServesSchedulerName
	if res.ShadowOf != "" {
		serves = "shadow of " + res.ShadowOf
	}
	if res.Source == SourceCluster {
		fmt.Fprintf(b, " (generation %d, %s)", res.Generation, serves)
	} else {
		fmt.Fprintf(b, " (candidate from %s, %s)", res.Source, serves)
	}
	fmt.Fprintf(b, ": %d of %d nodes feasible.\n", res.NumFeasible, res.NumNodes)
	if res.Note != "" {
		fmt.Fprintf(b, "Note: %s.\n", res.Note)
	}
	switch {
	case len(res.Chosen) == 0:
		fmt.Fprintf(b, "Unschedulable: %s\n", res.Unschedulable)
	case len(res.Chosen) == 1 && res.Chosen[0] == r.NominatedNode:
		fmt.Fprintf(b, "Would pick: %s, the nominated node, which passes Filter (no scoring).\n", res.Chosen[0])
	case res.NumFeasible == 1:
		fmt.Fprintf(b, "Would pick: %s, the only feasible node (the scheduler does not score a single node; the scores are for reference).\n", res.Chosen[0])
	case len(res.Chosen) == 1:
		fmt.Fprintf(b, "Would pick: %s.\n", res.Chosen[0])
	default:
		fmt.Fprintf(b, "Would pick one of %d nodes tied at the best total (%s): %s.\n", len(res.Chosen), strings.Join(res.Chosen, ", "), r.TieBreak)
	}
	if r.BoundTo != "" && len(res.Chosen) > 0 {
		switch {
		case contains(res.Chosen, r.BoundTo):
			fmt.Fprintf(b, "The pod is on %s, which this profile would pick.\n", r.BoundTo)
		case res.Source == SourceCluster:
			fmt.Fprintf(b, "The pod is on %s, which this profile would not pick now (the cluster may have changed since it was placed).\n", r.BoundTo)
		default:
			fmt.Fprintf(b, "The pod is on %s, which this profile would not pick.\n", r.BoundTo)
		}
	}

	writeUsageErrors(b, res.Usage)

	plugins := scoreColumns(res)
	withUsage := len(res.Usage) > 0
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	header := append([]string{"NODE", "RESULT", "TOTAL"}, plugins...)
	if withUsage {
		header = append(header, "USAGE")
	}
	header = append(header, "REJECTED BY")
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, n := range res.Nodes {
		row := []string{n.Node}
		switch {
		case !n.Feasible:
			row = append(row, "rejected", "")
		case n.Chosen:
			row = append(row, "chosen", fmt.Sprint(n.Total))
		default:
			row = append(row, "feasible", fmt.Sprint(n.Total))
		}
		for _, p := range plugins {
			row = append(row, cell(n, p))
		}
		if withUsage {
			row = append(row, usageCell(n.Usage, len(res.Usage) > 1))
		}
		if !n.Feasible {
			row = append(row, rejection(n))
		}
		fmt.Fprintln(tw, strings.TrimRight(strings.Join(row, "\t"), "\t"))
	}
	_ = tw.Flush()
	if res.OmittedNodes > 0 {
		fmt.Fprintf(b, "(%d more nodes not shown)\n", res.OmittedNodes)
	}
	if len(plugins) > 0 {
		b.WriteString("Score cells are normalized score × weight; TOTAL is the sum of their products.\n")
	}
	if withUsage {
		b.WriteString("USAGE is the CPU and memory in use, in percent of allocatable, and the sample's age; " +
			"+N% is what the load-aware plugins add for pods the sample does not show yet, est. N% what they take as the use of a node without a fresh sample.\n")
	}
	if len(res.SkippedScore) > 0 {
		fmt.Fprintf(b, "Score plugins with nothing to score for this pod (skipped at PreScore): %s.\n", strings.Join(res.SkippedScore, ", "))
	}
}

// scoreColumns lists the plugins that scored some node, in the order they ran.
func scoreColumns(res *Result) []string {
	var out []string
	for _, n := range res.Nodes {
		for _, s := range n.Scores {
			if !contains(out, s.Plugin) {
				out = append(out, s.Plugin)
			}
		}
	}
	return out
}

// cell renders one plugin's score of one node.
func cell(n NodeResult, plugin string) string {
	for _, s := range n.Scores {
		if s.Plugin != plugin {
			continue
		}
		if s.Weight == 0 {
			return fmt.Sprint(s.Weighted)
		}
		return fmt.Sprintf("%d×%d", s.Score, s.Weight)
	}
	return ""
}

// rejection renders why a node was rejected.
func rejection(n NodeResult) string {
	if n.Plugin == "" {
		return n.Reason
	}
	return n.Plugin + ": " + n.Reason
}

func writeDiff(b *strings.Builder, d *Diff) {
	fmt.Fprintf(b, "Diff %s → %s: %s.\n", d.From, d.To, d.Summary)
	for _, f := range d.Filter {
		fmt.Fprintf(b, "  Filter: %s\n", f)
	}
	if len(d.Plugins) == 0 {
		return
	}
	fmt.Fprintf(b, "Plugins that move the choice from %s to %s (margin = %s's weighted score − %s's):\n", d.FromNode, d.ToNode, d.ToNode, d.FromNode)
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PLUGIN\tMARGIN BEFORE\tMARGIN AFTER\tSWING")
	for _, p := range d.Plugins {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%+d\n", p.Plugin, p.FromMargin, p.ToMargin, p.Swing)
	}
	_ = tw.Flush()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
