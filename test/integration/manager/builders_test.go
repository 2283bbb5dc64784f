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

package manager_test

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/test/berthtest"
)

// leaseNamespace is the manager's default Lease namespace outside a pod.
const leaseNamespace = "berth-system"

// leaseName is the Lease that elects the scheduling replica.
const leaseName = "berth.scheduling.berth.io"

func namespace(name string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

// profile is a SchedulingProfile with the upstream default plugins.
func profile(name, schedulerName string) *v1alpha1.SchedulingProfile {
	return &v1alpha1.SchedulingProfile{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       v1alpha1.SchedulingProfileSpec{SchedulerName: schedulerName},
	}
}

// invalidProfile enables a plugin that does not exist.
func invalidProfile(name string) *v1alpha1.SchedulingProfile {
	p := profile(name, name)
	p.Spec.Plugins = &v1alpha1.Plugins{Score: &v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{{Name: "NoSuchPlugin"}}}}
	return p
}

func pod(name, schedulerName string) *corev1.Pod {
	return berthtest.NewPod("default", name).SchedulerName(schedulerName).Requests("cpu", "100m").Obj()
}
