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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/berth-io/berth/api/v1alpha1"
)

// testNamespace holds the PodGroups and pods of the unit tests.
const testNamespace = "ns"

type podGroupBuilder struct{ pg v1alpha1.PodGroup }

func makePodGroup(name string, minMember int32) *podGroupBuilder {
	return &podGroupBuilder{pg: v1alpha1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: name, UID: types.UID("uid-" + name), Generation: 1},
		Spec:       v1alpha1.PodGroupSpec{MinMember: minMember},
	}}
}

func (b *podGroupBuilder) gen(g int64) *podGroupBuilder { b.pg.Generation = g; return b }

// status sets the status as a previous reconcile left it.
func (b *podGroupBuilder) status(st v1alpha1.PodGroupStatus) *podGroupBuilder {
	b.pg.Status = st
	return b
}
func (b *podGroupBuilder) obj() *v1alpha1.PodGroup { return b.pg.DeepCopy() }

type memberBuilder struct{ pod corev1.Pod }

// makeMember starts a pending, unbound pod of group in testNamespace.
func makeMember(name, group string) *memberBuilder {
	return &memberBuilder{pod: corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: name, Labels: map[string]string{v1alpha1.PodGroupLabel: group}},
		Status:     corev1.PodStatus{Phase: corev1.PodPending},
	}}
}

func (b *memberBuilder) namespace(ns string) *memberBuilder { b.pod.Namespace = ns; return b }
func (b *memberBuilder) on(node string) *memberBuilder      { b.pod.Spec.NodeName = node; return b }
func (b *memberBuilder) phase(p corev1.PodPhase) *memberBuilder {
	b.pod.Status.Phase = p
	return b
}
func (b *memberBuilder) running(node string) *memberBuilder {
	return b.on(node).phase(corev1.PodRunning)
}
func (b *memberBuilder) terminating() *memberBuilder {
	now := metav1.NewTime(t0)
	b.pod.DeletionTimestamp = &now
	b.pod.Finalizers = []string{"test/hold"}
	return b
}
func (b *memberBuilder) obj() *corev1.Pod { return b.pod.DeepCopy() }
func (b *memberBuilder) val() corev1.Pod  { return *b.pod.DeepCopy() }

// members builds each builder's pod.
func members(bs ...*memberBuilder) []corev1.Pod {
	pods := make([]corev1.Pod, 0, len(bs))
	for _, b := range bs {
		pods = append(pods, b.val())
	}
	return pods
}
