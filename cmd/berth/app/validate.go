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

package app

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/berth-io/berth/internal/manifest"
	"github.com/berth-io/berth/internal/validate"
)

// pathsFlag collects the values of a flag that may repeat.
type pathsFlag []string

func (p *pathsFlag) String() string { return strings.Join(*p, ",") }

func (p *pathsFlag) Set(v string) error {
	*p = append(*p, v)
	return nil
}

// runValidate implements `berth validate -f FILE|DIR|- [-f ...] [-o text|json]`:
// it checks Berth's objects offline as the apiserver, the webhook and the
// controllers would. Exit codes: 0 valid, 1 invalid, 2 bad command line or
// unreadable path.
func (c *Command) runValidate(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var paths pathsFlag
	fs.Var(&paths, "f", "a file, a directory (its *.yaml, *.yml and *.json files, recursively) or - for stdin; may repeat")
	output := fs.String("o", "text", "output format: text (one error a line, then a summary) or json")
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: berth validate -f <file|dir|-> [-f ...] [-o text|json]\n\n"+
			"Checks SchedulingProfiles, PluginWeights, RebalancePolicies and PodGroups offline,\n"+
			"as the apiserver (CRD schema and CEL rules), Berth's webhook and its controllers\n"+
			"(conflicts between the objects given) would. Objects of other kinds are skipped.\n"+
			"Exit codes: 0 valid, 1 invalid, 2 bad command line or unreadable path.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if len(paths) == 0 || fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	if *output != "text" && *output != "json" {
		fmt.Fprintf(stderr, "berth validate: -o must be text or json, got %q\n", *output)
		return 2
	}
	set, err := manifest.NewReader(manifest.WithStdin(stdin)).Read(paths)
	if err != nil {
		fmt.Fprintf(stderr, "berth validate: %v\n", err)
		return 2
	}
	checker, err := validate.NewChecker(c.registries)
	if err != nil {
		fmt.Fprintf(stderr, "berth validate: %v\n", err)
		return 1
	}
	report := checker.Check(ctx, inputsOf(set))
	if *output == "json" {
		err = writeJSON(stdout, set, report)
	} else {
		err = writeText(stdout, set, report)
	}
	if err != nil {
		fmt.Fprintf(stderr, "berth validate: writing the report: %v\n", err)
		return 1
	}
	if report.Invalid > 0 {
		return 1
	}
	return 0
}

// inputsOf turns the documents read into the checker's inputs, one per object.
func inputsOf(set *manifest.Set) []validate.Input {
	var inputs []validate.Input
	for _, d := range set.Documents {
		origin := validate.Origin{File: d.File, Document: d.Index, Documents: d.Count, Line: d.Line}
		if d.Err != nil {
			inputs = append(inputs, validate.Input{Origin: origin, Err: d.Err})
			continue
		}
		for i, obj := range d.Objects {
			o := origin
			if d.List {
				o.Item = i + 1
			}
			inputs = append(inputs, validate.Input{Origin: o, Object: obj})
		}
	}
	return inputs
}

// writeText writes one line per finding, then a summary.
func writeText(w io.Writer, set *manifest.Set, r *validate.Report) error {
	var b strings.Builder
	for _, f := range r.Findings {
		b.WriteString(f.Origin.String())
		b.WriteString(": ")
		if f.Kind != "" {
			name := f.Name
			if f.Namespace != "" {
				name = f.Namespace + "/" + name
			}
			if name == "" {
				name = "(no name)"
			}
			fmt.Fprintf(&b, "%s %s: ", f.Kind, name)
		}
		if f.Field != "" {
			b.WriteString(f.Field)
			b.WriteString(": ")
		}
		b.WriteString(strings.Join(strings.Fields(f.Message), " "))
		b.WriteString("\n")
	}
	b.WriteString(summary(set, r))
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// summary says what was checked and found, in one line.
func summary(set *manifest.Set, r *validate.Report) string {
	s := fmt.Sprintf("%s checked in %s", plural(r.Checked, "object"), plural(len(set.Files), "file"))
	if r.Invalid == 0 {
		s += ": all valid"
	} else {
		s += fmt.Sprintf(": %d invalid, %s", r.Invalid, plural(len(r.Findings), "error"))
	}
	if r.Skipped > 0 {
		s += fmt.Sprintf("; %s of other kinds skipped", plural(r.Skipped, "object"))
	}
	return s
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// jsonReport is the -o json output.
type jsonReport struct {
	Files    int                `json:"files"`
	Checked  int                `json:"checked"`
	Invalid  int                `json:"invalid"`
	Skipped  int                `json:"skipped"`
	Findings []validate.Finding `json:"findings"`
}

func writeJSON(w io.Writer, set *manifest.Set, r *validate.Report) error {
	out := jsonReport{Files: len(set.Files), Checked: r.Checked, Invalid: r.Invalid, Skipped: r.Skipped, Findings: r.Findings}
	if out.Findings == nil {
		out.Findings = []validate.Finding{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("encoding JSON: %w", err)
	}
	return nil
}
