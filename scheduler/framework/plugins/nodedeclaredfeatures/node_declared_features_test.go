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

package nodedeclaredfeatures

import (
	"context"
	"testing"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

const hostNetworkUserNS = "UserNamespacesHostNetworkSupport"

// hostNetworkInUserNS is a pod that needs UserNamespacesHostNetworkSupport.
func hostNetworkInUserNS(name string) *v1.Pod {
	pod := st.Pod(name).UID(name).Obj()
	pod.Spec.HostNetwork = true
	pod.Spec.HostUsers = ptr.To(false)
	return pod
}

func declaring(name string, features ...string) *v1.Node {
	node := st.Node(name).Obj()
	node.Status.DeclaredFeatures = features
	return node
}

func newPlugin(t *testing.T) *NodeDeclaredFeatures {
	t.Helper()
	pl, err := New(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return pl.(*NodeDeclaredFeatures)
}

func TestPreFilterAndFilter(t *testing.T) {
	tests := []struct {
		name          string
		pod           *v1.Pod
		node          *v1.Node
		wantPreFilter framework.Code
		wantFilter    framework.Code
	}{
		{name: "a pod needing nothing is skipped", pod: st.Pod("p").Obj(), node: declaring("n"), wantPreFilter: framework.Skip},
		{name: "node declares the feature", pod: hostNetworkInUserNS("p"), node: declaring("n", "Other", hostNetworkUserNS), wantFilter: framework.Success},
		{name: "node declares nothing", pod: hostNetworkInUserNS("p"), node: declaring("n"), wantFilter: framework.UnschedulableAndUnresolvable},
		{name: "node declares other features", pod: hostNetworkInUserNS("p"), node: declaring("n", "SomethingElse"), wantFilter: framework.UnschedulableAndUnresolvable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl := newPlugin(t)
			state := framework.NewCycleState()
			_, status := pl.PreFilter(context.Background(), state, tt.pod, nil)
			if status.Code() != tt.wantPreFilter {
				t.Fatalf("PreFilter code = %v, want %v (%v)", status.Code(), tt.wantPreFilter, status)
			}
			if tt.wantPreFilter == framework.Skip {
				return
			}
			status = pl.Filter(context.Background(), state, tt.pod, st.NodeInfo(tt.node))
			if status.Code() != tt.wantFilter {
				t.Fatalf("Filter code = %v, want %v (%v)", status.Code(), tt.wantFilter, status)
			}
			if tt.wantFilter != framework.Success && status.Message() != ErrReason {
				t.Errorf("Filter message = %q, want %q", status.Message(), ErrReason)
			}
		})
	}
}

func TestFilterWithoutPreFilterIsAnError(t *testing.T) {
	status := newPlugin(t).Filter(context.Background(), framework.NewCycleState(), hostNetworkInUserNS("p"), st.NodeInfo(declaring("n")))
	if status.Code() != framework.Error {
		t.Fatalf("code = %v, want Error", status.Code())
	}
}

func TestQueueingHints(t *testing.T) {
	pod := hostNetworkInUserNS("p")
	plainPod := st.Pod("p").UID("p").Obj()
	tests := []struct {
		name   string
		hint   func(*NodeDeclaredFeatures) framework.QueueingHintFn
		oldObj any
		newObj any
		want   framework.QueueingHint
	}{
		{name: "node added", hint: nodeHint, newObj: declaring("n"), want: framework.Queue},
		{name: "node declares a new feature", hint: nodeHint, oldObj: declaring("n"), newObj: declaring("n", hostNetworkUserNS), want: framework.Queue},
		{name: "node update without feature change", hint: nodeHint, oldObj: declaring("n", "A"), newObj: declaring("n", "A"), want: framework.QueueSkip},
		{name: "pod stops needing the feature", hint: podHint, oldObj: pod, newObj: plainPod, want: framework.Queue},
		{name: "pod update with the same needs", hint: podHint, oldObj: pod, newObj: hostNetworkInUserNS("p"), want: framework.QueueSkip},
		{name: "another pod's update", hint: podHint, oldObj: st.Pod("q").UID("q").Obj(), newObj: st.Pod("q").UID("q").Obj(), want: framework.QueueSkip},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.hint(newPlugin(t))(logr.Discard(), pod, tt.oldObj, tt.newObj)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("hint = %v, want %v", got, tt.want)
			}
		})
	}
}

func nodeHint(pl *NodeDeclaredFeatures) framework.QueueingHintFn {
	return pl.isSchedulableAfterNodeChange
}
func podHint(pl *NodeDeclaredFeatures) framework.QueueingHintFn {
	return pl.isSchedulableAfterPodUpdate
}
