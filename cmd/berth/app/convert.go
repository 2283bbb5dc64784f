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
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/berth-io/berth/internal/convert"
)

// runConvert implements `berth convert -f file [-o out]`: it reads a
// KubeSchedulerConfiguration and writes one SchedulingProfile per profile,
// a DeschedulerPolicy and writes one RebalancePolicy per profile, or
// Berth's PodGroups and writes them as Kubernetes' own (or as Berth's
// without their deprecated fields).
func (c *Command) runConvert(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("convert", flag.ContinueOnError)
	fs.SetOutput(stderr)
	in := fs.String("f", "", "the KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1), DeschedulerPolicy (descheduler/v1alpha2) or scheduling.berth.io PodGroups to read; - reads stdin")
	podGroupsTo := fs.String("podgroups-to", string(convert.ToNative), "what Berth's PodGroups become: native (scheduling.k8s.io/v1beta1 PodGroups) or berth (Berth's, without the deprecated minMember and scheduleTimeoutSeconds)")
	out := fs.String("o", "", "where to write the SchedulingProfiles or RebalancePolicies; default stdout")
	interval := fs.Duration("interval", convert.DefaultRebalanceInterval, "how often each converted RebalancePolicy runs (a DeschedulerPolicy has no schedule of its own)")
	names := schedulerNames{}
	fs.Var(names, "scheduler-name", "the schedulerName a converted profile serves, as UPSTREAM=NAME (repeatable), or NAME for a configuration's only profile; "+
		"profiles not named serve "+convert.SchedulerNamePrefix+"<upstream name>, so as not to take over kube-scheduler's names")
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: berth convert -f <file|-> [-o <file>] [--scheduler-name [UPSTREAM=]NAME]... [--interval 5m] [--podgroups-to native|berth]\n\n"+
			"Writes one SchedulingProfile per profile of a KubeSchedulerConfiguration,\n"+
			"one RebalancePolicy (dry run) per profile of a DeschedulerPolicy,\n"+
			"or Berth's PodGroups as Kubernetes' own scheduling.k8s.io/v1beta1 PodGroups.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *in == "" || fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	data, err := readInput(*in, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "berth convert: %v\n", err)
		return 1
	}
	var buf bytes.Buffer
	if code := c.convertInto(ctx, &buf, data, *in, *interval, names, convert.PodGroupTarget(*podGroupsTo), stderr); code != 0 {
		return code
	}
	if *out == "" {
		_, err = stdout.Write(buf.Bytes())
	} else {
		err = os.WriteFile(*out, buf.Bytes(), 0o644)
	}
	if err != nil {
		fmt.Fprintf(stderr, "berth convert: writing the profiles: %v\n", err)
		return 1
	}
	return 0
}

// convertInto converts a KubeSchedulerConfiguration or a DeschedulerPolicy,
// whichever data is, into buf, printing warnings and errors to stderr.
func (c *Command) convertInto(ctx context.Context, buf *bytes.Buffer, data []byte, in string, interval time.Duration, names schedulerNames, podGroupsTo convert.PodGroupTarget, stderr io.Writer) int {
	conv := convert.New(c.registries, convert.WithSchedulerNames(names))
	var warnings []string
	if podGroupsTo != convert.ToNative && podGroupsTo != convert.ToBerth {
		fmt.Fprintf(stderr, "berth convert: --podgroups-to must be %s or %s, got %q\n", convert.ToNative, convert.ToBerth, podGroupsTo)
		return 2
	}
	if convert.IsBerthPodGroups(data) {
		res, err := convert.ConvertPodGroups(data, podGroupsTo)
		if err != nil {
			fmt.Fprintf(stderr, "berth convert: %s: %v\n", inputName(in), err)
			return 1
		}
		if err := convert.WritePodGroups(buf, res.Objects); err != nil {
			fmt.Fprintf(stderr, "berth convert: %v\n", err)
			return 1
		}
		for _, w := range res.Warnings {
			fmt.Fprintf(stderr, "berth convert: warning: %s\n", w)
		}
		return 0
	}
	if convert.IsDeschedulerPolicy(data) {
		if interval < time.Minute {
			fmt.Fprintf(stderr, "berth convert: --interval must be at least 1m, as a RebalancePolicy's, got %v\n", interval)
			return 2
		}
		res, err := conv.ConvertDeschedulerPolicy(data, interval)
		if err != nil {
			fmt.Fprintf(stderr, "berth convert: %s has no RebalancePolicy equivalent:\n%v\n", inputName(in), err)
			return 1
		}
		warnings = res.Warnings
		if err := convert.WritePolicies(buf, res.Policies); err != nil {
			fmt.Fprintf(stderr, "berth convert: %v\n", err)
			return 1
		}
	} else {
		res, err := conv.Convert(ctx, data)
		if nameErr := (*convert.SchedulerNameError)(nil); errors.As(err, &nameErr) {
			fmt.Fprintf(stderr, "berth convert: %v\n", err)
			return 2
		}
		if err != nil {
			fmt.Fprintf(stderr, "berth convert: %s has no SchedulingProfile equivalent:\n%v\n", inputName(in), err)
			return 1
		}
		warnings = res.Warnings
		if err := convert.Write(buf, res.Profiles); err != nil {
			fmt.Fprintf(stderr, "berth convert: %v\n", err)
			return 1
		}
	}
	for _, w := range warnings {
		fmt.Fprintf(stderr, "berth convert: warning: %s\n", w)
	}
	return 0
}

func readInput(path string, stdin io.Reader) ([]byte, error) {
	if path == "-" {
		data, err := io.ReadAll(stdin)
		if err != nil {
			return nil, fmt.Errorf("reading stdin: %w", err)
		}
		return data, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the configuration: %w", err)
	}
	return data, nil
}

func inputName(path string) string {
	if path == "-" {
		return "the configuration on stdin"
	}
	return path
}

// schedulerNames is the repeatable --scheduler-name flag: upstream
// schedulerName to the name the converted profile serves, "" for the only
// profile.
type schedulerNames map[string]string

func (n schedulerNames) String() string {
	var parts []string
	for from, to := range n {
		parts = append(parts, from+"="+to)
	}
	slices.Sort(parts)
	return strings.Join(parts, ",")
}

// Set reads UPSTREAM=NAME, or NAME for the only profile.
func (n schedulerNames) Set(v string) error {
	from, to, mapped := strings.Cut(v, "=")
	if !mapped {
		from, to = "", v
	}
	if to == "" || mapped && from == "" {
		return fmt.Errorf("want UPSTREAM=NAME or NAME, got %q", v)
	}
	if _, dup := n[from]; dup {
		return fmt.Errorf("%q is named twice", from)
	}
	n[from] = to
	return nil
}
