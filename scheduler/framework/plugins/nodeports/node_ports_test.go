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

package nodeports

import (
	"context"
	"testing"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

const (
	tcp = v1.ProtocolTCP
	udp = v1.ProtocolUDP
)

func TestNew(t *testing.T) {
	if _, err := New(context.Background(), nil, nil); err != nil {
		t.Errorf("no args: %v", err)
	}
	if _, err := New(context.Background(), []byte(`{"ports":1}`), nil); err == nil {
		t.Error("unknown field: want error")
	}
}

func TestHostPorts(t *testing.T) {
	p := podWithPorts("p", port("", tcp, 80), v1.ContainerPort{ContainerPort: 9090})
	sidecarPorts(p, true, port("", tcp, 81))
	sidecarPorts(p, false, port("", tcp, 82))
	got := HostPorts(p)
	if len(got) != 2 || got[0].HostPort != 81 || got[1].HostPort != 80 {
		t.Errorf("HostPorts = %+v, want sidecar 81 then container 80", got)
	}
}

func TestPreFilterSkip(t *testing.T) {
	pl := &NodePorts{}
	tests := []struct {
		name     string
		pod      *v1.Pod
		wantSkip bool
	}{
		{"no ports", st.Pod("p").Container().Obj(), true},
		{"container port only", podWithPorts("p", v1.ContainerPort{ContainerPort: 80}), true},
		{"init container host port", sidecarPorts(st.Pod("p").Obj(), false, port("", tcp, 80)), true},
		{"host port", podWithPorts("p", port("", tcp, 80)), false},
		{"sidecar host port", sidecarPorts(st.Pod("p").Obj(), true, port("", tcp, 80)), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, s := pl.PreFilter(context.Background(), framework.NewCycleState(), tt.pod, nil)
			if s.IsSkip() != tt.wantSkip || (!tt.wantSkip && !s.IsSuccess()) {
				t.Errorf("PreFilter = %v, want skip %v", s, tt.wantSkip)
			}
		})
	}
}

func TestFilter(t *testing.T) {
	conflict := framework.NewStatus(framework.Unschedulable, ErrReason)
	tests := []struct {
		name     string
		pod      *v1.Pod
		existing []*v1.Pod
		want     *framework.Status
	}{
		{"empty node", podWithPorts("p", port("", tcp, 80)), nil, nil},
		{"same port taken", podWithPorts("p", port("", tcp, 80)), []*v1.Pod{onNode(podWithPorts("q", port("", tcp, 80)))}, conflict},
		{"other protocol", podWithPorts("p", port("", udp, 80)), []*v1.Pod{onNode(podWithPorts("q", port("", tcp, 80)))}, nil},
		{"other port", podWithPorts("p", port("", tcp, 81)), []*v1.Pod{onNode(podWithPorts("q", port("", tcp, 80)))}, nil},
		{"other specific IPs", podWithPorts("p", port("10.0.0.1", tcp, 80)),
			[]*v1.Pod{onNode(podWithPorts("q", port("10.0.0.2", tcp, 80)))}, nil},
		{"same specific IP", podWithPorts("p", port("10.0.0.1", tcp, 80)),
			[]*v1.Pod{onNode(podWithPorts("q", port("10.0.0.1", tcp, 80)))}, conflict},
		{"wildcard wanted, specific taken", podWithPorts("p", port("0.0.0.0", tcp, 80)),
			[]*v1.Pod{onNode(podWithPorts("q", port("10.0.0.1", tcp, 80)))}, conflict},
		{"specific wanted, wildcard taken", podWithPorts("p", port("10.0.0.1", tcp, 80)),
			[]*v1.Pod{onNode(podWithPorts("q", port("", tcp, 80)))}, conflict},
		{"second of two ports taken", podWithPorts("p", port("", tcp, 80), port("", udp, 53)),
			[]*v1.Pod{onNode(podWithPorts("q", port("", udp, 53)))}, conflict},
		{"empty protocol means TCP", podWithPorts("p", port("", "", 80)), []*v1.Pod{onNode(podWithPorts("q", port("", tcp, 80)))}, conflict},
	}
	pl := &NodePorts{}
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state := framework.NewCycleState()
			if _, s := pl.PreFilter(ctx, state, tt.pod, nil); !s.IsSuccess() {
				t.Fatalf("PreFilter = %v", s)
			}
			ni := st.NodeInfo(st.Node("n").Obj(), tt.existing...)
			if got := pl.Filter(ctx, state, tt.pod, ni); !got.Equal(tt.want) {
				t.Errorf("Filter = %v, want %v", got, tt.want)
			}
			if Fits(tt.pod, ni) != tt.want.IsSuccess() {
				t.Errorf("Fits disagrees with Filter")
			}
		})
	}
	if s := pl.Filter(ctx, framework.NewCycleState(), podWithPorts("p"), st.NodeInfo(st.Node("n").Obj())); s.Code() != framework.Error {
		t.Errorf("Filter without PreFilter = %v, want Error", s)
	}
}

func TestQueueingHints(t *testing.T) {
	pl := &NodePorts{}
	evs, _ := pl.EventsToRegister(context.Background())
	if len(evs) != 2 || evs[0].Event != (framework.ClusterEvent{Resource: framework.Pod, ActionType: framework.Delete}) ||
		evs[1].Event != (framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add}) || evs[1].QueueingHintFn != nil {
		t.Fatalf("events = %+v", evs)
	}
	hint := evs[0].QueueingHintFn
	p := podWithPorts("p", port("", tcp, 80))
	nominated := podWithPorts("q", port("", tcp, 80))
	nominated.Status.NominatedNodeName = "n"
	tests := []struct {
		name    string
		deleted any
		want    framework.QueueingHint
	}{
		{"assigned pod with the port", onNode(podWithPorts("q", port("", tcp, 80))), framework.Queue},
		{"nominated pod with the port", nominated, framework.Queue},
		{"unassigned pod with the port", podWithPorts("q", port("", tcp, 80)), framework.QueueSkip},
		{"assigned pod with another port", onNode(podWithPorts("q", port("", tcp, 81))), framework.QueueSkip},
		{"assigned pod without ports", onNode(podWithPorts("q")), framework.QueueSkip},
		{"wrong type", st.Node("n").Obj(), framework.Queue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := hint(logr.Discard(), p, tt.deleted, nil)
			if got != tt.want {
				t.Errorf("hint = %v, want %v", got, tt.want)
			}
		})
	}
}

func BenchmarkFilter(b *testing.B) {
	pl := &NodePorts{}
	p := podWithPorts("p", port("", tcp, 80), port("", udp, 53))
	ni := st.NodeInfo(st.Node("n").Obj(), onNode(podWithPorts("q", port("10.0.0.1", tcp, 81))), onNode(podWithPorts("r", port("", tcp, 443))))
	ctx, state := context.Background(), framework.NewCycleState()
	pl.PreFilter(ctx, state, p, nil)
	b.ReportAllocs()
	for b.Loop() {
		if s := pl.Filter(ctx, state, p, ni); !s.IsSuccess() {
			b.Fatal(s)
		}
	}
}
