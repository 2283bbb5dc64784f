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

package gangscheduling

import (
	"context"
	"testing"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
	"github.com/berth-io/berth/scheduler/workload"
)

// hierarchy is a cluster's PodGroups, CompositePodGroups and pods.
type hierarchy struct {
	pgs  []*schedulingv1beta1.PodGroup
	cpgs []*schedulingv1alpha3.CompositePodGroup
	pods []*v1.Pod
}

// handle returns a handle over the scheduler's own view of the hierarchy,
// following parents when composite is set.
func (c hierarchy) handle(t *testing.T, composite bool) *gangHandle {
	t.Helper()
	factory := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	pods := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{workload.MemberIndex: workload.IndexMembers})
	opts := []workload.Option{workload.WithInformerFactory(factory)}
	if composite {
		opts = append(opts, workload.WithCompositeInformerFactory(factory))
	}
	g := workload.New(pods, nil, opts...)
	for _, p := range c.pods {
		if err := pods.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	for _, pg := range c.pgs {
		if err := factory.Scheduling().V1beta1().PodGroups().Informer().GetIndexer().Add(pg); err != nil {
			t.Fatal(err)
		}
	}
	for _, cpg := range c.cpgs {
		if err := factory.Scheduling().V1alpha3().CompositePodGroups().Informer().GetIndexer().Add(cpg); err != nil {
			t.Fatal(err)
		}
	}
	return &gangHandle{Handle: st.Handle{Native: g}}
}

// members returns pods that join the named PodGroup.
func members(group string, names ...string) []*v1.Pod {
	out := make([]*v1.Pod, len(names))
	for i, n := range names {
		out[i] = st.Pod(n).SchedulingGroup(group).Obj()
	}
	return out
}

func TestPreEnqueueHierarchy(t *testing.T) {
	pg := st.WorkloadGroup
	cpg := st.CompositeGroup
	pgs := func(b ...*st.WorkloadGroupBuilder) []*schedulingv1beta1.PodGroup {
		out := make([]*schedulingv1beta1.PodGroup, len(b))
		for i := range b {
			out[i] = b[i].Obj()
		}
		return out
	}
	cpgs := func(b ...*st.CompositeGroupBuilder) []*schedulingv1alpha3.CompositePodGroup {
		out := make([]*schedulingv1alpha3.CompositePodGroup, len(b))
		for i := range b {
			out[i] = b[i].Obj()
		}
		return out
	}
	both := append(members("a", "a1", "a2"), members("b", "b1")...)
	tests := []struct {
		name      string
		cluster   hierarchy
		composite bool
		wantCode  framework.Code
		wantMsg   string
	}{
		{
			name:     "the parent does not exist",
			cluster:  hierarchy{pgs: pgs(pg("a").Gang(2).Parent("root")), pods: both},
			wantCode: framework.UnschedulableAndUnresolvable, composite: true,
			wantMsg: "failed to build hierarchy snapshot: composite pod group object not found in state for compositepodgroup/default/root",
		},
		{
			name:    "not following parents: a gang with its pods passes",
			cluster: hierarchy{pgs: pgs(pg("a").Gang(2).Parent("root")), pods: both},
		},
		{
			name: "a gang composite waits for minGroupCount ready children",
			cluster: hierarchy{
				pgs:  pgs(pg("a").Gang(2).Parent("root"), pg("b").Gang(2).Parent("root")),
				cpgs: cpgs(cpg("root").Gang(2)), pods: both,
			},
			composite: true, wantCode: framework.UnschedulableAndUnresolvable,
			wantMsg: `waiting for composite pod group "root" tree to meet quorum`,
		},
		{
			name: "a basic composite needs one ready child",
			cluster: hierarchy{
				pgs:  pgs(pg("a").Gang(2).Parent("root"), pg("b").Gang(2).Parent("root")),
				cpgs: cpgs(cpg("root")), pods: both,
			},
			composite: true,
		},
		{
			name: "nested: the root counts its ready composite children",
			cluster: hierarchy{
				pgs:  pgs(pg("a").Gang(2).Parent("mid"), pg("b").Parent("root")),
				cpgs: cpgs(cpg("root").Gang(2), cpg("mid").Parent("root")), pods: both,
			},
			composite: true,
		},
		{
			name: "nested: a composite child short of its quorum is not ready",
			cluster: hierarchy{
				pgs:  pgs(pg("a").Gang(3).Parent("mid"), pg("b").Parent("root")),
				cpgs: cpgs(cpg("root").Gang(2), cpg("mid").Parent("root")), pods: both,
			},
			composite: true, wantCode: framework.UnschedulableAndUnresolvable,
			wantMsg: `waiting for composite pod group "root" tree to meet quorum`,
		},
		{
			name:      "a PodGroup without parent keeps the gang rule",
			cluster:   hierarchy{pgs: pgs(pg("a").Gang(3)), pods: both},
			composite: true, wantCode: framework.UnschedulableAndUnresolvable, wantMsg: msgAwaitingMinCount,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pl := newPlugin(t, tc.cluster.handle(t, tc.composite))
			got := pl.PreEnqueue(context.Background(), both[0])
			if got.Code() != tc.wantCode || got.Message() != tc.wantMsg {
				t.Errorf("PreEnqueue = %v %q, want %v %q", got.Code(), got.Message(), tc.wantCode, tc.wantMsg)
			}
		})
	}
}

