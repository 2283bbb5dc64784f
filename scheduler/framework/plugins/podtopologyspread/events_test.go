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

package podtopologyspread

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
	pl := newPlugin(t, nil, newHandle(t, nil))
	events, err := pl.EventsToRegister(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := map[framework.EventResource]framework.ActionType{
		framework.Pod:            framework.Add | framework.UpdatePodLabel | framework.Delete,
		framework.UnscheduledPod: framework.UpdatePodLabel | framework.UpdatePodToleration,
		framework.Node:           framework.Add | framework.Delete | framework.UpdateNodeLabel | framework.UpdateNodeTaint,
	}
	if len(events) != len(want) {
		t.Fatalf("events = %v", events)
	}
	for _, e := range events {
		if want[e.Event.Resource] != e.Event.ActionType || e.QueueingHintFn == nil {
			t.Errorf("event %s: actions %v, want %v", e.Event.Resource, e.Event.ActionType, want[e.Event.Resource])
		}
	}
}

func TestAssignedPodHint(t *testing.T) {
	p := st.Pod("p").Labels("app", "web").Spread(1, zoneKey, hard, match("app", "web")).Obj()
	web := func(name string) *st.PodBuilder { return st.Pod(name).Labels("app", "web").NodeName("n1") }
	tests := []struct {
		name     string
		old, new any
		want     framework.QueueingHint
		wantErr  bool
	}{
		{name: "selected pod added", new: web("q").Obj(), want: framework.Queue},
		{name: "selected pod nominated", new: st.Pod("q").Labels("app", "web").Nominated("n1").Obj(), want: framework.Queue},
		{name: "unselected pod added", new: st.Pod("q").Labels("app", "db").NodeName("n1").Obj(), want: framework.QueueSkip},
		{name: "pod in another namespace", new: web("q").Namespace("other").Obj(), want: framework.QueueSkip},
		{name: "unassigned pod", new: st.Pod("q").Labels("app", "web").Obj(), want: framework.QueueSkip},
		{name: "selected pod deleted", old: web("q").Obj(), want: framework.Queue},
		{name: "selected pod deleted, tombstone", old: cache.DeletedFinalStateUnknown{Obj: web("q").Obj()}, want: framework.Queue},
		{name: "unselected pod deleted", old: st.Pod("q").Labels("app", "db").NodeName("n1").Obj(), want: framework.QueueSkip},
		{name: "label update makes it selected", old: st.Pod("q").Labels("app", "db").NodeName("n1").Obj(), new: web("q").Obj(), want: framework.Queue},
		{name: "label update makes it unselected", old: web("q").Obj(), new: st.Pod("q").Labels("app", "db").NodeName("n1").Obj(), want: framework.Queue},
		{name: "label update that changes nothing", old: web("q").Obj(), new: web("q").Labels("app", "web", "x", "y").Obj(), want: framework.QueueSkip},
		{name: "wrong type", new: &v1.Node{}, want: framework.Queue, wantErr: true},
	}
	pl := newPlugin(t, nil, newHandle(t, nil))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := pl.isSchedulableAfterAssignedPodChange(logr.Discard(), p, tt.old, tt.new)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("hint = %v, %v; want %v (error %v)", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestOwnPodHint(t *testing.T) {
	sel := match("app", "web")
	ignoring := st.Pod("p").Labels("app", "web").Spread(1, zoneKey, hard, sel).Obj()
	honoring := st.Pod("p").Labels("app", "web").Spread(1, zoneKey, hard, sel).NodeTaintsPolicy(honor).Obj()
	tolerant := func(base *v1.Pod) *v1.Pod {
		c := base.DeepCopy()
		c.Spec.Tolerations = append(c.Spec.Tolerations, v1.Toleration{Key: "gpu", Operator: v1.TolerationOpExists})
		return c
	}
	relabelled := func(base *v1.Pod, pairs ...string) *v1.Pod {
		c := base.DeepCopy()
		c.Labels = kv(pairs...)
		return c
	}
	tests := []struct {
		name     string
		pod      *v1.Pod
		old, new *v1.Pod
		want     framework.QueueingHint
	}{
		{"new toleration with Honor", honoring, honoring, tolerant(honoring), framework.Queue},
		{"new toleration with Ignore", ignoring, ignoring, tolerant(ignoring), framework.QueueSkip},
		{"labels now unselected", ignoring, ignoring, relabelled(ignoring, "app", "db"), framework.Queue},
		{"unrelated label", ignoring, ignoring, relabelled(ignoring, "app", "web", "x", "y"), framework.QueueSkip},
		{"another pod", ignoring, st.Pod("q").Obj(), relabelled(st.Pod("q").Obj(), "app", "web"), framework.QueueSkip},
	}
	pl := newPlugin(t, nil, newHandle(t, nil))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := pl.isSchedulableAfterOwnPodChange(logr.Discard(), tt.pod, tt.old, tt.new)
			if err != nil || got != tt.want {
				t.Errorf("hint = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestNodeHint(t *testing.T) {
	p := st.Pod("p").Labels("app", "web").Spread(1, zoneKey, hard, match("app", "web")).Obj()
	bare := node("n1", hostKey, "n1")
	inA := zoned("n1", "a")
	inB := zoned("n1", "b")
	inAExtra := node("n1", hostKey, "n1", zoneKey, "a", "extra", "1")
	tests := []struct {
		name     string
		old, new any
		want     framework.QueueingHint
	}{
		{name: "node with the key added", new: inA, want: framework.Queue},
		{name: "node without the key added", new: bare, want: framework.QueueSkip},
		{name: "node with the key deleted", old: inA, want: framework.Queue},
		{name: "node without the key deleted", old: bare, want: framework.QueueSkip},
		{name: "key gained", old: bare, new: inA, want: framework.Queue},
		{name: "key lost", old: inA, new: bare, want: framework.Queue},
		{name: "zone changed", old: inA, new: inB, want: framework.Queue},
		{name: "unrelated label", old: inA, new: inAExtra, want: framework.QueueSkip},
		{name: "taint on a node with the key", old: inA, new: tainted(zoned("n1", "a"), "gpu"), want: framework.Queue},
		{name: "taint on a node without the key", old: bare, new: tainted(node("n1", hostKey, "n1"), "gpu"), want: framework.QueueSkip},
	}
	pl := newPlugin(t, nil, newHandle(t, nil))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := pl.isSchedulableAfterNodeChange(logr.Discard(), p, tt.old, tt.new)
			if err != nil || got != tt.want {
				t.Errorf("hint = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestHintsUseDefaultConstraints(t *testing.T) {
	// With hard List defaults, an owned pod's hints follow the owner's selector.
	h := newHandle(t, nil, replicaSet("rs", "app", "web"))
	pl := newPlugin(t, listArgs(spread(1, zoneKey, hard)), h)
	p := st.Pod("p").Labels("app", "web").Owner("apps/v1", "ReplicaSet", "rs").Obj()
	got, err := pl.isSchedulableAfterAssignedPodChange(logr.Discard(), p, nil, st.Pod("q").Labels("app", "web").NodeName("n").Obj())
	if err != nil || got != framework.Queue {
		t.Errorf("selected pod: %v, %v", got, err)
	}
	got, err = pl.isSchedulableAfterAssignedPodChange(logr.Discard(), p, nil, st.Pod("q").Labels("app", "db").NodeName("n").Obj())
	if err != nil || got != framework.QueueSkip {
		t.Errorf("unselected pod: %v, %v", got, err)
	}
}
