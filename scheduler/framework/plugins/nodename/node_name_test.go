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

package nodename

import (
	"context"
	"testing"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestFilter(t *testing.T) {
	tests := []struct {
		name string
		pod  *v1.Pod
		ni   *framework.NodeInfo
		want framework.Code
	}{
		{"no node name", st.Pod("p").Obj(), st.NodeInfo(st.Node("n1").Obj()), framework.Success},
		{"matching", st.Pod("p").NodeName("n1").Obj(), st.NodeInfo(st.Node("n1").Obj()), framework.Success},
		{"other node", st.Pod("p").NodeName("n2").Obj(), st.NodeInfo(st.Node("n1").Obj()), framework.UnschedulableAndUnresolvable},
		{"no node object", st.Pod("p").Obj(), st.NodeInfo(nil), framework.Error},
	}
	pl := &NodeName{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := pl.Filter(context.Background(), framework.NewCycleState(), tt.pod, tt.ni)
			if got.Code() != tt.want {
				t.Fatalf("Filter = %v, want code %v", got, tt.want)
			}
			if tt.want == framework.UnschedulableAndUnresolvable && got.Message() != ErrReason {
				t.Errorf("reason = %q", got.Message())
			}
		})
	}
}

func TestPreFilter(t *testing.T) {
	pl := &NodeName{}
	res, status := pl.PreFilter(context.Background(), framework.NewCycleState(), st.Pod("p").Obj(), nil)
	if !status.IsSkip() || !res.AllNodes() {
		t.Errorf("no node name: result %v, status %v, want every node and Skip", res, status)
	}
	res, status = pl.PreFilter(context.Background(), framework.NewCycleState(), st.Pod("p").NodeName("n1").Obj(), nil)
	if !status.IsSuccess() || res.AllNodes() || !res.NodeNames.Equal(sets.New("n1")) {
		t.Errorf("node name: result %v, status %v", res, status)
	}
}

func TestQueueingHint(t *testing.T) {
	pl := &NodeName{}
	evs, _ := pl.EventsToRegister(context.Background())
	if len(evs) != 1 || evs[0].Event.Resource != framework.Node || evs[0].Event.ActionType != framework.Add {
		t.Fatalf("events = %+v", evs)
	}
	pod := st.Pod("p").NodeName("n1").Obj()
	tests := []struct {
		name string
		node *v1.Node
		want framework.QueueingHint
	}{
		{"requested node added", st.Node("n1").Obj(), framework.Queue},
		{"other node added", st.Node("n2").Obj(), framework.QueueSkip},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := evs[0].QueueingHintFn(logr.Discard(), pod, nil, tt.node)
			if err != nil || got != tt.want {
				t.Errorf("hint = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}
