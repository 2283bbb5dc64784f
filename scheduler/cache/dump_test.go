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

package cache

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	testingclock "k8s.io/utils/clock/testing"

	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestCompare(t *testing.T) {
	n1, n2, n3 := cacheNode("n1").Obj(), cacheNode("n2").Obj(), cacheNode("n3").Obj()
	p1 := st.Pod("p1").NodeName("n1").Obj()
	p2 := st.Pod("p2").NodeName("n2").Obj()
	p1OnN2 := st.Pod("p1").NodeName("n2").Obj()
	pending := st.Pod("pending").Obj()
	assumed := st.Pod("assumed").NodeName("n1").Obj()
	assumedUnbound := st.Pod("assumed").Obj()
	tests := []struct {
		name      string
		steps     []step
		nodes     []*v1.Node
		pods      []*v1.Pod
		want      *MismatchError
		wantMatch bool
	}{
		{
			name:      "in sync",
			steps:     []step{addNode(n1), addNode(n2), addPod(p1), addPod(p2)},
			nodes:     []*v1.Node{n1, n2},
			pods:      []*v1.Pod{p1, p2, pending},
			wantMatch: true,
		},
		{
			name:      "assumed pod whose binding is in flight",
			steps:     []step{addNode(n1), assume(assumed)},
			nodes:     []*v1.Node{n1},
			pods:      []*v1.Pod{assumedUnbound},
			wantMatch: true,
		},
		{
			name:  "missing and extra nodes",
			steps: []step{addNode(n1), addNode(n3)},
			nodes: []*v1.Node{n1, n2},
			want:  &MismatchError{MissingNodes: []string{"n2"}, ExtraNodes: []string{"n3"}},
		},
		{
			name:  "placeholder is not a cached node",
			steps: []step{addPod(p1)},
			nodes: []*v1.Node{n1},
			pods:  []*v1.Pod{p1},
			want:  &MismatchError{MissingNodes: []string{"n1"}},
		},
		{
			name:  "missing, extra and misplaced pods",
			steps: []step{addNode(n1), addNode(n2), addPod(p1), addPod(st.Pod("gone").NodeName("n2").Obj())},
			nodes: []*v1.Node{n1, n2},
			pods:  []*v1.Pod{p1OnN2, p2},
			want: &MismatchError{
				MissingPods:   []string{"default/p2"},
				ExtraPods:     []string{"default/gone"},
				MisplacedPods: []string{"default/p1 (cache n1, apiserver n2)"},
			},
		},
		{
			name:  "cached bound pod the apiserver shows pending",
			steps: []step{addNode(n1), addPod(st.Pod("pending").NodeName("n1").Obj())},
			nodes: []*v1.Node{n1},
			pods:  []*v1.Pod{pending},
			want:  &MismatchError{ExtraPods: []string{"default/pending"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(context.Background())
			runSteps(t, c, tt.steps)
			err := Compare(c, tt.nodes, tt.pods)
			if tt.wantMatch {
				if err != nil {
					t.Fatalf("Compare = %v, want nil", err)
				}
				return
			}
			var m *MismatchError
			if !errors.As(err, &m) {
				t.Fatalf("Compare = %v, want a *MismatchError", err)
			}
			for _, f := range []struct {
				what      string
				got, want []string
			}{
				{"missing nodes", m.MissingNodes, tt.want.MissingNodes},
				{"extra nodes", m.ExtraNodes, tt.want.ExtraNodes},
				{"missing pods", m.MissingPods, tt.want.MissingPods},
				{"extra pods", m.ExtraPods, tt.want.ExtraPods},
				{"misplaced pods", m.MisplacedPods, tt.want.MisplacedPods},
			} {
				if !slices.Equal(f.got, f.want) {
					t.Errorf("%s: %v, want %v", f.what, f.got, f.want)
				}
			}
			if m.Error() == "" {
				t.Error("empty error message")
			}
		})
	}
}

func TestDumpAssumedPods(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Unix(0, 0))
	c := New(context.Background(), WithClock(clk), WithAssumedPodTTL(time.Minute))
	l := logr.Discard()
	a, b := st.Pod("a").NodeName("n1").Obj(), st.Pod("b").NodeName("n1").Obj()
	for _, p := range []*v1.Pod{b, a} {
		if err := c.AssumePod(l, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.FinishBinding(l, a); err != nil {
		t.Fatal(err)
	}
	d := c.Dump()
	if len(d.AssumedPods) != 2 || d.AssumedPods[0].Pod != a || d.AssumedPods[1].Pod != b {
		t.Fatalf("assumed pods %+v, want a then b", d.AssumedPods)
	}
	if !d.AssumedPods[0].BindingFinished || !d.AssumedPods[0].Deadline.Equal(time.Unix(60, 0)) {
		t.Fatalf("a: %+v, want binding finished with a deadline one minute on", d.AssumedPods[0])
	}
	if d.AssumedPods[1].BindingFinished || !d.AssumedPods[1].Deadline.IsZero() {
		t.Fatalf("b: %+v, want binding in flight", d.AssumedPods[1])
	}
	d.Nodes["n1"].Pods = nil
	if len(c.Dump().Nodes["n1"].Pods) != 2 {
		t.Fatal("Dump must return copies")
	}
}
