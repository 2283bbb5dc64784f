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

	"github.com/berth-io/berth/api/v1alpha1"
)

// t0 is the creation time builders start from; minutes(n) is t0 + n minutes.
var t0 = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

func minutes(n int) time.Time { return t0.Add(time.Duration(n) * time.Minute) }

// badSelector is a profile selector with an operator that does not exist.
var badSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "k", Operator: "Bogus"}}}

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
