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

package e2e_test

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// deploymentBuilder builds the specs' Deployments.
type deploymentBuilder struct{ d *appsv1.Deployment }

func makeDeployment(namespace, name string) *deploymentBuilder {
	labels := map[string]string{"app": name}
	return &deploymentBuilder{d: &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					AutomountServiceAccountToken: ptr.To(false),
					Containers:                   []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}},
				},
			},
		},
	}}
}

func (b *deploymentBuilder) replicas(n int32) *deploymentBuilder {
	b.d.Spec.Replicas = ptr.To(n)
	return b
}

func (b *deploymentBuilder) scheduler(name string) *deploymentBuilder {
	b.d.Spec.Template.Spec.SchedulerName = name
	return b
}

func (b *deploymentBuilder) req(cpu, memory string) *deploymentBuilder {
	b.d.Spec.Template.Spec.Containers[0].Resources.Requests = corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse(cpu),
		corev1.ResourceMemory: resource.MustParse(memory),
	}
	return b
}

func (b *deploymentBuilder) obj() *appsv1.Deployment { return b.d }
