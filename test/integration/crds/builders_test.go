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

package crds_test

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	berthv1alpha1 "github.com/berth-io/berth/api/v1alpha1"
)

// builder is a test object under construction. Every new* function starts
// from a valid object, so a spec changes only what its rule is about.
type builder interface {
	build() client.Object
}

// profileBuilder builds a SchedulingProfile.
type profileBuilder struct {
	obj *berthv1alpha1.SchedulingProfile
}

// newProfile is a valid, empty SchedulingProfile.
func newProfile(name string) *profileBuilder {
	return &profileBuilder{obj: &berthv1alpha1.SchedulingProfile{ObjectMeta: metav1.ObjectMeta{Name: name}}}
}

func (b *profileBuilder) build() client.Object { return b.obj }

func (b *profileBuilder) withBackoff(initialSeconds, maxSeconds int64) *profileBuilder {
	b.obj.Spec.PodInitialBackoffSeconds = ptr.To(initialSeconds)
	b.obj.Spec.PodMaxBackoffSeconds = ptr.To(maxSeconds)
	return b
}

func (b *profileBuilder) withPercentageOfNodesToScore(percentage int32) *profileBuilder {
	b.obj.Spec.PercentageOfNodesToScore = ptr.To(percentage)
	return b
}

// withScorePlugin enables a plugin at the score extension point with a weight.
func (b *profileBuilder) withScorePlugin(name string, weight int32) *profileBuilder {
	score := b.scorePlugins()
	score.Enabled = append(score.Enabled, berthv1alpha1.Plugin{Name: name, Weight: ptr.To(weight)})
	return b
}

// withDisabledScorePlugin disables a default plugin at the score extension point.
func (b *profileBuilder) withDisabledScorePlugin(name string) *profileBuilder {
	score := b.scorePlugins()
	score.Disabled = append(score.Disabled, berthv1alpha1.Plugin{Name: name})
	return b
}

// scorePlugins is the profile's score extension point, created when missing.
func (b *profileBuilder) scorePlugins() *berthv1alpha1.PluginSet {
	if b.obj.Spec.Plugins == nil {
		b.obj.Spec.Plugins = &berthv1alpha1.Plugins{}
	}
	if b.obj.Spec.Plugins.Score == nil {
		b.obj.Spec.Plugins.Score = &berthv1alpha1.PluginSet{}
	}
	return b.obj.Spec.Plugins.Score
}

// withPluginConfig adds a pluginConfig entry; args is the args object as JSON.
func (b *profileBuilder) withExtender(e berthv1alpha1.Extender) *profileBuilder {
	b.obj.Spec.Extenders = append(b.obj.Spec.Extenders, e)
	return b
}

func (b *profileBuilder) withPluginConfig(name, args string) *profileBuilder {
	b.obj.Spec.PluginConfig = append(b.obj.Spec.PluginConfig,
		berthv1alpha1.PluginConfig{Name: name, Args: runtime.RawExtension{Raw: []byte(args)}})
	return b
}

// pluginWeightBuilder builds a PluginWeight.
type pluginWeightBuilder struct{ obj *berthv1alpha1.PluginWeight }

// newPluginWeight is a valid PluginWeight: NodeResourcesFit at weight 5 in the profile bin-packing.
func newPluginWeight(name string) *pluginWeightBuilder {
	return &pluginWeightBuilder{obj: &berthv1alpha1.PluginWeight{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: berthv1alpha1.PluginWeightSpec{
			ProfileRef: &berthv1alpha1.ProfileReference{Name: "bin-packing"},
			Plugin:     "NodeResourcesFit",
			Weight:     5,
		},
	}}
}

func (b *pluginWeightBuilder) build() client.Object { return b.obj }

func (b *pluginWeightBuilder) withWeight(weight int32) *pluginWeightBuilder {
	b.obj.Spec.Weight = weight
	return b
}

// withProfileSelector selects profiles by labels, in addition to any profileRef.
func (b *pluginWeightBuilder) withProfileSelector(labels map[string]string) *pluginWeightBuilder {
	b.obj.Spec.ProfileSelector = &metav1.LabelSelector{MatchLabels: labels}
	return b
}

func (b *pluginWeightBuilder) withoutProfileRef() *pluginWeightBuilder {
	b.obj.Spec.ProfileRef = nil
	return b
}

// rebalancePolicyBuilder builds a RebalancePolicy.
type rebalancePolicyBuilder struct {
	obj *berthv1alpha1.RebalancePolicy
}

