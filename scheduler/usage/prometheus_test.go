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
	"bytes"
	"context"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// fakePrometheus answers /api/v1/query with canned results.
type fakePrometheus struct {
	// token, when set, is the bearer token every request must carry.
	token string
	// results maps each query to the JSON of its data.
	results map[string]string

	mu    sync.Mutex
	times []string
}

func (p *fakePrometheus) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/api/v1/query" {
		http.NotFound(w, r)
		return
	}
	if p.token != "" && r.Header.Get("Authorization") != "Bearer "+p.token {
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
		return
	}
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	p.mu.Lock()
	p.times = append(p.times, r.Form.Get("time"))
	p.mu.Unlock()
	data, ok := p.results[r.Form.Get("query")]
	w.Header().Set("Content-Type", "application/json")
	if !ok {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = fmt.Fprintf(w, `{"status":"error","errorType":"bad_data","error":"unknown query %s"}`, r.Form.Get("query"))
		return
	}
	_, _ = fmt.Fprintf(w, `{"status":"success","data":%s}`, data)
}

// vector returns the data of an instant vector of samples, each given as
// "label=value ... value", e.g. "instance=n1 0.5".
func vector(samples ...string) string {
	var items []string
	for _, s := range samples {
		f := strings.Fields(s)
		var labels []string
		for _, l := range f[:len(f)-1] {
			k, v, _ := strings.Cut(l, "=")
			labels = append(labels, fmt.Sprintf("%q:%q", k, v))
		}
		items = append(items, fmt.Sprintf(`{"metric":{%s},"value":[1772366400,%q]}`, strings.Join(labels, ","), f[len(f)-1]))
	}
	return `{"resultType":"vector","result":[` + strings.Join(items, ",") + `]}`
}

const (
	matrix = `{"resultType":"matrix","result":[{"metric":{"instance":"n1"},"values":[[1772366400,"0.5"]]}]}`
	scalar = `{"resultType":"scalar","result":[1772366400,"0.5"]}`
)

// secrets returns a SecretGetter over a fixed map keyed "namespace/name/key".
func secrets(data map[string]string) SecretGetter {
	return func(_ context.Context, ref SecretKeyRef) ([]byte, error) {
		v, ok := data[ref.Namespace+"/"+ref.Name+"/"+ref.Key]
		if !ok {
			return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "secrets"}, ref.Name)
		}
		return []byte(v), nil
	}
}

