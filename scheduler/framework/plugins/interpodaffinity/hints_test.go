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

package interpodaffinity

import (
	"context"
	"testing"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestEventsToRegister(t *testing.T) {
	pl := newPlugin(t, "", newHandle(t, st.Serial{}, nil))
	events, err := pl.EventsToRegister(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := map[framework.EventResource]framework.ActionType{
		framework.Pod:            framework.Add | framework.UpdatePodLabel | framework.Delete,
		framework.UnscheduledPod: framework.UpdatePodLabel,
		framework.Node:           framework.Add | framework.UpdateNodeLabel,
	}
	if len(events) != len(want) {
		t.Fatalf("got %d events, want %d", len(events), len(want))
	}
	for _, e := range events {
		if want[e.Event.Resource] != e.Event.ActionType || e.QueueingHintFn == nil {
			t.Errorf("event %s: actions %v, hint set %v", e.Event.Resource, e.Event.ActionType, e.QueueingHintFn != nil)
		}
	}
}

func TestAssignedPodHint(t *testing.T) {
	affine := st.Pod("p").Labels("app", "web").PodAffinity(st.Term(zoneKey, "app", "web")).PodAffinity(st.Term(hostKey, "tier", "fe")).Obj()
	averse := st.Pod("p").Labels("app", "web").PodAntiAffinity(st.Term(zoneKey, "app", "db")).Obj()
	tests := []struct {
		name     string
		pod      *v1.Pod
		old, new any
		want     framework.QueueingHint
	}{
		{"added pod matches all affinity terms", affine, nil, st.Pod("e").Labels("app", "web", "tier", "fe").NodeName("n1").Obj(), framework.Queue},
		{"added pod matches only some affinity terms", affine, nil, st.Pod("e").Labels("app", "web").NodeName("n1").Obj(), framework.QueueSkip},
		{"added pod without node or nomination", affine, nil, st.Pod("e").Labels("app", "web", "tier", "fe").Obj(), framework.QueueSkip},
		{"added nominated pod matches", affine, nil, st.Pod("e").Labels("app", "web", "tier", "fe").Nominated("n1").Obj(), framework.Queue},
		{"added pod and anti-affinity only", averse, nil, st.Pod("e").Labels("app", "db").NodeName("n1").Obj(), framework.QueueSkip},
		{"updated pod starts matching affinity", affine,
			st.Pod("e").Labels("app", "web").NodeName("n1").Obj(), st.Pod("e").Labels("app", "web", "tier", "fe").NodeName("n1").Obj(), framework.Queue},
		{"updated pod already matched affinity", affine,
			st.Pod("e").Labels("app", "web", "tier", "fe", "x", "1").NodeName("n1").Obj(), st.Pod("e").Labels("app", "web", "tier", "fe").NodeName("n1").Obj(), framework.QueueSkip},
		{"updated pod stops matching anti-affinity", averse,
			st.Pod("e").Labels("app", "db").NodeName("n1").Obj(), st.Pod("e").Labels("app", "cache").NodeName("n1").Obj(), framework.Queue},
		{"updated pod starts matching anti-affinity", averse,
			st.Pod("e").Labels("app", "cache").NodeName("n1").Obj(), st.Pod("e").Labels("app", "db").NodeName("n1").Obj(), framework.QueueSkip},
		{"deleted pod matched anti-affinity", averse, st.Pod("e").Labels("app", "db").NodeName("n1").Obj(), nil, framework.Queue},
		{"deleted pod in a tombstone", averse,
			cache.DeletedFinalStateUnknown{Key: "default/e", Obj: st.Pod("e").Labels("app", "db").NodeName("n1").Obj()}, nil, framework.Queue},
		{"deleted pod had anti-affinity to the pod", st.Pod("p").Labels("app", "web").Obj(),
			st.Pod("e").NodeName("n1").PodAntiAffinity(st.Term(hostKey, "app", "web")).Obj(), nil, framework.Queue},
		{"deleted pod unrelated", averse, st.Pod("e").Labels("app", "web").NodeName("n1").Obj(), nil, framework.QueueSkip},
		{"deleted pod matched affinity only", affine, st.Pod("e").Labels("app", "web", "tier", "fe").NodeName("n1").Obj(), nil, framework.QueueSkip},
	}
	pl := newPlugin(t, "", newHandle(t, st.Serial{}, nil))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := pl.isSchedulableAfterAssignedPodChange(logr.Discard(), tt.pod, tt.old, tt.new)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
	if got, err := pl.isSchedulableAfterAssignedPodChange(logr.Discard(), affine, nil, node("n1")); err == nil || got != framework.Queue {
		t.Errorf("wrong object type: got %v, %v; want Queue and an error", got, err)
	}
}

func TestOwnLabelHint(t *testing.T) {
	pod := st.Pod("p").Labels("app", "web").Obj()
	pl := newPlugin(t, "", newHandle(t, st.Serial{}, nil))
	for _, tt := range []struct {
		name string
		new  *v1.Pod
		want framework.QueueingHint
	}{
		{"the pod itself", st.Pod("p").Labels("app", "api").Obj(), framework.Queue},
		{"another pod", st.Pod("q").Labels("app", "api").Obj(), framework.QueueSkip},
	} {
		got, err := pl.isSchedulableAfterOwnLabelChange(logr.Discard(), pod, pod, tt.new)
		if err != nil || got != tt.want {
			t.Errorf("%s: got %v, %v; want %v", tt.name, got, err, tt.want)
		}
	}
}

func TestNodeHint(t *testing.T) {
	affine := st.Pod("p").PodAffinity(st.Term(zoneKey, "app", "web")).Obj()
	averse := st.Pod("p").PodAntiAffinity(st.Term(zoneKey, "app", "db")).Obj()
	plain := st.Pod("p").Labels("app", "web").Obj()
	tests := []struct {
		name     string
		pod      *v1.Pod
		old, new *v1.Node
		want     framework.QueueingHint
	}{
		{"added node with the affinity key", affine, nil, node("n1", zoneKey, "z1"), framework.Queue},
		{"added node without the affinity key", affine, nil, node("n1"), framework.QueueSkip},
		{"node gains the affinity key", affine, node("n1"), node("n1", zoneKey, "z1"), framework.Queue},
		{"node changes the affinity key's value", affine, node("n1", zoneKey, "z1"), node("n1", zoneKey, "z2"), framework.Queue},
		{"node loses the affinity key", affine, node("n1", zoneKey, "z1"), node("n1"), framework.QueueSkip},
		{"unrelated label change", affine, node("n1", zoneKey, "z1"), node("n1", zoneKey, "z1", "x", "y"), framework.QueueSkip},
		{"added node and anti-affinity", averse, nil, node("n1"), framework.Queue},
		{"node loses the anti-affinity key", averse, node("n1", zoneKey, "z1"), node("n1"), framework.Queue},
		{"node changes the anti-affinity key's value", averse, node("n1", zoneKey, "z1"), node("n1", zoneKey, "z2"), framework.Queue},
		{"node gains the anti-affinity key", averse, node("n1"), node("n1", zoneKey, "z1"), framework.QueueSkip},
		{"pod without terms", plain, nil, node("n1", zoneKey, "z1"), framework.QueueSkip},
	}
	pl := newPlugin(t, "", newHandle(t, st.Serial{}, nil))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var old any
			if tt.old != nil {
				old = tt.old
			}
			got, err := pl.isSchedulableAfterNodeChange(logr.Discard(), tt.pod, old, tt.new)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}
