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

package runtime

// WeightOverride replaces the configured weight of one score plugin when a
// framework is built, for example from a PluginWeight object.
type WeightOverride struct {
	// Weight is the plugin's new score weight; 0 or less leaves the configured weight.
	Weight int32
	// Source names who set the weight; ListPlugins reports it as PluginInfo.WeightOverride.
	Source string
}

// WithScoreWeights overrides the weights of score plugins, keyed by plugin
// name. An override for a plugin that does not score in the profile is
// ignored; Scores tells the caller which plugins score.
func WithScoreWeights(overrides map[string]WeightOverride) Option {
	return func(o *options) {
		if o.weightOverrides == nil {
			o.weightOverrides = make(map[string]WeightOverride, len(overrides))
		}
		for name, w := range overrides {
			o.weightOverrides[name] = w
		}
	}
}

// Scores reports whether the plugin runs at the Score extension point of the profile.
func (f *Framework) Scores(plugin string) bool {
	for _, pl := range f.score {
		if pl.Name() == plugin {
			return true
		}
	}
	return false
}