func TestHintsHierarchy(t *testing.T) {
	cluster := hierarchy{
		pgs: []*schedulingv1beta1.PodGroup{
			st.WorkloadGroup("a").Gang(2).Parent("root").Obj(),
			st.WorkloadGroup("b").Parent("root").Obj(),
			st.WorkloadGroup("elsewhere").Obj(),
			st.WorkloadGroup("orphan").Parent("missing").Obj(),
		},
		cpgs: []*schedulingv1alpha3.CompositePodGroup{st.CompositeGroup("root").Obj(), st.CompositeGroup("other").Obj()},
	}
	member := members("a", "a1")[0]
	tests := []struct {
		name      string
		composite bool
		hint      func(pl *GangScheduling) framework.QueueingHintFn
		new       any
		want      framework.QueueingHint
	}{
		{
			name: "a member of a sibling PodGroup arrives", composite: true,
			hint: func(pl *GangScheduling) framework.QueueingHintFn { return pl.isSchedulableAfterMemberAdded },
			new:  members("b", "b1")[0], want: framework.Queue,
		},
		{
			name: "not following parents: a sibling's member is another group's",
			hint: func(pl *GangScheduling) framework.QueueingHintFn { return pl.isSchedulableAfterMemberAdded },
			new:  members("b", "b1")[0], want: framework.QueueSkip,
		},
		{
			name: "a member of another hierarchy arrives", composite: true,
			hint: func(pl *GangScheduling) framework.QueueingHintFn { return pl.isSchedulableAfterMemberAdded },
			new:  members("elsewhere", "e1")[0], want: framework.QueueSkip,
		},
		{
			name: "a member of a PodGroup without root arrives", composite: true,
			hint: func(pl *GangScheduling) framework.QueueingHintFn { return pl.isSchedulableAfterMemberAdded },
			new:  members("orphan", "o1")[0], want: framework.QueueSkip,
		},
		{
			name: "a sibling PodGroup is created", composite: true,
			hint: func(pl *GangScheduling) framework.QueueingHintFn { return pl.isSchedulableAfterGroupAdded },
			new:  cluster.pgs[1], want: framework.Queue,
		},
		{
			name: "the root is created", composite: true,
			hint: func(pl *GangScheduling) framework.QueueingHintFn { return pl.isSchedulableAfterCompositeAdded },
			new:  cluster.cpgs[0], want: framework.Queue,
		},
		{
			name: "another root is created", composite: true,
			hint: func(pl *GangScheduling) framework.QueueingHintFn { return pl.isSchedulableAfterCompositeAdded },
			new:  cluster.cpgs[1], want: framework.QueueSkip,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pl := newPlugin(t, cluster.handle(t, tc.composite))
			got, err := tc.hint(pl)(logr.Discard(), member, nil, tc.new)
			if err != nil || got != tc.want {
				t.Errorf("hint = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

func TestEventsToRegisterHierarchy(t *testing.T) {
	for _, composite := range []bool{false, true} {
		pl := newPlugin(t, hierarchy{}.handle(t, composite))
		events, err := pl.EventsToRegister(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		registered := false
		for _, e := range events {
			if e.Event.Resource == framework.NativeCompositePodGroup {
				registered = true
			}
		}
		if registered != composite {
			t.Errorf("following parents %v: CompositePodGroup/Add registered = %v", composite, registered)
		}
	}
}
