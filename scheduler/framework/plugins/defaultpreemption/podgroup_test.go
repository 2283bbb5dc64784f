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

package defaultpreemption

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestPodGroupPostFilter(t *testing.T) {
	node := st.Node("n1").Obj()
	group := func(priority int32) *schedulingv1beta1.PodGroup {
		return st.WorkloadGroup("crew").Gang(2).Priority(priority).Obj()
	}
	member := st.Pod("m0").SchedulingGroup("crew").Obj()
	tests := []struct {
		name     string
		group    *schedulingv1beta1.PodGroup
		members  []*v1.Pod
		running  []*v1.Pod
		groups   []*schedulingv1beta1.PodGroup
		wantCode framework.Code
		wantMsg  string
	}{
		{
			name: "no pod of lower priority: no victims", group: group(0), members: []*v1.Pod{member},
			running:  []*v1.Pod{st.Pod("r").NodeName("n1").Obj()},
			wantCode: framework.UnschedulableAndUnresolvable, wantMsg: "pod group preemption: No preemption victims found for incoming preemptor",
		},
		{
			name: "a member that may not preempt", group: group(10), members: []*v1.Pod{st.Pod("m0").SchedulingGroup("crew").PreemptionPolicy(v1.PreemptNever).Obj()},
			running:  []*v1.Pod{st.Pod("r").NodeName("n1").Obj()},
			wantCode: framework.Unschedulable, wantMsg: "pod group preemption: not eligible due to preemptionPolicy=Never.",
		},
		{
			name: "a pod of lower priority: not evicted yet", group: group(10), members: []*v1.Pod{member},
			running:  []*v1.Pod{st.Pod("r").Priority(5).NodeName("n1").Obj()},
			wantCode: framework.Unschedulable, wantMsg: "pod group preemption: Berth does not evict pods for a pod group yet",
		},
		{
			name: "a running member of a group counts at its group's priority", group: group(10), members: []*v1.Pod{member},
			running:  []*v1.Pod{st.Pod("r").Priority(5).SchedulingGroup("big").NodeName("n1").Obj()},
			groups:   []*schedulingv1beta1.PodGroup{st.WorkloadGroup("big").Priority(20).Obj()},
			wantCode: framework.UnschedulableAndUnresolvable, wantMsg: "pod group preemption: No preemption victims found for incoming preemptor",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := &st.Handle{
				Snapshot: st.NewLister(st.NodeInfo(node, tc.running...)),
				Native:   &st.Workloads{Groups: append([]*schedulingv1beta1.PodGroup{tc.group}, tc.groups...), Pods: tc.running},
			}
			p := &DefaultPreemption{handle: h}
			_, s := p.PodGroupPostFilter(context.Background(), tc.group, tc.members)
			if s.Code() != tc.wantCode || s.Message() != tc.wantMsg {
				t.Errorf("PodGroupPostFilter = %v %q, want %v %q", s.Code(), s.Message(), tc.wantCode, tc.wantMsg)
			}
		})
	}
}
