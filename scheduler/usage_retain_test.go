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

package scheduler

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	k8sruntime "k8s.io/apimachinery/pkg/runtime"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/usage"
)

// countingPrometheus answers every instant query with an empty vector and
// counts the queries.
func countingPrometheus(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var queries atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		queries.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprint(w, `{"status":"success","data":{"resultType":"vector","result":[]}}`)
	}))
	t.Cleanup(srv.Close)
	return srv, &queries
}

// tlpReading is a profile whose TargetLoadPacking reads Prometheus at url.
func tlpReading(url, shadowOf string) *v1alpha1.SchedulingProfileSpec {
	return &v1alpha1.SchedulingProfileSpec{
		ShadowOf: shadowOf,
		Plugins:  &v1alpha1.Plugins{MultiPoint: &v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{{Name: "TargetLoadPacking"}}}},
		PluginConfig: []v1alpha1.PluginConfig{{Name: "TargetLoadPacking", Args: k8sruntime.RawExtension{
			Raw: fmt.Appendf(nil, `{"metricProvider":{"type":"Prometheus","address":%q}}`, url)}}},
	}
}

func TestUsageSourcesArePolledWhileAProfileReadsThem(t *testing.T) {
	srv, queries := countingPrometheus(t)
	h := newHarness(t, withOptions(WithNodeUsageOptions(usage.WithPollInterval(20*time.Millisecond))))
	ctx, s := h.ctx, h.s
	quiet := func(what string) {
		t.Helper()
		// A query already sent when the polling stopped may still arrive.
		time.Sleep(50 * time.Millisecond)
		before := queries.Load()
		time.Sleep(150 * time.Millisecond)
		if after := queries.Load(); after != before {
			t.Errorf("%s: %d queries in 150ms, want none", what, after-before)
		}
	}
	polled := func(what string) {
		t.Helper()
		before := queries.Load()
		deadline := time.Now().Add(5 * time.Second)
		for queries.Load() < before+2 {
			if time.Now().After(deadline) {
				t.Fatalf("%s: the source was not polled", what)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}

	if _, err := s.CompileProfile(ctx, "checked", tlpReading(srv.URL, "")); err != nil {
		t.Fatal(err)
	}
	quiet("a profile compiled only to be checked")

	if err := s.SetProfile(ctx, "load-aware", "load-aware", 1, tlpReading(srv.URL, "")); err != nil {
		t.Fatal(err)
	}
	polled("a live profile reading it")
	if err := s.SetProfile(ctx, "load-aware", "load-aware", 2, &v1alpha1.SchedulingProfileSpec{}); err != nil {
		t.Fatal(err)
	}
	quiet("the live profile changed to read nothing")

	shadow, err := s.CompileShadow(ctx, "shadow", tlpReading(srv.URL, "load-aware"))
	if err != nil {
		t.Fatal(err)
	}
	s.InstallShadow(ctx, &ShadowProfile{Framework: shadow, Source: "shadow", Generation: 1, Of: "load-aware", SampleRatePercent: 100})
	polled("a shadow profile reading it")
	s.RemoveShadow(ctx, "shadow")
	quiet("the shadow removed")

	if err := s.SetProfile(ctx, "load-aware", "load-aware", 3, tlpReading(srv.URL, "")); err != nil {
		t.Fatal(err)
	}
	polled("the live profile reading it again")
	s.RemoveProfile(ctx, "load-aware")
	quiet("the live profile removed")
}
