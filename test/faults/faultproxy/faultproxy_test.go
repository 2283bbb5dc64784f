package faultproxy

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

func TestParseRequest(t *testing.T) {
	tests := []struct {
		method, target string
		want           attributes
	}{
		{"POST", "/api/v1/namespaces/ns/pods/p/binding", attributes{Verb: "create", Resource: "pods", Subresource: "binding", Namespace: "ns", Name: "p"}},
		{"POST", "/api/v1/namespaces/ns/pods/p/eviction", attributes{Verb: "create", Resource: "pods", Subresource: "eviction", Namespace: "ns", Name: "p"}},
		{"PATCH", "/api/v1/namespaces/ns/pods/p/status", attributes{Verb: "patch", Resource: "pods", Subresource: "status", Namespace: "ns", Name: "p"}},
		{"DELETE", "/api/v1/namespaces/ns/pods/p", attributes{Verb: "delete", Resource: "pods", Namespace: "ns", Name: "p"}},
		{"DELETE", "/api/v1/namespaces/ns/pods", attributes{Verb: "deletecollection", Resource: "pods", Namespace: "ns"}},
		{"GET", "/api/v1/pods?limit=500", attributes{Verb: "list", Resource: "pods"}},
		{"GET", "/api/v1/pods?watch=true&resourceVersion=5", attributes{Verb: "watch", Resource: "pods"}},
		{"GET", "/api/v1/nodes/n1", attributes{Verb: "get", Resource: "nodes", Name: "n1"}},
		{"PUT", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/l", attributes{Verb: "update", Resource: "leases", Namespace: "kube-system", Name: "l"}},
		{"GET", "/apis/scheduling.berth.io/v1alpha1/schedulingprofiles?watch=1", attributes{Verb: "watch", Resource: "schedulingprofiles"}},
		{"GET", "/api/v1/namespaces/ns", attributes{Verb: "get", Resource: "namespaces", Namespace: "ns", Name: "ns"}},
		{"GET", "/version", attributes{Verb: "list"}},
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
	tests := []struct {
		name          string
		rule          *Rule
		wantErr       func(error) bool
		wantForwarded int32
		wantCode      int
	}{
		{name: "no rule forwards", wantErr: noError, wantForwarded: 1, wantCode: 201},
		{name: "500", rule: &Rule{Match: binding, Fault: FaultStatus, Status: 500}, wantErr: apierrors.IsInternalError, wantCode: 500},
		{name: "409", rule: &Rule{Match: binding, Fault: FaultStatus, Status: 409}, wantErr: apierrors.IsConflict, wantCode: 409},
		{name: "reset", rule: &Rule{Match: binding, Fault: FaultReset}, wantErr: anyError},
		{name: "lost reply", rule: &Rule{Match: binding, Fault: FaultLoseReply}, wantErr: anyError, wantForwarded: 1, wantCode: 201},
		{name: "delay", rule: &Rule{Match: binding, Fault: FaultDelay, Delay: 200 * time.Millisecond}, wantErr: noError, wantForwarded: 1, wantCode: 201},
		{name: "another resource is untouched", rule: &Rule{Match: Match{Resource: "nodes"}, Fault: FaultReset}, wantErr: noError, wantForwarded: 1, wantCode: 201},
		{name: "another namespace is untouched", rule: &Rule{Match: Match{Namespace: "other"}, Fault: FaultReset}, wantErr: noError, wantForwarded: 1, wantCode: 201},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, forwarded := fakeAPIServer(t)
			p := startProxy(t, cfg)
			if tc.rule != nil {
				p.Inject(*tc.rule)
			}
			c := kubernetes.NewForConfigOrDie(&rest.Config{Host: p.URL()})
			start := time.Now()
			err := bind(context.Background(), c)
			if !tc.wantErr(err) {
				t.Fatalf("Bind() = %v", err)
			}
			if got := forwarded.Load(); got != tc.wantForwarded {
				t.Fatalf("the apiserver received %d bindings, want %d", got, tc.wantForwarded)
			}
			reqs := p.Requests(binding)
			if len(reqs) != 1 || reqs[0].Code != tc.wantCode || reqs[0].Name != "p" {
				t.Fatalf("Requests() = %+v, want one for pod p with code %d", reqs, tc.wantCode)
			}
			if tc.rule != nil && tc.rule.Fault == FaultDelay && time.Since(start) < tc.rule.Delay {
				t.Fatalf("a delayed request was answered after %v", time.Since(start))
			}
		})
	}
}

func TestBudgetAndClear(t *testing.T) {
	cfg, forwarded := fakeAPIServer(t)
	p := startProxy(t, cfg)
	p.Inject(Rule{Match: Match{Subresource: "binding"}, Fault: FaultStatus, Status: 503, Count: 2})
	c := kubernetes.NewForConfigOrDie(&rest.Config{Host: p.URL()})
	ctx := context.Background()
	for i, wantErr := range []bool{true, true, false} {
		if err := bind(ctx, c); (err != nil) != wantErr {
			t.Fatalf("bind %d: %v, want an error: %v", i, err, wantErr)
		}
	}
	p.Inject(Rule{Match: Match{Subresource: "binding"}, Fault: FaultReset})
	p.Clear()
	if err := bind(ctx, c); err != nil {
		t.Fatalf("bind after Clear: %v", err)
	}
	if got := forwarded.Load(); got != 2 {
		t.Fatalf("the apiserver received %d bindings, want 2", got)
	}
	faults := 0
	for _, r := range p.Requests(Match{Subresource: "binding"}) {
		if r.Fault == FaultStatus {
			faults++
		}
	}
	if faults != 2 {
		t.Fatalf("%d requests recorded as faulted, want 2", faults)
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

func startProxy(t *testing.T, cfg *rest.Config) *Proxy {
	t.Helper()
	p, err := New(cfg)
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
