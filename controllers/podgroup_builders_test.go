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
	corev1 "k8s.io/api/core/v1"

	st "github.com/berth-io/berth/scheduler/schedtest"
)

// testNamespace holds the PodGroups and pods of the unit tests.
const testNamespace = "ns"

// podGroup starts a PodGroup in testNamespace.
func podGroup(name string, minCount int32) *st.PodGroupBuilder {
	return st.PodGroup(name, minCount).Namespace(testNamespace)
}

// member starts a pending, unbound pod of group in testNamespace.
func member(name, group string) *st.PodBuilder {
	return st.Pod(name).Namespace(testNamespace).Group(group).Phase(corev1.PodPending)
}

// members builds each builder's pod.
func members(bs ...*st.PodBuilder) []corev1.Pod {
	pods := make([]corev1.Pod, 0, len(bs))
	for _, b := range bs {
		pods = append(pods, *b.Obj())
	}
	return pods
}
