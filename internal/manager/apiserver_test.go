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

package manager

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	clocktesting "k8s.io/utils/clock/testing"
)

func TestWaitForAPIServer(t *testing.T) {
	tests := []struct {
		name string
		// failures is how many discovery calls fail with status before it answers.
		failures int
		status   int
		cancel   bool
		wantErr  func(error) bool
	}{
		{name: "ready at once", wantErr: isNil},
		{name: "not ready twice, then ready", failures: 2, status: http.StatusServiceUnavailable, wantErr: isNil},
		{name: "credentials refused", failures: 1000, status: http.StatusUnauthorized, wantErr: func(err error) bool { return err != nil && !errors.Is(err, context.Canceled) }},
		{name: "stopped while waiting", failures: 1000, status: http.StatusInternalServerError, cancel: true, wantErr: func(err error) bool { return errors.Is(err, context.Canceled) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if int(calls.Add(1)) <= tc.failures {
					w.WriteHeader(tc.status)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				switch r.URL.Path {
				case "/api":
					_, _ = w.Write([]byte(`{"kind":"APIVersions","versions":["v1"]}`))
				default:
					_, _ = w.Write([]byte(`{"kind":"APIGroupList","groups":[]}`))
				}
			}))
			defer srv.Close()
			clk := clocktesting.NewFakeClock(time.Unix(0, 0))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- waitForAPIServer(ctx, &rest.Config{Host: srv.URL}, clk, logr.Discard()) }()
			for {
				select {
				case err := <-done:
					if !tc.wantErr(err) {
						t.Fatalf("waitForAPIServer() = %v", err)
					}
					return
				case <-time.After(time.Millisecond):
				}
				if clk.HasWaiters() {
					if tc.cancel {
						cancel()
						continue
					}
					clk.Step(apiserverMaxRetry)
				}
			}
		})
	}
}

func isNil(err error) bool { return err == nil }
