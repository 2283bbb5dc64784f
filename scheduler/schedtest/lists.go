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
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// List turns name/quantity pairs ("cpu", "1", "memory", "1Gi") into a ResourceList.
func List(pairs ...string) v1.ResourceList {
	rl := v1.ResourceList{}
	for i := 0; i+1 < len(pairs); i += 2 {
		rl[v1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return rl
}

// Map turns key/value pairs into a map, empty but not nil without pairs.
func Map(pairs ...string) map[string]string {
	m := make(map[string]string, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		m[pairs[i]] = pairs[i+1]
	}
	return m
}

// Selector is a label selector matching the key/value pairs.
func Selector(pairs ...string) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: Map(pairs...)}
}
