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

package apiwrite

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"
)

var pods = schema.GroupResource{Resource: "pods"}

// reply is one scripted answer of the test server.
type reply struct {
	code       int
	retryAfter string
	status     *metav1.Status
	text       string
}

func created() reply { return reply{code: http.StatusCreated, text: "{}"} }

func conflict() reply {
	return reply{code: http.StatusConflict, status: &metav1.Status{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"}, Status: metav1.StatusFailure,
		Code: http.StatusConflict, Reason: metav1.StatusReasonConflict, Message: "pod p is already assigned",
	}}
}

func busy(code int, retryAfter string) reply {
	return reply{code: code, retryAfter: retryAfter, text: "come back later"}
}

func binding(name, node string) *v1.Binding {
	return &v1.Binding{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}, Target: v1.ObjectReference{Kind: "Node", Name: node}}
}

// scriptedServer answers POSTs with replies in turn (the last one again
// when they run out) and checks that each carries the protobuf Binding.
func scriptedServer(t *testing.T, replies []reply, attempts *atomic.Int32) *httptest.Server {
	t.Helper()
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(attempts.Add(1))
		if r.Method != http.MethodPost || r.URL.Path != "/api/v1/namespaces/ns/pods/p/binding" {
			t.Errorf("request %s %s, want POST of the binding", r.Method, r.URL.Path)
		}
		if got := r.Header.Get("Content-Type"); got != runtime.ContentTypeProtobuf {
			t.Errorf("Content-Type %q, want protobuf", got)
		}
		raw, _ := io.ReadAll(r.Body)
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(raw, nil, nil)
		if b, ok := obj.(*v1.Binding); err != nil || !ok || b.Name != "p" || b.Target.Name != "n1" {
			t.Errorf("body decodes to %#v (%v), want the binding of p to n1", obj, err)
		}
		rp := replies[min(n, len(replies))-1]
		if rp.retryAfter != "" {
			w.Header().Set("Retry-After", rp.retryAfter)
		}
		if rp.status != nil {
			w.Header().Set("Content-Type", runtime.ContentTypeJSON)
			w.WriteHeader(rp.code)
			_ = json.NewEncoder(w).Encode(rp.status)
			return
		}
		w.WriteHeader(rp.code)
		_, _ = io.WriteString(w, rp.text)
	}))
}

// newPoster returns a Poster for host that waits on clk.
func newPoster(t *testing.T, host string, clk clock.Clock) *Poster {
	t.Helper()
	client, err := kubernetes.NewForConfig(&rest.Config{Host: host, QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPoster(client.CoreV1().RESTClient().(*rest.RESTClient))
	if err != nil || p == nil {
		t.Fatalf("NewPoster = %v, %v", p, err)
	}
	p.clock = clk
	return p
}

func TestPost(t *testing.T) {
	tests := []struct {
		name         string
		replies      []reply
		wantErr      func(error) bool
		wantAttempts int
		wantWaited   time.Duration
	}{
		{name: "created", replies: []reply{created()}, wantAttempts: 1},
		{name: "a conflict is the server's Status", replies: []reply{conflict()}, wantErr: apierrors.IsConflict, wantAttempts: 1},
		{name: "429 with Retry-After is sent again", replies: []reply{busy(http.StatusTooManyRequests, "1"), created()},
			wantAttempts: 2, wantWaited: time.Second},
		{name: "503 with Retry-After, then a conflict", replies: []reply{busy(http.StatusServiceUnavailable, "2"), conflict()},
			wantErr: apierrors.IsConflict, wantAttempts: 2, wantWaited: 2 * time.Second},
		{name: "a long Retry-After is capped", replies: []reply{busy(http.StatusTooManyRequests, "3600"), created()},
			wantAttempts: 2, wantWaited: maxRetryWait},
		{name: "500 without Retry-After is final", replies: []reply{busy(http.StatusInternalServerError, "")},
			wantErr: apierrors.IsInternalError, wantAttempts: 1},
		{name: "a bare 409 with Retry-After is a final AlreadyExists, as client-go reads a POST's", replies: []reply{{code: http.StatusConflict, retryAfter: "1", text: "no"}},
			wantErr: apierrors.IsAlreadyExists, wantAttempts: 1},
		{name: "429 every time gives up after the last attempt", replies: []reply{busy(http.StatusTooManyRequests, "1")},
			wantErr: apierrors.IsTooManyRequests, wantAttempts: maxAttempts, wantWaited: (maxAttempts - 1) * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var attempts atomic.Int32
			srv := scriptedServer(t, tt.replies, &attempts)
			defer srv.Close()
			start := time.Now()
			clk := clocktesting.NewFakeClock(start)
			p := newPoster(t, srv.URL, clk)

			done := make(chan error, 1)
			go func() {
				done <- p.Post(context.Background(), "namespaces/ns/pods/p/binding", binding("p", "n1"), pods, "p")
			}()
			var err error
		wait:
			for {
				select {
				case err = <-done:
					break wait
				case <-time.After(time.Millisecond):
					if clk.HasWaiters() {
						clk.Step(time.Second)
					}
				}
			}
			if got := int(attempts.Load()); got != tt.wantAttempts {
				t.Errorf("attempts = %d, want %d", got, tt.wantAttempts)
			}
			if tt.wantErr == nil && err != nil {
				t.Errorf("Post = %v, want success", err)
			}
			if tt.wantErr != nil && !tt.wantErr(err) {
				t.Errorf("Post = %v, want a different error", err)
			}
			if waited := clk.Since(start); waited < tt.wantWaited || waited > tt.wantWaited+time.Second {
				t.Errorf("waited %v on the clock, want about %v", waited, tt.wantWaited)
			}
		})
	}
}

func TestPostCancelledWhileWaiting(t *testing.T) {
	var attempts atomic.Int32
	srv := scriptedServer(t, []reply{busy(http.StatusTooManyRequests, "5")}, &attempts)
	defer srv.Close()
	clk := clocktesting.NewFakeClock(time.Now())
	p := newPoster(t, srv.URL, clk)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Post(ctx, "namespaces/ns/pods/p/binding", binding("p", "n1"), pods, "p") }()
	for !clk.HasWaiters() {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; err == nil || attempts.Load() != 1 {
		t.Errorf("Post = %v after %d attempts, want a cancellation after 1", err, attempts.Load())
	}
}

func TestNewWithoutHTTPClient(t *testing.T) {
	rc, _ := fake.NewClientset().CoreV1().RESTClient().(*rest.RESTClient)
	if p, err := NewPoster(rc); p != nil || err != nil {
		t.Errorf("NewPoster(fake) = %v, %v; want nil, nil", p, err)
	}
}

func BenchmarkPost(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusCreated)
	}))
	defer srv.Close()
	client, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL, QPS: -1})
	if err != nil {
		b.Fatal(err)
	}
	rc := client.CoreV1().RESTClient().(*rest.RESTClient)
	p, _ := NewPoster(rc)
	ctx := context.Background()
	bd := binding("p", "n1")
	b.Run("Poster", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := p.Post(ctx, "namespaces/ns/pods/p/binding", bd, pods, "p"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("rest.Request", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := rc.Post().Namespace("ns").Resource("pods").Name("p").SubResource("binding").Body(bd).Do(ctx).Error(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
