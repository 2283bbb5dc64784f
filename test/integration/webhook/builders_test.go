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

package webhook_test

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/api/v1alpha1"
)

// profileBuilder builds SchedulingProfiles for the specs.
type profileBuilder struct{ p v1alpha1.SchedulingProfile }

func makeProfile(name string) *profileBuilder {
	b := &profileBuilder{}
	b.p.Name = name
	return b
}

func (b *profileBuilder) plugins() *v1alpha1.Plugins {
	if b.p.Spec.Plugins == nil {
		b.p.Spec.Plugins = &v1alpha1.Plugins{}
	}
	return b.p.Spec.Plugins
}

// filter enables a plugin at the Filter extension point.
func (b *profileBuilder) filter(name string) *profileBuilder {
	ps := b.plugins()
	if ps.Filter == nil {
		ps.Filter = &v1alpha1.PluginSet{}
	}
	ps.Filter.Enabled = append(ps.Filter.Enabled, v1alpha1.Plugin{Name: name})
	return b
}

// queueSort enables a plugin at the QueueSort extension point.
func (b *profileBuilder) queueSort(name string) *profileBuilder {
	ps := b.plugins()
	if ps.QueueSort == nil {
		ps.QueueSort = &v1alpha1.PluginSet{}
	}
	ps.QueueSort.Enabled = append(ps.QueueSort.Enabled, v1alpha1.Plugin{Name: name})
	return b
}

// scoreWeight enables a plugin at MultiPoint with a weight.
func (b *profileBuilder) scoreWeight(name string, w int32) *profileBuilder {
	ps := b.plugins()
	if ps.MultiPoint == nil {
		ps.MultiPoint = &v1alpha1.PluginSet{}
	}
	ps.MultiPoint.Enabled = append(ps.MultiPoint.Enabled, v1alpha1.Plugin{Name: name, Weight: ptr.To(w)})
	return b
}

func (b *profileBuilder) args(name, raw string) *profileBuilder {
	b.p.Spec.PluginConfig = append(b.p.Spec.PluginConfig, v1alpha1.PluginConfig{Name: name, Args: runtime.RawExtension{Raw: []byte(raw)}})
	return b
}

func (b *profileBuilder) obj() *v1alpha1.SchedulingProfile { return b.p.DeepCopy() }

func makeWeight(name, profile, plugin string, w int32) *v1alpha1.PluginWeight {
	pw := &v1alpha1.PluginWeight{Spec: v1alpha1.PluginWeightSpec{
		ProfileRef: &v1alpha1.ProfileReference{Name: profile}, Plugin: plugin, Weight: w,
	}}
	pw.Name = name
	return pw
}
