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

package faultproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	testingclock "k8s.io/utils/clock/testing"
)

func TestParseRequest(t *testing.T) {
	tests := []struct {
		method, target string
		want           attributes
	}{
		// Core resources, namespaced.
		{"POST", "/api/v1/namespaces/ns/pods/p/binding", attributes{Verb: "create", Resource: "pods", Subresource: "binding", Namespace: "ns", Name: "p"}},
		{"POST", "/api/v1/namespaces/ns/pods/p/eviction", attributes{Verb: "create", Resource: "pods", Subresource: "eviction", Namespace: "ns", Name: "p"}},
		{"PATCH", "/api/v1/namespaces/ns/pods/p/status", attributes{Verb: "patch", Resource: "pods", Subresource: "status", Namespace: "ns", Name: "p"}},
		{"GET", "/api/v1/namespaces/ns/pods/p/proxy/a/b", attributes{Verb: "get", Resource: "pods", Subresource: "proxy", Namespace: "ns", Name: "p"}},
		{"GET", "/api/v1/namespaces/ns/pods/p", attributes{Verb: "get", Resource: "pods", Namespace: "ns", Name: "p"}},
		{"GET", "/api/v1/namespaces/ns/pods?limit=500", attributes{Verb: "list", Resource: "pods", Namespace: "ns"}},
		{"POST", "/api/v1/namespaces/ns/pods", attributes{Verb: "create", Resource: "pods", Namespace: "ns"}},
		{"PUT", "/api/v1/namespaces/ns/pods/p", attributes{Verb: "update", Resource: "pods", Namespace: "ns", Name: "p"}},
		{"DELETE", "/api/v1/namespaces/ns/pods/p", attributes{Verb: "delete", Resource: "pods", Namespace: "ns", Name: "p"}},
		{"DELETE", "/api/v1/namespaces/ns/pods", attributes{Verb: "deletecollection", Resource: "pods", Namespace: "ns"}},
		// Core resources across namespaces and cluster-scoped.
		{"GET", "/api/v1/pods?limit=500", attributes{Verb: "list", Resource: "pods"}},
		{"GET", "/api/v1/pods?watch=true&resourceVersion=5", attributes{Verb: "watch", Resource: "pods"}},
		{"GET", "/api/v1/pods?watch=false", attributes{Verb: "list", Resource: "pods"}},
		{"HEAD", "/api/v1/nodes", attributes{Verb: "list", Resource: "nodes"}},
		{"GET", "/api/v1/nodes/n1", attributes{Verb: "get", Resource: "nodes", Name: "n1"}},
		{"PATCH", "/api/v1/nodes/n1/status", attributes{Verb: "patch", Resource: "nodes", Subresource: "status", Name: "n1"}},
		// Namespaces themselves, and their subresources.
		{"GET", "/api/v1/namespaces", attributes{Verb: "list", Resource: "namespaces"}},
		{"POST", "/api/v1/namespaces", attributes{Verb: "create", Resource: "namespaces"}},
		{"GET", "/api/v1/namespaces/ns", attributes{Verb: "get", Resource: "namespaces", Namespace: "ns", Name: "ns"}},
		{"PUT", "/api/v1/namespaces/ns/finalize", attributes{Verb: "update", Resource: "namespaces", Subresource: "finalize", Namespace: "ns", Name: "ns"}},
		{"DELETE", "/api/v1/namespaces/ns", attributes{Verb: "delete", Resource: "namespaces", Namespace: "ns", Name: "ns"}},
		// Group resources.
		{"PUT", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/l", attributes{Verb: "update", Resource: "leases", Namespace: "kube-system", Name: "l"}},
		{"GET", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases?fieldSelector=metadata.name%3Dl&watch=1", attributes{Verb: "watch", Resource: "leases", Namespace: "kube-system", Name: "l"}},
		{"GET", "/apis/scheduling.berth.io/v1alpha1/schedulingprofiles?watch=1", attributes{Verb: "watch", Resource: "schedulingprofiles"}},
		{"GET", "/apis/scheduling.berth.io/v1alpha1/schedulingprofiles/default", attributes{Verb: "get", Resource: "schedulingprofiles", Name: "default"}},
		{"PUT", "/apis/scheduling.berth.io/v1alpha1/schedulingprofiles/default/status", attributes{Verb: "update", Resource: "schedulingprofiles", Subresource: "status", Name: "default"}},
		{"GET", "/apis/apps/v1/namespaces/ns/deployments/d/scale", attributes{Verb: "get", Resource: "deployments", Subresource: "scale", Namespace: "ns", Name: "d"}},
		{"DELETE", "/apis/storage.k8s.io/v1/storageclasses", attributes{Verb: "deletecollection", Resource: "storageclasses"}},
		{"POST", "/apis/events.k8s.io/v1/namespaces/ns/events", attributes{Verb: "create", Resource: "events", Namespace: "ns"}},
		// The old form with the verb in the path.
		{"GET", "/api/v1/watch/namespaces/ns/pods", attributes{Verb: "watch", Resource: "pods", Namespace: "ns"}},
		{"GET", "/apis/apps/v1/watch/deployments", attributes{Verb: "watch", Resource: "deployments"}},
		// Non-resource requests: only the method.
		{"GET", "/version", attributes{Verb: "get"}},
		{"GET", "/healthz", attributes{Verb: "get"}},
		{"GET", "/api", attributes{Verb: "get"}},
		{"GET", "/api/v1", attributes{Verb: "get"}},
		{"GET", "/apis/apps/v1", attributes{Verb: "get"}},
		{"POST", "/", attributes{Verb: "post"}},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.target, func(t *testing.T) {
			got := parseRequest(httptest.NewRequest(tc.method, tc.target, nil))
			if got != tc.want {
				t.Fatalf("parseRequest() = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestMatch(t *testing.T) {
	binding := attributes{Verb: "create", Resource: "pods", Subresource: "binding", Namespace: "ns", Name: "p"}
	pod := attributes{Verb: "create", Resource: "pods", Namespace: "ns"}
	tests := []struct {
		name  string
		m     Match
		a     attributes
		match bool
	}{
		{"empty matches all", Match{}, binding, true},
		{"all fields", Match{Verb: "create", Resource: "pods", Subresource: "binding", Namespace: "ns"}, binding, true},
		{"verb differs", Match{Verb: "update"}, binding, false},
		{"resource differs", Match{Resource: "nodes"}, binding, false},
		{"namespace differs", Match{Namespace: "other"}, binding, false},
		{"subresource differs", Match{Subresource: "eviction"}, binding, false},
		{"any subresource", Match{Resource: "pods"}, binding, true},
		{"no subresource, with one", Match{Resource: "pods", Subresource: NoSubresource}, binding, false},
		{"no subresource, without", Match{Resource: "pods", Subresource: NoSubresource}, pod, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.m.matches(tc.a); got != tc.match {
				t.Fatalf("%+v.matches(%+v) = %v, want %v", tc.m, tc.a, got, tc.match)
			}
		})
	}
}

// fakeAPIServer answers bindings with 201 and pod watches with one event,
// counting the bindings it received.
func fakeAPIServer(t *testing.T) (*rest.Config, *atomic.Int32) {
	var bindings atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.HasSuffix(r.URL.Path, "/binding"):
			bindings.Add(1)
			w.WriteHeader(http.StatusCreated)
			_ = json.NewEncoder(w).Encode(metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusSuccess, Code: 201})
		case r.URL.Query().Get("watch") == "true":
			w.WriteHeader(http.StatusOK)
			pod := corev1.Pod{TypeMeta: metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"}, ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", ResourceVersion: "2"}}
			_ = json.NewEncoder(w).Encode(map[string]any{"type": "ADDED", "object": pod})
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	t.Cleanup(srv.Close)
	return &rest.Config{Host: srv.URL, TLSClientConfig: rest.TLSClientConfig{Insecure: true}}, &bindings
}

func bind(ctx context.Context, c kubernetes.Interface) error {
	return c.CoreV1().Pods("ns").Bind(ctx, &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"},
		Target:     corev1.ObjectReference{Kind: "Node", Name: "n"},
	}, metav1.CreateOptions{})
}

func TestFaults(t *testing.T) {
	binding := Match{Verb: "create", Resource: "pods", Subresource: "binding"}
	arrival := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name          string
		rule          *Rule
		wantErr       func(error) bool
		wantForwarded int32
		wantFault     Fault
		wantCode      int
	}{
		{name: "no rule forwards", wantErr: noError, wantForwarded: 1, wantCode: 201},
		{name: "500", rule: &Rule{Match: binding, Fault: FaultStatus, Status: 500}, wantErr: injected(apierrors.IsInternalError), wantFault: FaultStatus, wantCode: 500},
		{name: "409", rule: &Rule{Match: binding, Fault: FaultStatus, Status: 409}, wantErr: injected(apierrors.IsConflict), wantFault: FaultStatus, wantCode: 409},
		{name: "503", rule: &Rule{Match: binding, Fault: FaultStatus, Status: 503}, wantErr: injected(apierrors.IsServiceUnavailable), wantFault: FaultStatus, wantCode: 503},
		{name: "status unset is 500", rule: &Rule{Match: binding, Fault: FaultStatus}, wantErr: injected(apierrors.IsInternalError), wantFault: FaultStatus, wantCode: 500},
		{name: "reset", rule: &Rule{Match: binding, Fault: FaultReset}, wantErr: anyError, wantFault: FaultReset},
		{name: "lost reply", rule: &Rule{Match: binding, Fault: FaultLoseReply}, wantErr: anyError, wantForwarded: 1, wantFault: FaultLoseReply, wantCode: 201},
		{name: "delay", rule: &Rule{Match: binding, Fault: FaultDelay, Delay: 200 * time.Millisecond}, wantErr: noError, wantForwarded: 1, wantFault: FaultDelay, wantCode: 201},
		{name: "probability 1 is all", rule: &Rule{Match: binding, Fault: FaultReset, Probability: 1}, wantErr: anyError, wantFault: FaultReset},
		{name: "the first rule that matches applies", rule: &Rule{Match: Match{Subresource: "binding"}, Fault: FaultStatus, Status: 409}, wantErr: injected(apierrors.IsConflict), wantFault: FaultStatus, wantCode: 409},
		{name: "another resource is untouched", rule: &Rule{Match: Match{Resource: "nodes"}, Fault: FaultReset}, wantErr: noError, wantForwarded: 1, wantCode: 201},
		{name: "another namespace is untouched", rule: &Rule{Match: Match{Namespace: "other"}, Fault: FaultReset}, wantErr: noError, wantForwarded: 1, wantCode: 201},
		{name: "requests without a subresource only", rule: &Rule{Match: Match{Resource: "pods", Subresource: NoSubresource}, Fault: FaultReset}, wantErr: noError, wantForwarded: 1, wantCode: 201},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, forwarded := fakeAPIServer(t)
			p := startProxy(t, cfg, WithClock(testingclock.NewFakePassiveClock(arrival)))
			if tc.rule != nil {
				p.Inject(*tc.rule)
			}
			if tc.wantFault != "" {
				// A later rule never applies while an earlier one does.
				p.Inject(Rule{Fault: FaultStatus, Status: http.StatusTeapot})
			}
			c := kubernetes.NewForConfigOrDie(&rest.Config{Host: p.URL()})
			start := time.Now()
			err := bind(context.Background(), c)
			if !tc.wantErr(err) {
				t.Fatalf("Bind() = %v", err)
			}
			if tc.rule != nil && tc.rule.Fault == FaultDelay && time.Since(start) < tc.rule.Delay {
				t.Fatalf("a delayed request was answered after %v", time.Since(start))
			}
			if got := forwarded.Load(); got != tc.wantForwarded {
				t.Fatalf("the apiserver received %d bindings, want %d", got, tc.wantForwarded)
			}
			want := Request{Time: arrival, Verb: "create", Resource: "pods", Subresource: "binding", Namespace: "ns", Name: "p", Fault: tc.wantFault, Code: tc.wantCode}
			if reqs := p.Requests(binding); len(reqs) != 1 || reqs[0] != want {
				t.Fatalf("Requests() = %+v, want [%+v]", reqs, want)
			}
		})
	}
}

