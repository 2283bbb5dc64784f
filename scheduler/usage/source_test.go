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

package usage

import (
	"strings"
	"testing"
)

func TestSourceKey(t *testing.T) {
	prom := func(mod func(*Source)) Source {
		s := Source{
			Type:    Prometheus,
			Address: "https://prometheus.monitoring:9090",
			Queries: map[Resource]string{CPU: "cpu_q", Memory: "mem_q"},
			Token:   &SecretKeyRef{Namespace: "monitoring", Name: "prom", Key: "token"},
			CA:      &SecretKeyRef{Namespace: "monitoring", Name: "prom", Key: "ca.crt"},
		}
		if mod != nil {
			mod(&s)
		}
		return s
	}
	tests := []struct {
		name string
		a, b Source
		same bool
	}{
		{name: "metrics-server", a: Source{Type: MetricsServer}, b: Source{Type: MetricsServer}, same: true},
		{
			name: "metrics-server ignores the Prometheus fields",
			a:    Source{Type: MetricsServer},
			b:    Source{Type: MetricsServer, Address: "http://x", Queries: map[Resource]string{CPU: "q"}, InsecureSkipVerify: true},
			same: true,
		},
		{name: "metrics-server and Prometheus", a: Source{Type: MetricsServer}, b: prom(nil)},
		{name: "equal Prometheus sources", a: prom(nil), b: prom(nil), same: true},
		{
			name: "queries given in another order",
			a:    prom(func(s *Source) { s.Queries = map[Resource]string{Memory: "mem_q", CPU: "cpu_q"} }),
			b:    prom(nil),
			same: true,
		},
		{name: "trailing slash", a: prom(func(s *Source) { s.Address += "/" }), b: prom(nil), same: true},
		{name: "address", a: prom(func(s *Source) { s.Address = "https://other:9090" }), b: prom(nil)},
		{name: "a query", a: prom(func(s *Source) { s.Queries[CPU] = "other" }), b: prom(nil)},
		{name: "one query more", a: prom(func(s *Source) { s.Queries[Metric] = "load" }), b: prom(nil)},
		{
			name: "a query that looks like two",
			a:    prom(func(s *Source) { s.Queries = map[Resource]string{CPU: `cpu_q","memory":"mem_q`} }),
			b:    prom(nil),
		},
		{name: "token Secret", a: prom(func(s *Source) { s.Token.Name = "other" }), b: prom(nil)},
		{name: "no token", a: prom(func(s *Source) { s.Token = nil }), b: prom(nil)},
		{name: "CA key", a: prom(func(s *Source) { s.CA.Key = "tls.crt" }), b: prom(nil)},
		{name: "insecure", a: prom(func(s *Source) { s.InsecureSkipVerify = true }), b: prom(nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.a.key() == tt.b.key(); got != tt.same {
				t.Errorf("key(%+v) == key(%+v) is %v, want %v\n%s\n%s", tt.a, tt.b, got, tt.same, tt.a.key(), tt.b.key())
			}
		})
	}
}

func TestSourceValidate(t *testing.T) {
	ok := map[Resource]string{CPU: "q"}
	tests := []struct {
		name    string
		src     Source
		wantErr []string
	}{
		{name: "metrics-server", src: Source{Type: MetricsServer}},
		{name: "prometheus", src: Source{Type: Prometheus, Address: "http://prometheus:9090", Queries: ok}},
		{
			name: "prometheus with Secrets",
			src: Source{Type: Prometheus, Address: "https://prometheus", Queries: map[Resource]string{Metric: "load"},
				Token: &SecretKeyRef{Namespace: "m", Name: "p", Key: "t"}, CA: &SecretKeyRef{Name: "p", Key: "ca"}},
		},
		{
			name: "prometheus with spreads",
			src: Source{Type: Prometheus, Address: "http://p", Queries: map[Resource]string{
				CPU: "a", Memory: "b", CPUStdDev: "c", MemoryStdDev: "d", Metric: "e",
			}},
		},
		{name: "no type", src: Source{}, wantErr: []string{`unknown source type ""`}},
		{name: "unknown type", src: Source{Type: "Graphite"}, wantErr: []string{`unknown source type "Graphite"`}},
		{name: "no address", src: Source{Type: Prometheus, Queries: ok}, wantErr: []string{"no address"}},
		{name: "not a URL", src: Source{Type: Prometheus, Address: "prometheus:9090", Queries: ok}, wantErr: []string{"is not an http(s) URL"}},
		{name: "bad URL", src: Source{Type: Prometheus, Address: "http://[::1", Queries: ok}, wantErr: []string{`prometheus address "http://[::1"`}},
		{name: "no queries", src: Source{Type: Prometheus, Address: "http://p"}, wantErr: []string{"no queries"}},
		{
			name:    "unknown resource and empty query",
			src:     Source{Type: Prometheus, Address: "http://p", Queries: map[Resource]string{"gpu": "q", Memory: " "}},
			wantErr: []string{`query for unknown resource "gpu"`, "query for memory is empty"},
		},
		{
			name:    "Secret reference without a key",
			src:     Source{Type: Prometheus, Address: "http://p", Queries: ok, Token: &SecretKeyRef{Namespace: "m", Name: "p"}},
			wantErr: []string{"token Secret reference m/p key \"\" needs a name and a key"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.src.validate()
			if len(tt.wantErr) == 0 {
				if err != nil {
					t.Fatalf("validate() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("validate() = nil, want %q", tt.wantErr)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("validate() = %v, want it to say %q", err, w)
				}
			}
		})
	}
}

func TestSourceCloneSharesNothing(t *testing.T) {
	s := Source{
		Type: Prometheus, Queries: map[Resource]string{CPU: "q"},
		Token: &SecretKeyRef{Name: "t"}, CA: &SecretKeyRef{Name: "ca"},
	}
	c := s.clone()
	s.Queries[CPU] = "changed"
	s.Token.Name = "changed"
	s.CA.Name = "changed"
	if c.Queries[CPU] != "q" || c.Token.Name != "t" || c.CA.Name != "ca" {
		t.Errorf("clone changed with the original: %+v", c)
	}
}

func TestSourceString(t *testing.T) {
	for _, tt := range []struct {
		src  Source
		want string
	}{
		{Source{Type: MetricsServer}, "KubernetesMetricsServer"},
		{Source{Type: Prometheus, Address: "http://p:9090"}, "Prometheus http://p:9090"},
	} {
		if got := tt.src.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}
