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
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
)

func names(nis []*framework.NodeInfo) []string {
	out := make([]string, 0, len(nis))
	for _, ni := range nis {
		out = append(out, ni.Node().Name)
	}
	return out
}

// server answers one verb with a handler and records the decoded bodies.
type server struct {
	*httptest.Server
	bodies []map[string]json.RawMessage
}

func newServer(t *testing.T, verb string, answer func(body map[string]json.RawMessage) (int, any)) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/ext/"+verb {
			http.NotFound(w, r)
			return
		}
		var body map[string]json.RawMessage
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.bodies = append(s.bodies, body)
		code, out := answer(body)
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(s.Close)
	return s
}

type cfgBuilder struct{ c v1alpha1.Extender }

func makeCfg(url string) *cfgBuilder {
	return &cfgBuilder{c: v1alpha1.Extender{URLPrefix: url + "/ext/"}}
}

func (b *cfgBuilder) filter() *cfgBuilder    { b.c.FilterVerb = "filter"; return b }
func (b *cfgBuilder) bind() *cfgBuilder      { b.c.BindVerb = "bind"; return b }
func (b *cfgBuilder) preempt() *cfgBuilder   { b.c.PreemptVerb = "preempt"; return b }
func (b *cfgBuilder) nodeCache() *cfgBuilder { b.c.NodeCacheCapable = true; return b }
func (b *cfgBuilder) obj() v1alpha1.Extender { return b.c }

func (b *cfgBuilder) prioritize(weight int64) *cfgBuilder {
	b.c.PrioritizeVerb, b.c.Weight = "prioritize", weight
	return b
}

func (b *cfgBuilder) managed(names ...string) *cfgBuilder {
	for _, n := range names {
		b.c.ManagedResources = append(b.c.ManagedResources, v1alpha1.ExtenderManagedResource{Name: n})
	}
	return b
}