func TestBudgetRemoveAndClear(t *testing.T) {
	cfg, forwarded := fakeAPIServer(t)
	p := startProxy(t, cfg)
	bindings := Match{Subresource: "binding"}
	in := p.Inject(Rule{Match: bindings, Fault: FaultStatus, Status: 503, Count: 2})
	c := kubernetes.NewForConfigOrDie(&rest.Config{Host: p.URL()})
	ctx := context.Background()
	for i, wantErr := range []bool{true, true, false, false} {
		if err := bind(ctx, c); (err != nil) != wantErr {
			t.Fatalf("bind %d: %v, want an error: %v", i, err, wantErr)
		}
	}
	if got := in.Applied(); got != 2 {
		t.Fatalf("Applied() = %d, want 2", got)
	}
	var faults []Fault
	for _, r := range p.Requests(bindings) {
		faults = append(faults, r.Fault)
	}
	if want := []Fault{FaultStatus, FaultStatus, "", ""}; !slices.Equal(faults, want) {
		t.Fatalf("faults recorded = %q, want %q", faults, want)
	}

	reset := p.Inject(Rule{Match: bindings, Fault: FaultReset})
	reset.Remove()
	if err := bind(ctx, c); err != nil {
		t.Fatalf("bind after Remove: %v", err)
	}
	p.Inject(Rule{Match: bindings, Fault: FaultReset})
	p.Clear()
	if err := bind(ctx, c); err != nil {
		t.Fatalf("bind after Clear: %v", err)
	}
	if got := forwarded.Load(); got != 4 {
		t.Fatalf("the apiserver received %d bindings, want 4", got)
	}
}

