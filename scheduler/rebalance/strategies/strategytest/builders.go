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

package strategytest

import (
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	st "github.com/berth-io/berth/scheduler/schedtest"
)

// Pod starts a schedtest pod as the strategies meet them: running in
// namespace "default" with UID name, owned by ReplicaSet "rs", with one
// container "c" of image "app".
func Pod(name string) *st.PodBuilder {
	return st.PodFrom(&v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "default", UID: types.UID(name),
			OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "rs", APIVersion: "apps/v1"}},
		},
		Spec:   v1.PodSpec{Containers: []v1.Container{{Name: "c", Image: "app"}}},
		Status: v1.PodStatus{Phase: v1.PodRunning},
	})
}

// Node starts a schedtest node with the hostname label and 4 CPUs, 8Gi of
// memory and room for 110 pods allocatable.
func Node(name string) *st.NodeBuilder {
	return st.NodeFrom(&v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1.LabelHostname: name}},
		Status:     v1.NodeStatus{Allocatable: st.List("cpu", "4", "memory", "8Gi", "pods", "110")},
	})
}
