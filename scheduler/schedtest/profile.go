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

package schedtest

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/berth-io/berth/api/v1alpha1"
)

// ProfileBuilder builds a SchedulingProfile step by step.
type ProfileBuilder struct{ p *v1alpha1.SchedulingProfile }

// Profile starts a SchedulingProfile of generation 1 with a UID derived from its name.
func Profile(name string) *ProfileBuilder {
	return &ProfileBuilder{p: &v1alpha1.SchedulingProfile{ObjectMeta: metav1.ObjectMeta{
		Name: name, UID: types.UID(name + "-uid"), Generation: 1,
	}}}
}

// UID sets the UID.
func (b *ProfileBuilder) UID(uid string) *ProfileBuilder { b.p.UID = types.UID(uid); return b }

// Generation sets metadata.generation.
func (b *ProfileBuilder) Generation(g int64) *ProfileBuilder { b.p.Generation = g; return b }

// Created sets the creation timestamp.
func (b *ProfileBuilder) Created(t time.Time) *ProfileBuilder {
	b.p.CreationTimestamp = metav1.NewTime(t)
	return b
}

// Terminating sets the deletion timestamp: the profile is being deleted.
func (b *ProfileBuilder) Terminating(at time.Time) *ProfileBuilder {
	t := metav1.NewTime(at)
	b.p.DeletionTimestamp = &t
	return b
}

// Finalizers adds finalizers.
func (b *ProfileBuilder) Finalizers(names ...string) *ProfileBuilder {
	b.p.Finalizers = append(b.p.Finalizers, names...)
	return b
}

// Label sets a label.
func (b *ProfileBuilder) Label(key, value string) *ProfileBuilder {
	if b.p.Labels == nil {
		b.p.Labels = map[string]string{}
	}
	b.p.Labels[key] = value
	return b
}

// SchedulerName sets spec.schedulerName.
func (b *ProfileBuilder) SchedulerName(name string) *ProfileBuilder {
	b.p.Spec.SchedulerName = name
	return b
}

// ShadowOf makes the profile a shadow of the live profile of schedulerName.
func (b *ProfileBuilder) ShadowOf(schedulerName string) *ProfileBuilder {
	b.p.Spec.ShadowOf = schedulerName
	return b
}

// Percentage sets spec.percentageOfNodesToScore.
func (b *ProfileBuilder) Percentage(p int32) *ProfileBuilder {
	b.p.Spec.PercentageOfNodesToScore = &p
	return b
}

// RecordDecisions sets spec.recordDecisions.
func (b *ProfileBuilder) RecordDecisions(n int32) *ProfileBuilder {
	b.p.Spec.RecordDecisions = &n
	return b
}

// pluginSet returns the PluginSet of the extension point named as in JSON
// ("multiPoint", "filter", "score", ...), making it when missing.
func (b *ProfileBuilder) pluginSet(point string) *v1alpha1.PluginSet {
	if b.p.Spec.Plugins == nil {
		b.p.Spec.Plugins = &v1alpha1.Plugins{}
	}
	ps := b.p.Spec.Plugins
	slot := map[string]**v1alpha1.PluginSet{
		"multiPoint": &ps.MultiPoint, "preEnqueue": &ps.PreEnqueue, "queueSort": &ps.QueueSort,
		"preFilter": &ps.PreFilter, "filter": &ps.Filter, "postFilter": &ps.PostFilter,
		"preScore": &ps.PreScore, "score": &ps.Score, "reserve": &ps.Reserve, "permit": &ps.Permit,
		"preBind": &ps.PreBind, "bind": &ps.Bind, "postBind": &ps.PostBind,
		"placementGenerate": &ps.PlacementGenerate, "placementScore": &ps.PlacementScore, "podGroupPostFilter": &ps.PodGroupPostFilter,
	}[point]
	if slot == nil {
		panic(fmt.Sprintf("schedtest: no extension point %q", point))
	}
	if *slot == nil {
		*slot = &v1alpha1.PluginSet{}
	}
	return *slot
}

