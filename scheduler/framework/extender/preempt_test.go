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

package extender

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"

	st "github.com/berth-io/berth/scheduler/schedtest"
)

// meta is the MetaVictims of the UIDs, as an extender writes them.
func meta(pdbViolations int64, uids ...string) *MetaVictims {
	m := &MetaVictims{Pods: []*MetaPod{}, NumPDBViolations: pdbViolations}
	for _, u := range uids {
		m.Pods = append(m.Pods, &MetaPod{UID: u})
	}
	return m
}

// victimNames describes victims by pod name and violations, for comparisons.
func victimNames(victims map[string]*Victims) map[string]string {
	out := make(map[string]string, len(victims))
	for node, v := range victims {
		names := make([]string, 0, len(v.Pods))
		for _, p := range v.Pods {
			names = append(names, p.Name)
		}
		out[node] = fmt.Sprintf("%s/%d", strings.Join(names, ","), v.NumPDBViolations)
	}
	return out
}

func TestProcessPreemption(t *testing.T) {
	// n1 runs a and b, n2 runs c, n3 runs d; the candidates are n1 and n2.
	pods := map[string]*v1.Pod{}
	for name, node := range map[string]string{"a": "n1", "b": "n1", "c": "n2", "d": "n3"} {
		pods[name] = st.Pod(name).NodeName(node).Obj()
	}
	nodes := st.NodeInfos([]*v1.Node{st.Node("n1").Obj(), st.Node("n2").Obj(), st.Node("n3").Obj()},
		pods["a"], pods["b"], pods["c"], pods["d"])
	candidates := func() map[string]*Victims {
		return map[string]*Victims{
			"n1": {Pods: []*v1.Pod{pods["a"], pods["b"]}, NumPDBViolations: 1},
			"n2": {Pods: []*v1.Pod{pods["c"]}},
		}
	}
	tests := []struct {
		name      string
		nodeCache bool
		code      int
		answer    any
		// want describes the kept victims as victimNames does.
		want    map[string]string
		wantErr string
	}{
		{
			name: "full pods: victims narrowed on one node, the other dropped", code: 200,
			answer: PreemptionResult{NodeNameToMetaVictims: map[string]*MetaVictims{"n1": meta(0, "b-uid")}},
			want:   map[string]string{"n1": "b/0"},
		},
		{
			name: "node cache: UIDs both ways, a node removed", nodeCache: true, code: 200,
			answer: PreemptionResult{NodeNameToMetaVictims: map[string]*MetaVictims{"n2": meta(0, "c-uid")}},
			want:   map[string]string{"n2": "c/0"},
		},
		{
			name: "all kept, the extender's violation count wins", nodeCache: true, code: 200,
			answer: PreemptionResult{NodeNameToMetaVictims: map[string]*MetaVictims{"n1": meta(2, "a-uid", "b-uid"), "n2": meta(0, "c-uid")}},
			want:   map[string]string{"n1": "a,b/2", "n2": "c/0"},
		},
		{
			name: "a node that was no candidate is taken from the snapshot, as upstream", code: 200,
			answer: PreemptionResult{NodeNameToMetaVictims: map[string]*MetaVictims{"n3": meta(0, "d-uid")}},
			want:   map[string]string{"n3": "d/0"},
		},
		{
			name: "no node left", code: 200, answer: PreemptionResult{},
			want: map[string]string{},
		},
		{
			name: "a null entry keeps the node without victims", code: 200,
			answer: map[string]any{"NodeNameToMetaVictims": map[string]any{"n2": nil}},
			want:   map[string]string{"n2": "/0"},
		},
		{
			name: "unknown UID on the node", nodeCache: true, code: 200,
			answer:  PreemptionResult{NodeNameToMetaVictims: map[string]*MetaVictims{"n1": meta(0, "c-uid")}},
			wantErr: `pod UID "c-uid" on node n1, which has no such pod`,
		},
		{
			name: "unknown node", code: 200,
			answer:  PreemptionResult{NodeNameToMetaVictims: map[string]*MetaVictims{"gone": meta(0, "a-uid")}},
			wantErr: `the answer names node "gone"`,
		},
		{name: "http error", code: 500, wantErr: "HTTP 500"},
		{name: "not JSON", code: 200, answer: "victims", wantErr: "decoding the preempt answer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, "preempt", func(map[string]json.RawMessage) (int, any) { return tt.code, tt.answer })
			b := makeCfg(srv.URL).preempt()
			if tt.nodeCache {
				b.nodeCache()
			}
			e, err := New(b.obj())
			if err != nil {
				t.Fatal(err)
			}
			in := candidates()
			got, err := e.ProcessPreemption(context.Background(), st.Pod("p").Obj(), in, st.NewLister(nodes...))
			checkPreemptRequest(t, srv.bodies, tt.nodeCache)
			if diff := cmp.Diff(map[string]string{"n1": "a,b/1", "n2": "c/0"}, victimNames(in)); diff != "" {
				t.Errorf("the request's victims changed (-want +got):\n%s", diff)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), e.Name()) {
					t.Fatalf("error %v, want one naming the extender and %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, victimNames(got)); diff != "" {
				t.Errorf("victims (-want +got):\n%s", diff)
			}
			for node, v := range got {
				for _, p := range v.Pods {
					if p != pods[p.Name] {
						t.Errorf("victim %s on %s is not the snapshot's pod", p.Name, node)
					}
				}
			}
		})
	}
}

