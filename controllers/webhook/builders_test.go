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

package webhook

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins"
	fwkruntime "github.com/berth-io/berth/scheduler/framework/runtime"
)

// profileBuilder builds SchedulingProfiles for tests.
type profileBuilder struct{ p v1alpha1.SchedulingProfile }

func makeProfile(name string) *profileBuilder {
	b := &profileBuilder{}
	b.p.Name = name
	return b
}

// set returns the PluginSet of one extension point, by its JSON field name.
func (b *profileBuilder) set(point string) *v1alpha1.PluginSet {
	if b.p.Spec.Plugins == nil {
		b.p.Spec.Plugins = &v1alpha1.Plugins{}
	}
	ps := b.p.Spec.Plugins
	slot := map[string]**v1alpha1.PluginSet{
		"multiPoint": &ps.MultiPoint, "queueSort": &ps.QueueSort, "preFilter": &ps.PreFilter,
		"filter": &ps.Filter, "postFilter": &ps.PostFilter, "preScore": &ps.PreScore,
		"score": &ps.Score, "reserve": &ps.Reserve, "bind": &ps.Bind,
	}[point]
	if *slot == nil {
		*slot = &v1alpha1.PluginSet{}
	}
	return *slot
}

func (b *profileBuilder) enable(point, name string) *profileBuilder {
	s := b.set(point)
	s.Enabled = append(s.Enabled, v1alpha1.Plugin{Name: name})
	return b
}

func (b *profileBuilder) weight(point, name string, w int32) *profileBuilder {
	s := b.set(point)
	s.Enabled = append(s.Enabled, v1alpha1.Plugin{Name: name, Weight: ptr.To(w)})
	return b
}

func (b *profileBuilder) disable(point, name string) *profileBuilder {
	s := b.set(point)
	s.Disabled = append(s.Disabled, v1alpha1.Plugin{Name: name})
	return b
}

func (b *profileBuilder) args(name, raw string) *profileBuilder {
	b.p.Spec.PluginConfig = append(b.p.Spec.PluginConfig, v1alpha1.PluginConfig{Name: name, Args: runtime.RawExtension{Raw: []byte(raw)}})
	return b
}

func (b *profileBuilder) percentage(p int32) *profileBuilder {
	b.p.Spec.PercentageOfNodesToScore = ptr.To(p)
	return b
}

func (b *profileBuilder) obj() *v1alpha1.SchedulingProfile { return b.p.DeepCopy() }

func makeWeight(name, plugin string, w int32) *v1alpha1.PluginWeight {
	pw := &v1alpha1.PluginWeight{Spec: v1alpha1.PluginWeightSpec{
		ProfileRef: &v1alpha1.ProfileReference{Name: "default-scheduler"}, Plugin: plugin, Weight: w,
	}}
	pw.Name = name
	return pw
}

// fifoSort is an out-of-tree QueueSort plugin, to test the shared-queue rule.
type fifoSort struct{}

func (fifoSort) Name() string { return "FifoSort" }

func (fifoSort) Less(a, b *framework.QueuedPodInfo) bool { return a.Timestamp.Before(b.Timestamp) }

// testRegistry is the in-tree registry plus fifoSort.
func testRegistry() fwkruntime.Registry {
	r := fwkruntime.Registry(plugins.NewInTreeRegistry())
	_ = r.Register("FifoSort", func(context.Context, []byte, framework.Handle) (framework.Plugin, error) {
		return fifoSort{}, nil
	})
	return r
}