func TestProbability(t *testing.T) {
	cfg, _ := fakeAPIServer(t)
	p := startProxy(t, cfg)
	bindings := Match{Subresource: "binding"}
	in := p.Inject(Rule{Match: bindings, Fault: FaultStatus, Status: 500, Probability: 0.5})
	c := kubernetes.NewForConfigOrDie(&rest.Config{Host: p.URL(), QPS: 1e6, Burst: 1e6})
	const n = 200
	for range n {
		_ = bind(context.Background(), c)
	}
	// 0.5 of 200: below 60 or above 140 happens about once in 10^8 runs.
	if got := in.Applied(); got < 60 || got > 140 {
		t.Fatalf("the rule applied to %d of %d requests, want about half", got, n)
	}
}

func TestStatusBody(t *testing.T) {
	cfg, _ := fakeAPIServer(t)
	p := startProxy(t, cfg)
	p.Inject(Rule{Fault: FaultStatus, Status: http.StatusConflict})
	resp, err := http.Post(p.URL()+"/api/v1/namespaces/ns/pods/p/binding", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st metav1.Status
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	want := metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Code: 409, Reason: metav1.StatusReasonConflict, Message: "injected by faultproxy",
	}
	if resp.StatusCode != 409 || resp.Header.Get("Content-Type") != "application/json" || !reflect.DeepEqual(st, want) {
		t.Fatalf("answered %d %q %+v, want 409 application/json %+v", resp.StatusCode, resp.Header.Get("Content-Type"), st, want)
	}
}