// checkPreemptRequest checks the one preempt call's body: upstream's field
// names, the pod, and the candidates as full pods or as UIDs, with the
// other map null.
func checkPreemptRequest(t *testing.T, bodies []map[string]json.RawMessage, nodeCache bool) {
	t.Helper()
	if len(bodies) != 1 {
		t.Fatalf("%d preempt calls, want 1", len(bodies))
	}
	body := bodies[0]
	if diff := cmp.Diff([]string{"NodeNameToMetaVictims", "NodeNameToVictims", "Pod"}, keys(body)); diff != "" {
		t.Fatalf("request fields (-want +got):\n%s", diff)
	}
	var args PreemptionArgs
	raw, _ := json.Marshal(body)
	if err := json.Unmarshal(raw, &args); err != nil {
		t.Fatal(err)
	}
	if args.Pod == nil || args.Pod.Name != "p" {
		t.Errorf("request pod %v, want p", args.Pod)
	}
	if nodeCache {
		if string(body["NodeNameToVictims"]) != "null" {
			t.Errorf("NodeNameToVictims = %s, want null for an extender that caches nodes", body["NodeNameToVictims"])
		}
		got := map[string]*MetaVictims{}
		maps.Copy(got, args.NodeNameToMetaVictims)
		want := map[string]*MetaVictims{"n1": meta(1, "a-uid", "b-uid"), "n2": meta(0, "c-uid")}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("NodeNameToMetaVictims (-want +got):\n%s", diff)
		}
		return
	}
	if string(body["NodeNameToMetaVictims"]) != "null" {
		t.Errorf("NodeNameToMetaVictims = %s, want null for an extender that does not cache nodes", body["NodeNameToMetaVictims"])
	}
	if diff := cmp.Diff(map[string]string{"n1": "a,b/1", "n2": "c/0"}, victimNames(args.NodeNameToVictims)); diff != "" {
		t.Errorf("NodeNameToVictims (-want +got):\n%s", diff)
	}
	if p := args.NodeNameToVictims["n1"].Pods[0]; p.Spec.NodeName != "n1" || p.UID != "a-uid" {
		t.Errorf("victims are not sent as full pods: %+v", p)
	}
}

func TestProcessPreemptionWithoutVerb(t *testing.T) {
	e, err := New(makeCfg("http://x").filter().obj())
	if err != nil {
		t.Fatal(err)
	}
	if e.SupportsPreemption() {
		t.Fatal("an extender without preemptVerb supports preemption")
	}
	if _, err := e.ProcessPreemption(context.Background(), st.Pod("p").Obj(), nil, st.NewLister()); err == nil {
		t.Fatal("want an error from an extender without a preempt verb")
	}
}
