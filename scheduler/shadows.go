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

package scheduler

import (
	"context"

	"k8s.io/klog/v2"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework/runtime"
	"github.com/berth-io/berth/scheduler/internal/shadowrun"
	"github.com/berth-io/berth/scheduler/shadow"
)

// ShadowProfile is a compiled shadow profile: it is evaluated beside the
// live profile serving Of and never binds.
type ShadowProfile = shadowrun.Profile

// ShadowStats are a shadow profile's figures, as ShadowStats returns them.
type ShadowStats struct {
	shadow.Stats
	// Generation is the generation they were counted for.
	Generation int64
	// LiveProfile names the SchedulingProfile serving the shadowed
	// schedulerName now, or "" when none does.
	LiveProfile string
	// Version changes whenever the figures do.
	Version uint64
}

// CompileShadow builds a shadow profile's framework from spec: the live
// profiles' plugins and handle, but bound to the shadows' own snapshot and
// filtering and scoring on one goroutine, so that it takes as little as
// possible from the scheduling loop.
func (s *Scheduler) CompileShadow(ctx context.Context, name string, spec *v1alpha1.SchedulingProfileSpec, opts ...runtime.Option) (*runtime.Framework, error) {
	own := append([]runtime.Option{runtime.WithSnapshotSharedLister(s.shadows.Snapshot()), runtime.WithParallelism(1), runtime.WithWorkloads(s.shadows.Workloads())}, opts...)
	return s.CompileProfile(ctx, name, spec, own...)
}

// InstallShadow starts evaluating p beside the live profile of p.Of,
// replacing an installed shadow of the same Source; its figures start over.
func (s *Scheduler) InstallShadow(ctx context.Context, p *ShadowProfile) {
	s.shadows.Install(p)
	s.retainUsage()
	klog.FromContext(ctx).Info("Shadow profile is live", "profile", p.Source, "generation", p.Generation, "shadowOf", p.Of, "sampleRatePercent", p.SampleRatePercent)
}

// RemoveShadow stops evaluating the shadow profile compiled from source.
func (s *Scheduler) RemoveShadow(ctx context.Context, source string) {
	if s.shadows.Remove(source) {
		s.retainUsage()
		s.metrics.DeleteShadowProfile(source)
		klog.FromContext(ctx).Info("Shadow profile removed", "profile", source)
	}
}

// ShadowStats returns the figures of the shadow profile compiled from source.
func (s *Scheduler) ShadowStats(source string) (ShadowStats, bool) {
	p, ok := s.shadows.Profile(source)
	if !ok {
		return ShadowStats{}, false
	}
	stats, version := p.Stats()
	st := ShadowStats{Stats: stats, Generation: p.Generation, Version: version}
	if live := s.profiles.Get(p.Of); live != nil {
		st.LiveProfile = live.Source
	}
	return st, true
}

// updateSnapshot brings the cycle's snapshot, and the shadows' when a
// shadow job is pending, to the cache's current generation.
func (s *Scheduler) updateSnapshot(ctx context.Context) error {
	if !s.shadows.Pending() {
		return s.cache.UpdateSnapshot(klog.FromContext(ctx), s.snapshot)
	}
	return s.cache.UpdateSnapshots(klog.FromContext(ctx), s.snapshot, s.shadows.Snapshot())
}