func TestPromReader(t *testing.T) {
	tokenRef := &SecretKeyRef{Namespace: "monitoring", Name: "prom-token", Key: "token"}
	cpuMem := map[Resource]string{CPU: "cpu_q", Memory: "mem_q"}
	tests := []struct {
		name       string
		token      string
		results    map[string]string
		queries    map[Resource]string
		tokenRef   *SecretKeyRef
		secrets    SecretGetter
		want       map[string]sample
		wantErr    string
		notFound   bool
		wantNoCall bool
	}{
		{
			name: "one vector per resource, sampled at the query time",
			results: map[string]string{
				"cpu_q": vector("instance=n1 0.5", "instance=n2 1"),
				"mem_q": vector("instance=n1 0.25", "instance=n2 0", "instance=n3 0.75"),
			},
			queries: cpuMem,
			want: map[string]sample{
				"n1": {at: t0, values: map[Resource]float64{CPU: 0.5, Memory: 0.25}},
				"n2": {at: t0, values: map[Resource]float64{CPU: 1, Memory: 0}},
				"n3": {at: t0, values: map[Resource]float64{Memory: 0.75}},
			},
		},
		{
			name: "spreads",
			results: map[string]string{
				"cpu_q":    vector("instance=n1 0.5"),
				"cpu_sd_q": vector("instance=n1 0.125"),
			},
			queries: map[Resource]string{CPU: "cpu_q", CPUStdDev: "cpu_sd_q"},
			want:    map[string]sample{"n1": {at: t0, values: map[Resource]float64{CPU: 0.5, CPUStdDev: 0.125}}},
		},
		{
			name:    "MetricResource",
			results: map[string]string{"load": vector("instance=n1 job=node 0.125")},
			queries: map[Resource]string{Metric: "load"},
			want:    map[string]sample{"n1": {at: t0, values: map[Resource]float64{Metric: 0.125}}},
		},
		{
			name:    "empty vector",
			results: map[string]string{"load": vector()},
			queries: map[Resource]string{Metric: "load"},
			want:    map[string]sample{},
		},
		{
			name:    "matrix",
			results: map[string]string{"cpu_q": matrix, "mem_q": vector("instance=n1 0.5")},
			queries: cpuMem,
			wantErr: "query for cpu: expected a vector, got matrix",
		},
		{
			name:    "scalar",
			results: map[string]string{"cpu_q": vector("instance=n1 0.5"), "mem_q": scalar},
			queries: cpuMem,
			wantErr: "query for memory: expected a vector, got scalar",
		},
		{
			name:    "value above 1 rejects the whole read",
			results: map[string]string{"cpu_q": vector("instance=n1 0.5", "instance=n2 1.5"), "mem_q": vector("instance=n1 0.5")},
			queries: cpuMem,
			wantErr: `query for cpu: node "n2" has value 1.5 outside [0, 1]`,
		},
		{
			name:    "negative value",
			results: map[string]string{"load": vector("instance=n1 -0.01")},
			queries: map[Resource]string{Metric: "load"},
			wantErr: `query for MetricResource: node "n1" has value -0.01 outside [0, 1]`,
		},
		{
			name:    "NaN",
			results: map[string]string{"load": vector("instance=n1 NaN")},
			queries: map[Resource]string{Metric: "load"},
			wantErr: `query for MetricResource: node "n1" has value NaN outside [0, 1]`,
		},
		{
			name:    "missing instance label",
			results: map[string]string{"load": vector("instance=n1 0.5", "node=n2 0.5")},
			queries: map[Resource]string{Metric: "load"},
			wantErr: `query for MetricResource: sample {node="n2"} has no "instance" label`,
		},
		{
			name:    "two samples for one node",
			results: map[string]string{"load": vector("instance=n1 job=a 0.5", "instance=n1 job=b 0.5")},
			queries: map[Resource]string{Metric: "load"},
			wantErr: `query for MetricResource: more than one sample for node "n1"`,
		},
		{
			name:    "query error",
			results: map[string]string{},
			queries: map[Resource]string{Metric: "load"},
			wantErr: `querying ADDRESS for MetricResource: bad_data: unknown query load`,
		},
		{
			name:    "401 without the token",
			token:   "s3cret",
			results: map[string]string{"load": vector("instance=n1 0.5")},
			queries: map[Resource]string{Metric: "load"},
			wantErr: "querying ADDRESS for MetricResource: client_error: client error: 401",
		},
		{
			name:     "401 with a wrong token",
			token:    "s3cret",
			results:  map[string]string{"load": vector("instance=n1 0.5")},
			queries:  map[Resource]string{Metric: "load"},
			tokenRef: tokenRef,
			secrets:  secrets(map[string]string{"monitoring/prom-token/token": "0ther"}),
			wantErr:  "querying ADDRESS for MetricResource: client_error: client error: 401",
		},
		{
			name:     "the token from its Secret",
			token:    "s3cret",
			results:  map[string]string{"load": vector("instance=n1 0.5")},
			queries:  map[Resource]string{Metric: "load"},
			tokenRef: tokenRef,
			secrets:  secrets(map[string]string{"monitoring/prom-token/token": "s3cret\n"}),
			want:     map[string]sample{"n1": {at: t0, values: map[Resource]float64{Metric: 0.5}}},
		},
		{
			name:       "missing token Secret",
			token:      "s3cret",
			results:    map[string]string{"load": vector("instance=n1 0.5")},
			queries:    map[Resource]string{Metric: "load"},
			tokenRef:   tokenRef,
			secrets:    secrets(nil),
			wantErr:    `reading bearer token from Secret monitoring/prom-token key "token": secrets "prom-token" not found`,
			notFound:   true,
			wantNoCall: true,
		},
		{
			name:       "empty token",
			results:    map[string]string{"load": vector("instance=n1 0.5")},
			queries:    map[Resource]string{Metric: "load"},
			tokenRef:   tokenRef,
			secrets:    secrets(map[string]string{"monitoring/prom-token/token": " \n"}),
			wantErr:    `bearer token in Secret monitoring/prom-token key "token" is empty`,
			wantNoCall: true,
		},
		{
			name:       "no Secret getter",
			results:    map[string]string{"load": vector("instance=n1 0.5")},
			queries:    map[Resource]string{Metric: "load"},
			tokenRef:   tokenRef,
			wantErr:    `reading bearer token from Secret monitoring/prom-token key "token": no Secret getter configured`,
			wantNoCall: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fp := &fakePrometheus{token: tt.token, results: tt.results}
			srv := httptest.NewServer(fp)
			defer srv.Close()
			p := &promReader{
				src:     Source{Type: Prometheus, Address: srv.URL, Queries: tt.queries, Token: tt.tokenRef},
				secrets: tt.secrets,
				now:     func() time.Time { return t0 },
			}
			defer p.close()
			got, err := p.read(context.Background())
			if tt.wantErr != "" {
				want := strings.ReplaceAll(tt.wantErr, "ADDRESS", srv.URL)
				if err == nil || err.Error() != want {
					t.Fatalf("read() error = %v, want %q", err, want)
				}
				if tt.notFound && !apierrors.IsNotFound(err) {
					t.Errorf("read() error %v does not wrap the NotFound", err)
				}
			} else {
				if err != nil {
					t.Fatalf("read() error = %v", err)
				}
				assertSamples(t, got, tt.want)
			}
			fp.mu.Lock()
			defer fp.mu.Unlock()
			if tt.wantNoCall && len(fp.times) > 0 {
				t.Errorf("queried Prometheus %d times, want none", len(fp.times))
			}
			for _, ts := range fp.times {
				if ts != "1772366400" {
					t.Errorf("queried at %s, want %d", ts, t0.Unix())
				}
			}
		})
	}
}

