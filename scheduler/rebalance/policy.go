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

package rebalance

import (
	"errors"
	"fmt"
	"time"

	"github.com/robfig/cron/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/rebalance/strategies"
	"github.com/berth-io/berth/scheduler/usage"
)

// DefaultProfileName is the SchedulingProfile whose filters decide nodeFit
// when a policy names none and the install has no default profile (Berth's
// RebalancePolicy controller hands the rebalancer the profile it resolved).
const DefaultProfileName = "default-scheduler"

// compiledPolicy is a validated policy ready to run.
type compiledPolicy struct {
	name       string
	generation int64
	spec       *v1alpha1.RebalancePolicySpec
	strategies []strategies.Strategy
	// cron is the parsed cron schedule; nil for an interval.
	cron cron.Schedule
	// providers are the usage sources of the policy's metricsProviders, by
	// source; a Prometheus source has no query: each strategy gives its own.
	providers map[v1alpha1.MetricsSource]usage.Source
}

// compile validates spec against the registry and returns every problem
// found, each an *args.SpecError; args.SpecErrors lists them.
func compile(registry strategies.Registry, name string, generation int64, spec *v1alpha1.RebalancePolicySpec) (*compiledPolicy, error) {
	c := &compiledPolicy{name: name, generation: generation, spec: spec.DeepCopy()}
	var errs []error
	switch sch := spec.Schedule; {
	case sch.Interval != nil && sch.Cron != "":
		errs = append(errs, specError("schedule", errors.New("only one of interval or cron may be set"), "schedule"))
	case sch.Interval != nil:
		if sch.Interval.Duration <= 0 {
			errs = append(errs, specError("schedule.interval", fmt.Errorf("%s must be positive", sch.Interval.Duration), "schedule", "interval"))
		}
	case sch.Cron != "":
		parsed, err := cron.ParseStandard(sch.Cron)
		if err != nil {
			errs = append(errs, specError(fmt.Sprintf("schedule.cron %q", sch.Cron), err, "schedule", "cron"))
		}
		c.cron = parsed
	default:
		errs = append(errs, specError("schedule", errors.New("one of interval or cron must be set"), "schedule"))
	}
	if len(spec.Strategies) == 0 {
		errs = append(errs, specError("strategies", errors.New("at least one strategy is required"), "strategies"))
	}
	providers, perrs := compileProviders(spec)
	c.providers = providers
	errs = append(errs, perrs...)
	seen := map[v1alpha1.StrategyName]bool{}
	for i, s := range spec.Strategies {
		if seen[s.Name] {
			errs = append(errs, strategyError(args.SpecDuplicateStrategy, i, fmt.Errorf("strategy %s appears more than once", s.Name), "name"))
			continue
		}
		seen[s.Name] = true
		if _, ok := registry[s.Name]; !ok {
			errs = append(errs, strategyError(args.SpecUnknownStrategy, i, fmt.Errorf("strategy %q is not implemented", s.Name), "name"))
			continue
		}
		built, err := registry.Build(s.Name, s.Args.Raw)
		if err != nil {
			errs = append(errs, strategyError(args.SpecInvalidArgs, i, err, "args"))
			continue
		}
		if err := checkProviderOf(i, built, providers); err != nil {
			errs = append(errs, err)
			continue
		}
		c.strategies = append(c.strategies, built)
	}
	if ev := spec.Evictor; ev != nil {
		if ev.LabelSelector != nil {
			if _, err := metav1.LabelSelectorAsSelector(ev.LabelSelector); err != nil {
				errs = append(errs, specError("evictor.labelSelector", err, "evictor", "labelSelector"))
			}
		}
		if ev.MinPodAge != nil && ev.MinPodAge.Duration < 0 {
			errs = append(errs, specError("evictor.minPodAge", fmt.Errorf("%s must not be negative", ev.MinPodAge.Duration), "evictor", "minPodAge"))
		}
		if pt := ev.PriorityThreshold; pt != nil && pt.Value != nil && pt.Name != "" {
			errs = append(errs, specError("evictor.priorityThreshold", errors.New("only one of value or name may be set"), "evictor", "priorityThreshold"))
		}
	}
	if ns := spec.Namespaces; ns != nil && len(ns.Include) > 0 && len(ns.Exclude) > 0 {
		errs = append(errs, specError("namespaces", errors.New("only one of include or exclude may be set"), "namespaces"))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return c, nil
}

// dryRun reports whether runs of the policy make no eviction call; unset means dry run.
func (c *compiledPolicy) dryRun() bool { return c.spec.DryRun == nil || *c.spec.DryRun }

// profileName is the SchedulingProfile whose filters decide nodeFit.
func (c *compiledPolicy) profileName() string {
	if c.spec.ProfileRef != nil && c.spec.ProfileRef.Name != "" {
		return c.spec.ProfileRef.Name
	}
	return DefaultProfileName
}

// nodeFit reports whether the policy asks for nodeFit.
func (c *compiledPolicy) nodeFit() bool { return c.spec.Evictor != nil && c.spec.Evictor.NodeFit }

// nextRun returns when the policy runs next: a policy that never ran runs
// at once on an interval and at the next cron time otherwise; after a run
// that ended at lastEnd, an interval later or at the cron time after it.
func (c *compiledPolicy) nextRun(lastEnd, now time.Time) time.Time {
	if c.cron != nil {
		from := lastEnd
		if from.IsZero() {
			from = now
		}
		return c.cron.Next(from.UTC())
	}
	if lastEnd.IsZero() {
		return now
	}
	return lastEnd.Add(c.spec.Schedule.Interval.Duration)
}
