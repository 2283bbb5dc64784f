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

package framework

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/api/v1alpha1"
)

// groupPod returns a pod in namespace ns that names native in
// spec.schedulingGroup and berth in the pod-group label ("" for neither).
func groupPod(native, berth string) *v1.Pod {
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}}
	if native != "" {
		pod.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: ptr.To(native)}
	}
	if berth != "" {
		pod.Labels = map[string]string{v1alpha1.PodGroupLabel: berth}
	}
	return pod
}

func TestGroupRefOf(t *testing.T) {
	tests := []struct {
		name   string
		pod    *v1.Pod
		want   GroupRef
		wantOK bool
	}{
		{name: "no group", pod: groupPod("", "")},
		{name: "Kubernetes' own PodGroup", pod: groupPod("crew", ""), want: GroupRef{Namespace: "ns", Name: "crew"}, wantOK: true},
		{name: "Berth's PodGroup", pod: groupPod("", "crew"), want: GroupRef{Namespace: "ns", Name: "crew", Berth: true}, wantOK: true},
		{name: "spec.schedulingGroup wins over the label", pod: groupPod("native", "berth"), want: GroupRef{Namespace: "ns", Name: "native"}, wantOK: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := GroupRefOf(tt.pod)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("GroupRefOf() = %+v, %v; want %+v, %v", got, ok, tt.want, tt.wantOK)
			}
			if ok && !InGroup(tt.pod, tt.want) {
				t.Errorf("InGroup(pod, %+v) = false", tt.want)
			}
		})
	}
}

func TestRefOfTellsTheKindsApart(t *testing.T) {
	native := &schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "crew"}}
	berth := native.DeepCopy()
	berth.APIVersion = BerthPodGroupAPIVersion
	if RefOf(native) == RefOf(berth) {
		t.Fatalf("a native and a Berth PodGroup of one name have the same ref %+v", RefOf(native))
	}
	if InGroup(groupPod("", "crew"), RefOf(native)) || !InGroup(groupPod("", "crew"), RefOf(berth)) {
		t.Error("a labelled pod must join Berth's PodGroup only")
	}
	if !InGroup(groupPod("crew", ""), RefOf(native)) || InGroup(groupPod("crew", ""), RefOf(berth)) {
		t.Error("a pod with spec.schedulingGroup must join the native PodGroup only")
	}
}