func TestPromReaderTLS(t *testing.T) {
	srv := httptest.NewUnstartedServer(&fakePrometheus{results: map[string]string{"load": vector("instance=n1 0.5")}})
	// The handshakes that fail on purpose would log.
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	defer srv.Close()
	caPEM := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))
	caRef := &SecretKeyRef{Namespace: "monitoring", Name: "prom-ca", Key: "ca.crt"}
	tests := []struct {
		name     string
		ca       *SecretKeyRef
		secrets  map[string]string
		insecure bool
		wantErr  string
	}{
		{name: "CA from its Secret", ca: caRef, secrets: map[string]string{"monitoring/prom-ca/ca.crt": caPEM}},
		{name: "system roots do not know the server", wantErr: "certificate"},
		{name: "InsecureSkipVerify", insecure: true},
		{
			name:    "CA Secret without a certificate",
			ca:      caRef,
			secrets: map[string]string{"monitoring/prom-ca/ca.crt": "not a PEM"},
			wantErr: `CA bundle in Secret monitoring/prom-ca key "ca.crt" holds no PEM certificate`,
		},
		{
			name:    "missing CA Secret",
			ca:      caRef,
			wantErr: `reading CA bundle from Secret monitoring/prom-ca key "ca.crt": secrets "prom-ca" not found`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &promReader{
				src: Source{
					Type: Prometheus, Address: srv.URL, Queries: map[Resource]string{Metric: "load"},
					CA: tt.ca, InsecureSkipVerify: tt.insecure,
				},
				secrets: secrets(tt.secrets),
				now:     func() time.Time { return t0 },
			}
			defer p.close()
			got, err := p.read(context.Background())
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("read() error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("read() error = %v", err)
			}
			assertSamples(t, got, map[string]sample{"n1": {at: t0, values: map[Resource]float64{Metric: 0.5}}})
		})
	}
}

func TestPromReaderKeepsTransportWhileCAIsTheSame(t *testing.T) {
	p := &promReader{src: Source{Type: Prometheus, CA: &SecretKeyRef{Namespace: "m", Name: "ca", Key: "ca.crt"}}}
	defer p.close()
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	defer srv.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	first, err := p.transportFor(ca)
	if err != nil {
		t.Fatal(err)
	}
	again, err := p.transportFor(bytes.Clone(ca))
	if err != nil {
		t.Fatal(err)
	}
	if again != first {
		t.Error("the same CA built a new transport")
	}
	// A bundle that gains a certificate is another CA.
	rotated, err := p.transportFor(append(bytes.Clone(ca), ca...))
	if err != nil {
		t.Fatal(err)
	}
	if rotated == first {
		t.Error("a rotated CA kept the old transport")
	}
}
