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
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-io/berth/api/v1alpha1"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestNewValidates(t *testing.T) {
	tests := []struct {
		name    string
		cfg     v1alpha1.Extender
		wantErr string
	}{
		{name: "ok", cfg: makeCfg("http://x").filter().prioritize(2).obj()},
		{name: "no url", cfg: v1alpha1.Extender{FilterVerb: "f"}, wantErr: "urlPrefix"},
		{name: "prioritize without weight", cfg: makeCfg("http://x").prioritize(0).obj(), wantErr: "weight"},
		{name: "bad ca", cfg: v1alpha1.Extender{URLPrefix: "https://x", EnableHTTPS: true,
			TLSConfig: &v1alpha1.ExtenderTLSConfig{CAData: []byte("junk")}}, wantErr: "caData"},
		{name: "bad client cert", cfg: v1alpha1.Extender{URLPrefix: "https://x", EnableHTTPS: true,
			TLSConfig: &v1alpha1.ExtenderTLSConfig{CertData: []byte("junk")}}, wantErr: "client certificate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.cfg)
			if tt.wantErr == "" && err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestIsInterested(t *testing.T) {
	tests := []struct {
		name    string
		managed []string
		pod     *st.PodBuilder
		want    bool
	}{
		{name: "no managed resources: every pod", pod: st.Pod("p"), want: true},
		{name: "request of a managed resource", managed: []string{"example.com/gpu"}, pod: st.Pod("p").Req("example.com/gpu", "1"), want: true},
		{name: "init container limit", managed: []string{"example.com/gpu"}, pod: st.Pod("p").InitLimit("example.com/gpu", "1"), want: true},
		{name: "other resources only", managed: []string{"example.com/gpu"}, pod: st.Pod("p").Req("cpu", "1"), want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := New(makeCfg("http://x").filter().managed(tt.managed...).obj())
			if err != nil {
				t.Fatal(err)
			}
			if got := e.IsInterested(tt.pod.Obj()); got != tt.want {
				t.Fatalf("IsInterested = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestFilter(t *testing.T) {
	tests := []struct {
		name          string
		nodeCache     bool
		code          int
		answer        FilterResult
		wantNodes     []string
		wantFailed    map[string]string
		wantUnresolve map[string]string
		wantErr       string
		wantSentKey   string
	}{
		{
			name: "full nodes: an answer without nodes passes none", code: 200, wantSentKey: "Nodes",
			answer:     FilterResult{NodeNames: nil, FailedNodes: map[string]string{"n1": "no gpu"}},
			wantFailed: map[string]string{"n1": "no gpu"},
		},
		{
			name: "node cache: names only", nodeCache: true, code: 200, wantSentKey: "NodeNames",
			answer:        FilterResult{NodeNames: &[]string{"n3", "n2", "unknown"}, FailedAndUnresolvableNodes: map[string]string{"n1": "gone"}},
			wantNodes:     []string{"n3", "n2"},
			wantUnresolve: map[string]string{"n1": "gone"},
		},
		{name: "error field", code: 200, answer: FilterResult{Error: "boom"}, wantErr: "filter: boom", wantSentKey: "Nodes"},
		{name: "http error", code: 500, wantErr: "HTTP 500", wantSentKey: "Nodes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, "filter", func(map[string]json.RawMessage) (int, any) { return tt.code, tt.answer })
			b := makeCfg(srv.URL).filter()
			if tt.nodeCache {
				b.nodeCache()
			}
			e, err := New(b.obj())
			if err != nil {
				t.Fatal(err)
			}
			feasible, failed, unresolvable, err := e.Filter(context.Background(), st.Pod("p").Obj(), st.NamedNodeInfos("n1", "n2", "n3"))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), e.Name()) {
					t.Fatalf("error %v, want one naming the extender and %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := names(feasible); !slices.Equal(got, tt.wantNodes) {
				t.Errorf("feasible = %v, want %v", got, tt.wantNodes)
			}
			if len(failed) != len(tt.wantFailed) || failed["n1"] != tt.wantFailed["n1"] {
				t.Errorf("failed = %v, want %v", failed, tt.wantFailed)
			}
			if len(unresolvable) != len(tt.wantUnresolve) || unresolvable["n1"] != tt.wantUnresolve["n1"] {
				t.Errorf("unresolvable = %v, want %v", unresolvable, tt.wantUnresolve)
			}
			body := srv.bodies[0]
			if _, ok := body[tt.wantSentKey]; !ok {
				t.Errorf("request %v lacks %s", keys(body), tt.wantSentKey)
			}
			if _, ok := body["Pod"]; !ok {
				t.Errorf("request lacks Pod")
			}
		})
	}
}

func TestFilterFullNodesAnswer(t *testing.T) {
	srv := newServer(t, "filter", func(body map[string]json.RawMessage) (int, any) {
		// Echo back all but the first node.
		var list struct{ Items []json.RawMessage }
		_ = json.Unmarshal(body["Nodes"], &list)
		return 200, map[string]any{"Nodes": map[string]any{"items": list.Items[1:]}}
	})
	e, err := New(makeCfg(srv.URL).filter().obj())
	if err != nil {
		t.Fatal(err)
	}
	in := st.NamedNodeInfos("n1", "n2", "n3")
	feasible, _, _, err := e.Filter(context.Background(), st.Pod("p").Obj(), in)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(feasible); !slices.Equal(got, []string{"n2", "n3"}) {
		t.Fatalf("feasible = %v", got)
	}
	if feasible[0] != in[1] {
		t.Fatalf("Filter must return the caller's NodeInfos")
	}
}

func TestFilterTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	cfg := makeCfg(srv.URL).filter().obj()
	cfg.HTTPTimeout = &metav1.Duration{Duration: 50 * time.Millisecond}
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, _, _, err = e.Filter(context.Background(), st.Pod("p").Obj(), st.NamedNodeInfos("n1"))
	if err == nil {
		t.Fatal("want a timeout error")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("timeout took %v", d)
	}
}

func TestPrioritize(t *testing.T) {
	srv := newServer(t, "prioritize", func(map[string]json.RawMessage) (int, any) {
		return 200, HostPriorityList{{Host: "n1", Score: 3}, {Host: "n2", Score: 10}}
	})
	e, err := New(makeCfg(srv.URL).prioritize(4).nodeCache().obj())
	if err != nil {
		t.Fatal(err)
	}
	list, weight, err := e.Prioritize(context.Background(), st.Pod("p").Obj(), st.NamedNodeInfos("n1", "n2"))
	if err != nil {
		t.Fatal(err)
	}
	if weight != 4 || len(list) != 2 || list[1] != (HostPriority{Host: "n2", Score: 10}) {
		t.Fatalf("got %v weight %d", list, weight)
	}
	var sent []string
	if err := json.Unmarshal(srv.bodies[0]["NodeNames"], &sent); err != nil || !slices.Equal(sent, []string{"n1", "n2"}) {
		t.Fatalf("sent names %v (%v)", sent, err)
	}
}

func TestBind(t *testing.T) {
	tests := []struct {
		name    string
		answer  BindingResult
		wantErr string
	}{
		{name: "bound"},
		{name: "refused", answer: BindingResult{Error: "no"}, wantErr: "bind: no"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t, "bind", func(map[string]json.RawMessage) (int, any) { return 200, tt.answer })
			e, err := New(makeCfg(srv.URL).bind().obj())
			if err != nil {
				t.Fatal(err)
			}
			err = e.Bind(context.Background(), st.Pod("p").Namespace("ns").Obj(), "n7")
			if (err != nil) != (tt.wantErr != "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("error %v, want %q", err, tt.wantErr)
			}
			var got BindingArgs
			raw, _ := json.Marshal(srv.bodies[0])
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatal(err)
			}
			if got.PodName != "p" || got.PodNamespace != "ns" || got.Node != "n7" || got.PodUID == "" {
				t.Fatalf("binding args %+v", got)
			}
		})
	}
}

func TestHTTPSWithCA(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(BindingResult{})
	}))
	t.Cleanup(srv.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	tests := []struct {
		name    string
		tls     *v1alpha1.ExtenderTLSConfig
		wantErr bool
	}{
		{name: "trusted CA", tls: &v1alpha1.ExtenderTLSConfig{CAData: ca, ServerName: "example.com"}},
		{name: "wrong server name", tls: &v1alpha1.ExtenderTLSConfig{CAData: ca, ServerName: "other.org"}, wantErr: true},
		{name: "no CA: not verified, as upstream"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := makeCfg(srv.URL).bind().obj()
			cfg.EnableHTTPS, cfg.TLSConfig = true, tt.tls
			e, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if err := e.Bind(context.Background(), st.Pod("p").Obj(), "n1"); (err != nil) != tt.wantErr {
				t.Fatalf("error %v, wantErr %v", err, tt.wantErr)
			}
		})
	}
}

func keys(m map[string]json.RawMessage) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