// TestPassesThrough checks that what the client sends reaches the apiserver
// untouched, with the credentials of the proxy's config added, and that
// the apiserver's answer comes back untouched.
func TestPassesThrough(t *testing.T) {
	type seen struct {
		method, uri, contentType, accept, userAgent, auth string
		body                                              []byte
	}
	got := make(chan seen, 1)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- seen{r.Method, r.RequestURI, r.Header.Get("Content-Type"), r.Header.Get("Accept"), r.Header.Get("User-Agent"), r.Header.Get("Authorization"), body}
		w.Header().Set("Content-Type", "application/vnd.kubernetes.protobuf")
		w.Header().Set("X-Answer", "yes")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte("k8s\x00\x01\x02reply"))
	}))
	t.Cleanup(srv.Close)
	p := startProxy(t, &rest.Config{Host: srv.URL, BearerToken: "secret", TLSClientConfig: rest.TLSClientConfig{Insecure: true}})

	body := []byte("k8s\x00\x0a\x02v1\x12\x07Binding")
	req, err := http.NewRequest(http.MethodPost, p.URL()+"/api/v1/namespaces/ns/pods/p/binding?dryRun=All&fieldManager=berth", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/vnd.kubernetes.protobuf")
	req.Header.Set("Accept", "application/vnd.kubernetes.protobuf, */*")
	req.Header.Set("User-Agent", "berth/v1 (linux/amd64) test")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	reply, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	want := seen{http.MethodPost, "/api/v1/namespaces/ns/pods/p/binding?dryRun=All&fieldManager=berth", "application/vnd.kubernetes.protobuf", "application/vnd.kubernetes.protobuf, */*", "berth/v1 (linux/amd64) test", "Bearer secret", body}
	if s := <-got; !reflect.DeepEqual(s, want) {
		t.Fatalf("the apiserver saw %+v, want %+v", s, want)
	}
	if resp.StatusCode != http.StatusCreated || resp.Header.Get("Content-Type") != "application/vnd.kubernetes.protobuf" || resp.Header.Get("X-Answer") != "yes" || string(reply) != "k8s\x00\x01\x02reply" {
		t.Fatalf("the client got %d %v %q", resp.StatusCode, resp.Header, reply)
	}
}

