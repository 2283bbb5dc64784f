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
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/extender"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// answerFunc is a test extender's answer to a preempt call: an HTTP status and a body.
type answerFunc func(args extender.PreemptionArgs) (int, any)

// preemptServer is an extender that serves /preempt and records, per
// call, the candidate nodes and their victims it was sent.
type preemptServer struct {
	mu   sync.Mutex
	sent []map[string][]string
}

func newPreemptServer(t *testing.T, answer answerFunc) (*preemptServer, string) {
	t.Helper()
	s := &preemptServer{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/preempt" {
			http.NotFound(w, r)
			return
		}
		var args extender.PreemptionArgs
		if err := json.NewDecoder(r.Body).Decode(&args); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.sent = append(s.sent, sentUIDs(args))
		s.mu.Unlock()
		code, body := answer(args)
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(body)
	}))
	t.Cleanup(srv.Close)
	return s, srv.URL
}

// sentUIDs are the victims' UIDs per node of a request, whichever way they came.
func sentUIDs(args extender.PreemptionArgs) map[string][]string {
	out := map[string][]string{}
	for node, v := range args.NodeNameToVictims {
		for _, p := range v.Pods {
			out[node] = append(out[node], string(p.UID))
		}
	}
	for node, v := range args.NodeNameToMetaVictims {
		for _, p := range v.Pods {
			out[node] = append(out[node], p.UID)
		}
	}
	return out
}

// keep answers with the given victims' UIDs per node.
func keep(victims map[string][]string) answerFunc {
	return func(extender.PreemptionArgs) (int, any) {
		res := extender.PreemptionResult{NodeNameToMetaVictims: map[string]*extender.MetaVictims{}}
		for node, uids := range victims {
			m := &extender.MetaVictims{Pods: []*extender.MetaPod{}}
			for _, u := range uids {
				m.Pods = append(m.Pods, &extender.MetaPod{UID: u})
			}
			res.NodeNameToMetaVictims[node] = m
		}
		return http.StatusOK, res
	}
}

// drop answers with the request's candidates but the node.
func drop(node string) answerFunc {
	return func(args extender.PreemptionArgs) (int, any) {
		kept := sentUIDs(args)
		delete(kept, node)
		return keep(kept)(args)
	}
}

// failWith answers every call with the HTTP status.
func failWith(code int) answerFunc {
	return func(extender.PreemptionArgs) (int, any) { return code, nil }
}

// testExtender is one extender of a test case.
type testExtender struct {
	answer    answerFunc
	nodeCache bool
	ignorable bool
	managed   string // a resource the extender manages; the preemptor uses none
	noPreempt bool   // the extender filters only
}

