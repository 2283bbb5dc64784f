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

package controllers

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/berth-io/berth/api/v1alpha1"
)

// t0 is the creation time builders start from; age(n) is t0 + n minutes.
var t0 = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

type profileBuilder struct{ p v1alpha1.SchedulingProfile }

func makeProfile(name string) *profileBuilder {
	return &profileBuilder{p: v1alpha1.SchedulingProfile{ObjectMeta: metav1.ObjectMeta{
		Name: name, UID: types.UID("uid-" + name), Generation: 1, CreationTimestamp: metav1.NewTime(t0),
	}}}
}

func (b *profileBuilder) created(minutes int) *profileBuilder {
	b.p.CreationTimestamp = metav1.NewTime(t0.Add(time.Duration(minutes) * time.Minute))
	return b
}
func (b *profileBuilder) gen(g int64) *profileBuilder { b.p.Generation = g; return b }
func (b *profileBuilder) schedulerName(n string) *profileBuilder {
	b.p.Spec.SchedulerName = n
	return b
}
func (b *profileBuilder) label(k, v string) *profileBuilder {
	if b.p.Labels == nil {
		b.p.Labels = map[string]string{}
	}
	b.p.Labels[k] = v
	return b
}

// args sets a plugin's args.
func (b *profileBuilder) args(plugin, raw string) *profileBuilder {
	b.p.Spec.PluginConfig = append(b.p.Spec.PluginConfig, v1alpha1.PluginConfig{Name: plugin, Args: runtime.RawExtension{Raw: []byte(raw)}})
	return b
}

// enableScore enables a plugin at Score.
func (b *profileBuilder) enableScore(plugin string) *profileBuilder {
	if b.p.Spec.Plugins == nil {
		b.p.Spec.Plugins = &v1alpha1.Plugins{}
	}
	if b.p.Spec.Plugins.Score == nil {
		b.p.Spec.Plugins.Score = &v1alpha1.PluginSet{}
	}
	b.p.Spec.Plugins.Score.Enabled = append(b.p.Spec.Plugins.Score.Enabled, v1alpha1.Plugin{Name: plugin})
	return b
}

// effective sets status.effectivePlugins and activeGeneration as if live.
func (b *profileBuilder) effective(plugins ...v1alpha1.EffectivePlugin) *profileBuilder {
	b.p.Status.ActiveGeneration = b.p.Generation
	b.p.Status.EffectivePlugins = plugins
	return b
}
func (b *profileBuilder) obj() *v1alpha1.SchedulingProfile { return b.p.DeepCopy() }
func (b *profileBuilder) val() v1alpha1.SchedulingProfile  { return *b.p.DeepCopy() }

// scoring is an effective plugin that scores with the weight set by pw ("" for the profile's own).
func scoring(name string, weight int32, pw string) v1alpha1.EffectivePlugin {
	ep := v1alpha1.EffectivePlugin{Name: name, ExtensionPoints: []string{"PreScore", "Score"}, Weight: weight, WeightSource: v1alpha1.WeightSourceProfile}
	if pw != "" {
		ep.WeightSource, ep.PluginWeight = v1alpha1.WeightSourcePluginWeight, pw
	}
	return ep
}

// filtering is an effective plugin that does not score.
func filtering(name string) v1alpha1.EffectivePlugin {
	return v1alpha1.EffectivePlugin{Name: name, ExtensionPoints: []string{"Filter"}}
}

type weightBuilder struct{ w v1alpha1.PluginWeight }

func makeWeight(name, plugin string, weight int32) *weightBuilder {
	return &weightBuilder{w: v1alpha1.PluginWeight{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), Generation: 1, CreationTimestamp: metav1.NewTime(t0)},
		Spec:       v1alpha1.PluginWeightSpec{Plugin: plugin, Weight: weight},
	}}
}

func (b *weightBuilder) created(minutes int) *weightBuilder {
	b.w.CreationTimestamp = metav1.NewTime(t0.Add(time.Duration(minutes) * time.Minute))
	return b
}
func (b *weightBuilder) ref(profile string) *weightBuilder {
	b.w.Spec.ProfileRef = &v1alpha1.ProfileReference{Name: profile}
	return b
}
func (b *weightBuilder) selector(k, v string) *weightBuilder {
	b.w.Spec.ProfileSelector = &metav1.LabelSelector{MatchLabels: map[string]string{k: v}}
	return b
}
func (b *weightBuilder) badSelector() *weightBuilder {
	b.w.Spec.ProfileSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "k", Operator: "Bogus"}}}
	return b
}
func (b *weightBuilder) obj() *v1alpha1.PluginWeight { return b.w.DeepCopy() }
func (b *weightBuilder) val() v1alpha1.PluginWeight  { return *b.w.DeepCopy() }