// Enable enables the plugin at the extension point, named as in JSON ("filter").
func (b *ProfileBuilder) Enable(point, plugin string) *ProfileBuilder {
	s := b.pluginSet(point)
	s.Enabled = append(s.Enabled, v1alpha1.Plugin{Name: plugin})
	return b
}

// Weight enables the plugin at the extension point with a weight.
func (b *ProfileBuilder) Weight(point, plugin string, weight int32) *ProfileBuilder {
	s := b.pluginSet(point)
	s.Enabled = append(s.Enabled, v1alpha1.Plugin{Name: plugin, Weight: &weight})
	return b
}

// Disable disables the plugin ("*" for all) at the extension point.
func (b *ProfileBuilder) Disable(point, plugin string) *ProfileBuilder {
	s := b.pluginSet(point)
	s.Disabled = append(s.Disabled, v1alpha1.Plugin{Name: plugin})
	return b
}

// PluginArgs adds the plugin's args as raw JSON.
func (b *ProfileBuilder) PluginArgs(plugin, raw string) *ProfileBuilder {
	b.p.Spec.PluginConfig = append(b.p.Spec.PluginConfig, v1alpha1.PluginConfig{Name: plugin, Args: runtime.RawExtension{Raw: []byte(raw)}})
	return b
}

// Effective sets status.effectivePlugins and makes the current generation the active one.
func (b *ProfileBuilder) Effective(plugins ...v1alpha1.EffectivePlugin) *ProfileBuilder {
	b.p.Status.ActiveGeneration = b.p.Generation
	b.p.Status.EffectivePlugins = plugins
	return b
}

// RecentDecisions sets status.recentDecisions.
func (b *ProfileBuilder) RecentDecisions(d ...v1alpha1.SchedulingDecision) *ProfileBuilder {
	b.p.Status.RecentDecisions = d
	return b
}

// Extender appends an HTTP extender to spec.extenders.
func (b *ProfileBuilder) Extender(e v1alpha1.Extender) *ProfileBuilder {
	b.p.Spec.Extenders = append(b.p.Spec.Extenders, e)
	return b
}

// Obj returns the profile; later calls on the builder change it.
func (b *ProfileBuilder) Obj() *v1alpha1.SchedulingProfile { return b.p }

// PluginWeightBuilder builds a PluginWeight step by step.
type PluginWeightBuilder struct{ w *v1alpha1.PluginWeight }

// PluginWeight starts a PluginWeight of generation 1, with a UID derived
// from its name, setting the plugin's weight.
func PluginWeight(name, plugin string, weight int32) *PluginWeightBuilder {
	return &PluginWeightBuilder{w: &v1alpha1.PluginWeight{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(name + "-uid"), Generation: 1},
		Spec:       v1alpha1.PluginWeightSpec{Plugin: plugin, Weight: weight},
	}}
}

// UID sets the UID.
func (b *PluginWeightBuilder) UID(uid string) *PluginWeightBuilder {
	b.w.UID = types.UID(uid)
	return b
}

// Created sets the creation timestamp.
func (b *PluginWeightBuilder) Created(t time.Time) *PluginWeightBuilder {
	b.w.CreationTimestamp = metav1.NewTime(t)
	return b
}

// Profile refers to one profile by name.
func (b *PluginWeightBuilder) Profile(name string) *PluginWeightBuilder {
	b.w.Spec.ProfileRef = &v1alpha1.ProfileReference{Name: name}
	return b
}

// ProfileSelector selects profiles by a label selector.
func (b *PluginWeightBuilder) ProfileSelector(sel *metav1.LabelSelector) *PluginWeightBuilder {
	b.w.Spec.ProfileSelector = sel
	return b
}

// Obj returns the PluginWeight; later calls on the builder change it.
func (b *PluginWeightBuilder) Obj() *v1alpha1.PluginWeight { return b.w }