func TestPostFilterWithExtenders(t *testing.T) {
	// n1 runs a1 and a2 (priority 1), n2 runs b (priority 5): without
	// extenders the preemptor evicts a1 and a2 on n1.
	c := cluster{
		nodes: []*v1.Node{makeNode("n1", "2"), makeNode("n2", "2")},
		pods: []*v1.Pod{
			st.Pod("a1").Priority(1).Container("cpu", "1").NodeName("n1").Obj(),
			st.Pod("a2").Priority(1).Container("cpu", "1").NodeName("n1").Obj(),
			st.Pod("b").Priority(5).Container("cpu", "2").NodeName("n2").Obj(),
		},
	}
	bothSent := map[string][]string{"n1": {"a1-uid", "a2-uid"}, "n2": {"b-uid"}}
	tests := []struct {
		name      string
		extenders []testExtender
		// wantSent is, per extender, the candidates of each call it got.
		wantSent    [][]map[string][]string
		wantNode    string
		wantDeleted []string
		wantCode    framework.Code
		wantMsg     string
	}{
		{
			name:      "an extender without a preempt verb is not asked",
			extenders: []testExtender{{noPreempt: true, answer: failWith(http.StatusInternalServerError)}},
			wantSent:  [][]map[string][]string{nil},
			wantNode:  "n1", wantDeleted: []string{"a1", "a2"}, wantCode: framework.Success,
		},
		{
			name:      "an extender not interested in the pod is not asked",
			extenders: []testExtender{{managed: "example.com/gpu", answer: failWith(http.StatusInternalServerError)}},
			wantSent:  [][]map[string][]string{nil},
			wantNode:  "n1", wantDeleted: []string{"a1", "a2"}, wantCode: framework.Success,
		},
		{
			name:      "an extender that keeps everything changes nothing",
			extenders: []testExtender{{answer: keep(bothSent)}},
			wantSent:  [][]map[string][]string{{bothSent}},
			wantNode:  "n1", wantDeleted: []string{"a1", "a2"}, wantCode: framework.Success,
		},
		{
			name:      "a node the extender drops is not preempted on",
			extenders: []testExtender{{answer: drop("n1")}},
			wantSent:  [][]map[string][]string{{bothSent}},
			wantNode:  "n2", wantDeleted: []string{"b"}, wantCode: framework.Success,
			wantMsg: "preemption: found a potential placement for pod on node n2, preempting 1 victims",
		},
		{
			name:      "the extender's victims replace the dry run's, by UID for a node-caching extender",
			extenders: []testExtender{{nodeCache: true, answer: keep(map[string][]string{"n1": {"a2-uid"}, "n2": {"b-uid"}})}},
			wantSent:  [][]map[string][]string{{bothSent}},
			wantNode:  "n1", wantDeleted: []string{"a2"}, wantCode: framework.Success,
		},
		{
			name: "each extender sees what the one before kept",
			extenders: []testExtender{
				{answer: drop("n1")},
				{nodeCache: true, answer: keep(map[string][]string{"n2": {"b-uid"}})},
			},
			wantSent: [][]map[string][]string{{bothSent}, {{"n2": {"b-uid"}}}},
			wantNode: "n2", wantDeleted: []string{"b"}, wantCode: framework.Success,
		},
		{
			name: "once no node is left no other extender is asked",
			extenders: []testExtender{
				{answer: keep(nil)},
				{answer: failWith(http.StatusInternalServerError)},
			},
			wantSent: [][]map[string][]string{{bothSent}, nil},
			wantCode: framework.Unschedulable, wantMsg: "preemption: no candidate node for preemption",
		},
		{
			name:      "a failing ignorable extender is skipped",
			extenders: []testExtender{{ignorable: true, answer: failWith(http.StatusInternalServerError)}, {answer: drop("n1")}},
			wantSent:  [][]map[string][]string{{bothSent}, {bothSent}},
			wantNode:  "n2", wantDeleted: []string{"b"}, wantCode: framework.Success,
		},
		{
			name:      "a failing extender fails the preemption",
			extenders: []testExtender{{answer: failWith(http.StatusInternalServerError)}},
			wantSent:  [][]map[string][]string{{bothSent}},
			wantCode:  framework.Error, wantMsg: "failed to process preemption",
		},
		{
			name:      "a victim UID that is not on the node fails the preemption",
			extenders: []testExtender{{answer: keep(map[string][]string{"n1": {"b-uid"}})}},
			wantSent:  [][]map[string][]string{{bothSent}},
			wantCode:  framework.Error, wantMsg: `pod UID "b-uid" on node n1, which has no such pod`,
		},
		{
			name:      "a node kept without victims fails the preemption",
			extenders: []testExtender{{answer: keep(map[string][]string{"n1": nil, "n2": {"b-uid"}})}},
			wantSent:  [][]map[string][]string{{bothSent}},
			wantCode:  framework.Error, wantMsg: `expected at least one victim pod on node "n1"`,
		},
		{
			name:      "an ignorable extender only loses a node it kept without victims",
			extenders: []testExtender{{ignorable: true, answer: keep(map[string][]string{"n1": nil, "n2": {"b-uid"}})}},
			wantSent:  [][]map[string][]string{{bothSent}},
			wantNode:  "n2", wantDeleted: []string{"b"}, wantCode: framework.Success,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := c
			c.sync = true
			servers := make([]*preemptServer, len(tt.extenders))
			for i, x := range tt.extenders {
				srv, url := newPreemptServer(t, x.answer)
				servers[i] = srv
				cfg := v1alpha1.Extender{URLPrefix: url, PreemptVerb: "preempt", NodeCacheCapable: x.nodeCache, Ignorable: x.ignorable}
				if x.noPreempt {
					cfg.PreemptVerb, cfg.FilterVerb = "", "filter"
				}
				if x.managed != "" {
					cfg.ManagedResources = []v1alpha1.ExtenderManagedResource{{Name: x.managed}}
				}
				c.extenders = append(c.extenders, cfg)
			}
			pod := st.Pod("big").Priority(100).Container("cpu", "2").Obj()
			c.pods = append(slices.Clone(c.pods), pod)
			e := newEnv(t, c)
			result, status := e.schedule(t, pod)
			if status.Code() != tt.wantCode || !strings.Contains(status.Message(), tt.wantMsg) {
				t.Fatalf("status %v, want code %v with %q", status, tt.wantCode, tt.wantMsg)
			}
			if tt.wantNode != "" {
				if result == nil || result.NominatedNodeName != tt.wantNode {
					t.Errorf("result %+v, want nomination %q", result, tt.wantNode)
				}
			} else if result != nil {
				t.Errorf("result %+v, want none: the nomination is left as it was", result.NominatingInfo)
			}
			if got := e.deleted(); !slices.Equal(got, tt.wantDeleted) {
				t.Errorf("deleted %v, want %v", got, tt.wantDeleted)
			}
			for i, srv := range servers {
				if diff := cmp.Diff(tt.wantSent[i], srv.sent); diff != "" {
					t.Errorf("extender %d was sent (-want +got):\n%s", i, diff)
				}
			}
		})
	}
}

// The extenders' order of candidates is the dry run's, whatever the order of
// the answer's map: ties still go to the candidate found first.
func TestFromVictimsKeepsOrder(t *testing.T) {
	pod := func(name string) *v1.Pod { return st.Pod(name).Obj() }
	candidates := []*candidate{{node: "n3"}, {node: "n1"}, {node: "n2"}}
	victims := map[string]*extender.Victims{
		"n2": {Pods: []*v1.Pod{pod("b")}},
		"n3": {Pods: []*v1.Pod{pod("c")}, NumPDBViolations: 1},
		"n9": {Pods: []*v1.Pod{pod("z")}},
		"n0": {Pods: []*v1.Pod{pod("y")}},
	}
	var got []string
	for _, c := range fromVictims(candidates, victims) {
		got = append(got, fmt.Sprintf("%s:%s:%d", c.node, c.victims[0].Name, c.pdbViolations))
	}
	want := []string{"n3:c:1", "n2:b:0", "n0:y:0", "n9:z:0"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("candidates (-want +got):\n%s", diff)
	}
}