// newRebalancePolicy is a valid RebalancePolicy running RemoveDuplicates every five minutes.
func newRebalancePolicy(name string) *rebalancePolicyBuilder {
	return &rebalancePolicyBuilder{obj: &berthv1alpha1.RebalancePolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: berthv1alpha1.RebalancePolicySpec{
			Schedule:   berthv1alpha1.RebalanceSchedule{Interval: &metav1.Duration{Duration: 5 * time.Minute}},
			Strategies: []berthv1alpha1.Strategy{{Name: "RemoveDuplicates"}},
		},
	}}
}

func (b *rebalancePolicyBuilder) build() client.Object { return b.obj }

// withCron adds a cron schedule, keeping any interval.
func (b *rebalancePolicyBuilder) withCron(cron string) *rebalancePolicyBuilder {
	b.obj.Spec.Schedule.Cron = cron
	return b
}

// withOnlyCron replaces the schedule with a cron schedule.
func (b *rebalancePolicyBuilder) withOnlyCron(cron string) *rebalancePolicyBuilder {
	b.obj.Spec.Schedule = berthv1alpha1.RebalanceSchedule{Cron: cron}
	return b
}

// withInterval sets the schedule's interval.
func (b *rebalancePolicyBuilder) withInterval(d time.Duration) *rebalancePolicyBuilder {
	b.obj.Spec.Schedule.Interval = &metav1.Duration{Duration: d}
	return b
}

func (b *rebalancePolicyBuilder) withoutSchedule() *rebalancePolicyBuilder {
	b.obj.Spec.Schedule = berthv1alpha1.RebalanceSchedule{}
	return b
}

// withStrategies replaces the strategies with argument-less ones of these names.
func (b *rebalancePolicyBuilder) withStrategies(names ...string) *rebalancePolicyBuilder {
	b.obj.Spec.Strategies = nil
	for _, name := range names {
		b.obj.Spec.Strategies = append(b.obj.Spec.Strategies, berthv1alpha1.Strategy{Name: berthv1alpha1.StrategyName(name)})
	}
	return b
}

func (b *rebalancePolicyBuilder) withNamespaces(include, exclude []string) *rebalancePolicyBuilder {
	b.obj.Spec.Namespaces = &berthv1alpha1.NamespaceFilter{Include: include, Exclude: exclude}
	return b
}

// withPriorityThreshold sets both the threshold's value and its PriorityClass name.
func (b *rebalancePolicyBuilder) withPriorityThreshold(value int32, priorityClassName string) *rebalancePolicyBuilder {
	if b.obj.Spec.Evictor == nil {
		b.obj.Spec.Evictor = &berthv1alpha1.EvictorOptions{}
	}
	b.obj.Spec.Evictor.PriorityThreshold = &berthv1alpha1.PriorityThreshold{Value: ptr.To(value), Name: priorityClassName}
	return b
}

// podGroupBuilder builds a PodGroup in the test namespace.
type podGroupBuilder struct{ obj *berthv1alpha1.PodGroup }

// newPodGroup is a valid PodGroup, a gang of one, in the test namespace.
func newPodGroup(name string) *podGroupBuilder {
	return &podGroupBuilder{obj: &berthv1alpha1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: name},
		Spec: berthv1alpha1.PodGroupSpec{SchedulingPolicy: &berthv1alpha1.PodGroupSchedulingPolicy{
			Gang: &berthv1alpha1.GangSchedulingPolicy{MinCount: 1},
		}},
	}}
}

func (b *podGroupBuilder) build() client.Object { return b.obj }

// withMinMember sets the deprecated minMember; withPolicy(nil) then leaves it alone.
func (b *podGroupBuilder) withMinMember(n int32) *podGroupBuilder {
	b.obj.Spec.MinMember = n
	return b
}

// withPolicy replaces the scheduling policy.
func (b *podGroupBuilder) withPolicy(p *berthv1alpha1.PodGroupSchedulingPolicy) *podGroupBuilder {
	b.obj.Spec.SchedulingPolicy = p
	return b
}

// withTopology sets the topology constraints' keys.
func (b *podGroupBuilder) withTopology(keys ...string) *podGroupBuilder {
	c := &berthv1alpha1.PodGroupSchedulingConstraints{}
	for _, k := range keys {
		c.Topology = append(c.Topology, berthv1alpha1.TopologyConstraint{Key: k})
	}
	b.obj.Spec.SchedulingConstraints = c
	return b
}

// withDisruptionMode sets the disruption mode.
func (b *podGroupBuilder) withDisruptionMode(d *berthv1alpha1.DisruptionMode) *podGroupBuilder {
	b.obj.Spec.DisruptionMode = d
	return b
}
