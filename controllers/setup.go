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

// Package controllers reconciles SchedulingProfiles and PluginWeights into
// the scheduler's live profiles, and reports what is live in their status;
// it also keeps each PodGroup's status true to its member pods.
package controllers

import (
	"context"
	"fmt"
	"time"

	"github.com/berth-io/berth/scheduler/usage"

	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler"
	"github.com/berth-io/berth/scheduler/framework/runtime"
	"github.com/berth-io/berth/scheduler/metrics"
	"github.com/berth-io/berth/scheduler/profile"
)

// +kubebuilder:rbac:groups=scheduling.berth.io,resources=schedulingprofiles;pluginweights,verbs=get;list;watch
// +kubebuilder:rbac:groups=scheduling.berth.io,resources=schedulingprofiles/status;pluginweights/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch;update
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch;update
// +kubebuilder:rbac:groups="",resources=pods/status,verbs=patch;update

// ProfileHost compiles and serves live profiles; *scheduler.Scheduler is one.
type ProfileHost interface {
	// CompileProfile builds a framework from spec without installing it.
	CompileProfile(ctx context.Context, schedulerName string, spec *v1alpha1.SchedulingProfileSpec, opts ...runtime.Option) (*runtime.Framework, error)
	// InstallProfile makes a compiled profile live for schedulerName.
	InstallProfile(ctx context.Context, schedulerName string, p *profile.Profile)
	// RemoveProfile stops serving schedulerName and parks its pending pods.
	RemoveProfile(ctx context.Context, schedulerName string)
	// CompileShadow builds a shadow profile's framework without installing it.
	CompileShadow(ctx context.Context, name string, spec *v1alpha1.SchedulingProfileSpec, opts ...runtime.Option) (*runtime.Framework, error)
	// InstallShadow starts evaluating a shadow profile beside the live one it shadows.
	InstallShadow(ctx context.Context, p *scheduler.ShadowProfile)
	// RemoveShadow stops evaluating the shadow profile of that SchedulingProfile.
	RemoveShadow(ctx context.Context, source string)
	// ShadowStats returns a shadow profile's figures.
	ShadowStats(source string) (scheduler.ShadowStats, bool)
	// ForeignBindings returns what the scheduler saw of pods of
	// schedulerName bound by another scheduler.
	ForeignBindings(schedulerName string) (scheduler.ForeignBindings, bool)
	// UsageState returns when a usage source was last read and why its
	// last read failed, nil once one succeeded after.
	UsageState(src usage.Source) (lastRead time.Time, err error)
}

var _ ProfileHost = (*scheduler.Scheduler)(nil)

// Option configures SetupWithManager.
type Option func(*options)

type options struct {
	skipNameValidation bool
	shadowInterval     time.Duration
	defaultProfile     string
	metrics            *metrics.Metrics
}

// DefaultForeignBindingQuietPeriod is how long after another scheduler last
// bound a pod of a profile's schedulerName its SchedulerConflict condition
// turns False.
const DefaultForeignBindingQuietPeriod = 10 * time.Minute

// WithDefaultProfile names the SchedulingProfile whose filters decide
// nodeFit for a RebalancePolicy without profileRef: the install's default
// profile (the manager's --default-profile). Empty keeps
// rebalance.DefaultProfileName.
func WithDefaultProfile(name string) Option {
	return func(o *options) {
		if name != "" {
			o.defaultProfile = name
		}
	}
}

// WithMetrics records the profiles' readiness, live generation and compile
// failures; nil records nothing.
func WithMetrics(m *metrics.Metrics) Option { return func(o *options) { o.metrics = m } }

// WithShadowStatusInterval sets how often shadow profiles' figures and
// profiles' recorded decisions are written to their status
// (DefaultShadowStatusInterval by default).
func WithShadowStatusInterval(d time.Duration) Option {
	return func(o *options) { o.shadowInterval = d }
}

// WithSkipNameValidation lets more than one manager in a process register
// the controllers, as tests that start Berth repeatedly do.
func WithSkipNameValidation() Option { return func(o *options) { o.skipNameValidation = true } }

// EventRecorderName is the reporting controller of the controllers' events.
const EventRecorderName = "berth-profile-controller"

// SetupWithManager registers the SchedulingProfile, PluginWeight, PodGroup
// and PodGroup protection reconcilers with mgr; profiles are compiled and
// installed into host.
func SetupWithManager(mgr ctrl.Manager, host ProfileHost, opts ...Option) error {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	clk := clock.RealClock{}
	pr := NewProfileReconciler(mgr.GetClient(), host, mgr.GetEventRecorder(EventRecorderName), clk)
	pr.metrics = o.metrics
	pr.ticker = clk
	if o.shadowInterval > 0 {
		pr.shadowInterval = o.shadowInterval
	}
	if err := pr.setupWithManager(mgr, o.skipNameValidation); err != nil {
		return fmt.Errorf("setting up the SchedulingProfile controller: %w", err)
	}
	wr := NewPluginWeightReconciler(mgr.GetClient(), clk)
	if err := wr.setupWithManager(mgr, o.skipNameValidation); err != nil {
		return fmt.Errorf("setting up the PluginWeight controller: %w", err)
	}
	if err := indexPodsByGroup(mgr); err != nil {
		return err
	}
	gr := NewPodGroupReconciler(mgr.GetClient(), clk)
	if err := gr.setupWithManager(mgr, o.skipNameValidation); err != nil {
		return fmt.Errorf("setting up the PodGroup controller: %w", err)
	}
	if err := NewPodGroupProtectionReconciler(mgr.GetClient()).setupWithManager(mgr, o.skipNameValidation); err != nil {
		return fmt.Errorf("setting up the PodGroup protection controller: %w", err)
	}
	return nil
}