// TestCloseEndsHeldRequests checks that Close ends blackholed and delayed
// requests and forwarded watches, each with an error, not an empty answer.
func TestCloseEndsHeldRequests(t *testing.T) {
	cfg, forwarded := fakeAPIServer(t)
	p := startProxy(t, cfg)
	p.Inject(Rule{Match: Match{Subresource: "binding"}, Fault: FaultBlackhole, Count: 1})
	p.Inject(Rule{Match: Match{Subresource: "binding"}, Fault: FaultDelay, Delay: time.Hour})
	c := kubernetes.NewForConfigOrDie(&rest.Config{Host: p.URL()})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	w, err := c.CoreV1().Pods("ns").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	<-w.ResultChan() // the one event
	errs := make(chan error, 2)
	for range 2 {
		go func() { errs <- bind(ctx, c) }()
	}
	waitFor(t, func() bool { return len(p.Requests(Match{Subresource: "binding"})) == 2 })

	start := time.Now()
	if err := p.Close(); err != nil {
		t.Fatalf("Close() = %v", err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("Close() again = %v", err)
	}
	for range 2 {
		if err := <-errs; err == nil {
			t.Fatal("a held bind succeeded when the proxy closed")
		}
	}
	select {
	case _, open := <-w.ResultChan():
		if open {
			t.Fatal("the watch delivered another event")
		}
	case <-ctx.Done():
		t.Fatal("the watch did not end when the proxy closed")
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("Close and the held requests took %v", d)
	}
	if n := forwarded.Load(); n != 0 {
		t.Fatalf("the apiserver received %d bindings, want 0", n)
	}
	if _, err := net.Dial("tcp", strings.TrimPrefix(p.URL(), "http://")); err == nil {
		t.Fatal("the proxy still listens after Close")
	}
}

func TestWatchStreams(t *testing.T) {
	cfg, _ := fakeAPIServer(t)
	p := startProxy(t, cfg)
	c := kubernetes.NewForConfigOrDie(&rest.Config{Host: p.URL()})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	w, err := c.CoreV1().Pods("ns").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	select {
	case ev := <-w.ResultChan():
		if pod, ok := ev.Object.(*corev1.Pod); !ok || pod.Name != "p" {
			t.Fatalf("got event %+v, want pod p", ev)
		}
	case <-ctx.Done():
		t.Fatal("the watch event did not stream through the proxy")
	}
	if got := p.Requests(Match{Verb: "watch", Resource: "pods"}); len(got) != 1 {
		t.Fatalf("Requests(watch pods) = %+v, want one", got)
	}
}

func TestCutStreamsThenGone(t *testing.T) {
	cfg, _ := fakeAPIServer(t)
	p := startProxy(t, cfg)
	c := kubernetes.NewForConfigOrDie(&rest.Config{Host: p.URL()})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	w, err := c.CoreV1().Pods("ns").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	<-w.ResultChan() // the one event
	watches := Match{Verb: "watch", Resource: "pods"}
	p.Inject(Rule{Match: watches, Fault: FaultStatus, Status: http.StatusGone, Count: 1})
	if n := p.CutStreams(watches); n != 1 {
		t.Fatalf("CutStreams() = %d, want 1", n)
	}
	select {
	case _, open := <-w.ResultChan():
		if open {
			t.Fatal("the cut watch delivered another event")
		}
	case <-ctx.Done():
		t.Fatal("the cut watch did not end")
	}
	if _, err := c.CoreV1().Pods("ns").Watch(ctx, metav1.ListOptions{}); !apierrors.IsResourceExpired(err) {
		t.Fatalf("the next watch = %v, want a 410 Expired", err)
	}
}

func TestBlackholeEndsWithTheClient(t *testing.T) {
	cfg, forwarded := fakeAPIServer(t)
	p := startProxy(t, cfg)
	p.Inject(Rule{Match: Match{Subresource: "binding"}, Fault: FaultBlackhole})
	c := kubernetes.NewForConfigOrDie(&rest.Config{Host: p.URL(), Timeout: 300 * time.Millisecond})
	if err := bind(context.Background(), c); err == nil {
		t.Fatal("a blackholed bind succeeded")
	}
	if forwarded.Load() != 0 {
		t.Fatal("a blackholed bind was forwarded")
	}
}

func TestKubeconfig(t *testing.T) {
	cfg, forwarded := fakeAPIServer(t)
	p := startProxy(t, cfg)
	path := t.TempDir() + "/kubeconfig"
	if err := p.Kubeconfig(path); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the kubeconfig's mode: %v, %v; want 0600", fi.Mode(), err)
	}
	loaded, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.Host != p.URL() || loaded.BearerToken != "" || len(loaded.CertData) != 0 || loaded.CertFile != "" || loaded.Username != "" {
		t.Fatalf("the kubeconfig gives %+v, want only the host %s", loaded, p.URL())
	}
	if err := bind(context.Background(), kubernetes.NewForConfigOrDie(loaded)); err != nil {
		t.Fatalf("bind through the kubeconfig: %v", err)
	}
	if forwarded.Load() != 1 {
		t.Fatal("the bind did not reach the apiserver")
	}
}

func startProxy(t *testing.T, cfg *rest.Config, opts ...Option) *Proxy {
	t.Helper()
	p, err := New(cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

func noError(err error) bool  { return err == nil }
func anyError(err error) bool { return err != nil }

// injected narrows is to the errors the proxy itself answered with.
func injected(is func(error) bool) func(error) bool {
	return func(err error) bool { return is(err) && strings.Contains(err.Error(), "injected by faultproxy") }
}

// waitFor polls cond for up to 2 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
