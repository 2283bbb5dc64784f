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

// Package faultproxy is an HTTP proxy between a Kubernetes client and the
// apiserver that injects faults into chosen requests: an error status, a
// delay, a reset connection, a reply lost after the apiserver acted, or no
// answer at all. Berth's fault suite puts one in front of each `berth
// manager` process and reads back which requests it saw and what it did to
// them.
package faultproxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/clock"
)

// Fault is what the proxy does to a request a rule matches.
type Fault string

// The faults a rule may inject.
const (
	// FaultStatus answers with the rule's Status code and does not forward.
	FaultStatus Fault = "status"
	// FaultDelay forwards after the rule's Delay, or not at all if the client goes first.
	FaultDelay Fault = "delay"
	// FaultReset does not forward and resets the client's connection.
	FaultReset Fault = "reset"
	// FaultLoseReply forwards, reads the apiserver's whole reply, then resets the client's connection.
	FaultLoseReply Fault = "lose-reply"
	// FaultBlackhole never answers: the request is held until the client or the proxy gives up.
	FaultBlackhole Fault = "blackhole"
)

// NoSubresource in Match.Subresource matches only requests without a subresource.
const NoSubresource = "-"

// Match selects requests by their Kubernetes attributes; empty fields match anything.
type Match struct {
	// Verb is a Kubernetes verb: get, list, watch, create, update, patch, delete, deletecollection.
	Verb string
	// Resource is the plural resource, such as pods or leases.
	Resource string
	// Subresource is such as binding, eviction or status; NoSubresource for none.
	Subresource string
	// Namespace is the request's namespace.
	Namespace string
}

func (m Match) matches(a attributes) bool {
	if m.Subresource == NoSubresource && a.Subresource != "" {
		return false
	}
	return (m.Verb == "" || m.Verb == a.Verb) &&
		(m.Resource == "" || m.Resource == a.Resource) &&
		(m.Subresource == "" || m.Subresource == NoSubresource || m.Subresource == a.Subresource) &&
		(m.Namespace == "" || m.Namespace == a.Namespace)
}

// Rule injects a fault into the requests it matches.
type Rule struct {
	// Match selects the requests.
	Match Match
	// Fault is what is done to them.
	Fault Fault
	// Status is the HTTP code FaultStatus answers, with a metav1.Status body; 500 if unset.
	Status int
	// Delay is how long FaultDelay holds a request.
	Delay time.Duration
	// Count bounds how many requests the rule applies to; 0 is unlimited.
	Count int
	// Probability is the fraction of matching requests the rule applies to; 0 or 1 is all.
	Probability float64
}

// Request is one request the proxy saw.
type Request struct {
	// Time is when it arrived.
	Time time.Time
	// Verb, Resource, Subresource, Namespace and Name are its Kubernetes attributes.
	Verb, Resource, Subresource, Namespace, Name string
	// Fault is what the proxy did to it; empty when it was forwarded untouched.
	Fault Fault
	// Code is the HTTP status the apiserver or the proxy answered (for a lost reply, the one the apiserver sent); 0 when none was.
	Code int
}

// Proxy forwards requests to the apiserver, injecting the faults of its rules.
type Proxy struct {
	target  *url.URL
	clock   clock.PassiveClock
	forward *httputil.ReverseProxy

	// ctx is the context of every request served; Close cancels it, which
	// ends the requests the proxy holds and the streams it forwards.
	ctx       context.Context
	cancel    context.CancelFunc
	closeOnce sync.Once

	mu       sync.Mutex
	started  bool
	listener net.Listener
	server   *http.Server
	rules    []*rule
	requests []Request
	// streams are the forwarded requests in flight, to cut.
	streams map[int]stream
}

// stream is a forwarded request in flight.
type stream struct {
	attributes
	cancel context.CancelFunc
}

// rule is a Rule with the budget it has used.
type rule struct {
	Rule
	applied int
}

// Injection is a rule added to a Proxy.
type Injection struct {
	p *Proxy
	r *rule
}

// Remove takes the rule out of its proxy; requests already given its fault keep it.
func (in *Injection) Remove() {
	in.p.mu.Lock()
	defer in.p.mu.Unlock()
	for i, r := range in.p.rules {
		if r == in.r {
			in.p.rules = append(in.p.rules[:i:i], in.p.rules[i+1:]...)
			return
		}
	}
}

// Applied returns how many requests the rule has been applied to.
func (in *Injection) Applied() int {
	in.p.mu.Lock()
	defer in.p.mu.Unlock()
	return in.r.applied
}

// Option configures a Proxy.
type Option func(*Proxy)

// WithClock sets the clock that stamps the requests recorded; the default is the real clock.
func WithClock(c clock.PassiveClock) Option { return func(p *Proxy) { p.clock = c } }

// New returns a Proxy that forwards to the apiserver that cfg describes,
// with cfg's credentials and TLS settings.
func New(cfg *rest.Config, opts ...Option) (*Proxy, error) {
	target, _, err := rest.DefaultServerUrlFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("parsing the apiserver's address %q: %w", cfg.Host, err)
	}
	transport, err := rest.TransportFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("building the apiserver's transport: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &Proxy{target: target, clock: clock.RealClock{}, ctx: ctx, cancel: cancel, streams: map[int]stream{}}
	for _, o := range opts {
		o(p)
	}
	p.forward = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(p.target)
			pr.Out.Host = p.target.Host
		},
		Transport: transport,
		// Watches stream: every event goes to the client at once.
		FlushInterval: -1,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if r.Context().Err() != nil || errors.Is(err, context.Canceled) {
				// The client went away, the stream was cut or the proxy
				// closed: end the connection rather than answer 200 with
				// nothing, which a client would take for a success.
				panic(http.ErrAbortHandler)
			}
			writeStatus(w, http.StatusBadGateway, fmt.Sprintf("faultproxy: forwarding: %v", err))
		},
	}
	return p, nil
}

// Start listens on a free port of 127.0.0.1 and serves until Close.
func (p *Proxy) Start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.started {
		return errors.New("faultproxy: already started")
	}
	if p.ctx.Err() != nil {
		return errors.New("faultproxy: closed")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listening: %w", err)
	}
	// Plain HTTP/1.1 only: client-go then speaks HTTP/1.1, whose
	// connections can be hijacked and reset. No write or idle timeouts:
	// watches last as long as the client wants.
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	p.server = &http.Server{
		Handler:           http.HandlerFunc(p.serve),
		ReadHeaderTimeout: 10 * time.Second,
		Protocols:         &protocols,
		BaseContext:       func(net.Listener) context.Context { return p.ctx },
	}
	p.listener = l
	p.started = true
	go func() { _ = p.server.Serve(l) }()
	return nil
}

// URL returns the proxy's address, "http://127.0.0.1:PORT", or "" before Start.
func (p *Proxy) URL() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.listener == nil {
		return ""
	}
	return "http://" + p.listener.Addr().String()
}

// Close stops listening and ends every request in flight, held or forwarded.
func (p *Proxy) Close() error {
	var err error
	p.closeOnce.Do(func() {
		// Held requests and forwarded streams end with their context;
		// their connections are then aborted, and Shutdown closes the
		// listener and the idle connections.
		p.cancel()
		p.mu.Lock()
		srv := p.server
		p.mu.Unlock()
		if srv == nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if shutdownErr := srv.Shutdown(ctx); shutdownErr != nil {
			if closeErr := srv.Close(); closeErr != nil {
				err = fmt.Errorf("closing the proxy: %w", closeErr)
			}
		}
	})
	return err
}

// Kubeconfig writes a kubeconfig whose only cluster is the proxy; it
// carries no credentials, which the proxy adds.
func (p *Proxy) Kubeconfig(path string) error {
	server := p.URL()
	if server == "" {
		return errors.New("faultproxy: writing a kubeconfig before Start")
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["proxy"] = &clientcmdapi.Cluster{Server: server}
	cfg.AuthInfos["proxy"] = &clientcmdapi.AuthInfo{}
	cfg.Contexts["proxy"] = &clientcmdapi.Context{Cluster: "proxy", AuthInfo: "proxy"}
	cfg.CurrentContext = "proxy"
	// WriteToFile writes it readable by its owner only.
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return fmt.Errorf("writing the proxy's kubeconfig: %w", err)
	}
	return nil
}

// Inject adds r after the rules already there and returns it; the first
// rule that matches a request and has budget left applies to it.
func (p *Proxy) Inject(r Rule) *Injection {
	p.mu.Lock()
	defer p.mu.Unlock()
	in := &Injection{p: p, r: &rule{Rule: r}}
	p.rules = append(p.rules, in.r)
	return in
}

// Clear removes every rule.
func (p *Proxy) Clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rules = nil
}

// Requests returns the requests seen that m matches, in order of arrival.
func (p *Proxy) Requests(m Match) []Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []Request
	for _, r := range p.requests {
		if m.matches(attributes{Verb: r.Verb, Resource: r.Resource, Subresource: r.Subresource, Namespace: r.Namespace}) {
			out = append(out, r)
		}
	}
	return out
}

// CutStreams ends the forwarded requests in flight that m matches, such
// as watches, as a restarting apiserver or a broken connection would; it
// returns how many it cut.
func (p *Proxy) CutStreams(m Match) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, st := range p.streams {
		if m.matches(st.attributes) {
			st.cancel()
			n++
		}
	}
	return n
}

// forwardTracked forwards the i-th request, recording its status code and
// letting CutStreams end it.
func (p *Proxy) forwardTracked(w http.ResponseWriter, r *http.Request, a attributes, i int) {
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	p.mu.Lock()
	p.streams[i] = stream{attributes: a, cancel: cancel}
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.streams, i)
		p.mu.Unlock()
	}()
	p.forward.ServeHTTP(&codeRecorder{ResponseWriter: w, record: func(code int) { p.setCode(i, code) }}, r.WithContext(ctx))
}

// decide picks the rule that applies to a request and records the request,
// returning its index among the records.
func (p *Proxy) decide(a attributes) (*Rule, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var chosen *Rule
	for _, r := range p.rules {
		if !r.Match.matches(a) || (r.Count > 0 && r.applied >= r.Count) {
			continue
		}
		if r.Probability > 0 && r.Probability < 1 && rand.Float64() >= r.Probability {
			continue
		}
		r.applied++
		chosen = &r.Rule
		break
	}
	rec := Request{Time: p.clock.Now(), Verb: a.Verb, Resource: a.Resource, Subresource: a.Subresource, Namespace: a.Namespace, Name: a.Name}
	if chosen != nil {
		rec.Fault = chosen.Fault
	}
	p.requests = append(p.requests, rec)
	return chosen, len(p.requests) - 1
}

// setCode records the status code of the i-th request.
func (p *Proxy) setCode(i, code int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.requests[i].Code = code
}

// serve applies to a request the first rule that matches it, or forwards it.
func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	a := parseRequest(r)
	chosen, i := p.decide(a)
	if chosen == nil {
		p.forwardTracked(w, r, a, i)
		return
	}
	switch chosen.Fault {
	case FaultStatus:
		code := chosen.Status
		if code < 100 || code > 999 {
			code = http.StatusInternalServerError
		}
		p.setCode(i, code)
		writeStatus(w, code, "injected by faultproxy")
	case FaultDelay:
		t := time.NewTimer(chosen.Delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			// The client gave up or the proxy closed: no answer at all.
			panic(http.ErrAbortHandler)
		}
		p.forwardTracked(w, r, a, i)
	case FaultReset:
		reset(w)
	case FaultLoseReply:
		// Forward as usual, but into a sink that reads the whole reply.
		sink := &sinkWriter{header: http.Header{}}
		p.forward.ServeHTTP(sink, r)
		p.setCode(i, sink.code)
		reset(w)
	case FaultBlackhole:
		<-r.Context().Done()
		panic(http.ErrAbortHandler)
	default:
		writeStatus(w, http.StatusInternalServerError, fmt.Sprintf("faultproxy: unknown fault %q", chosen.Fault))
	}
}

// reset closes the client's connection with a TCP reset.
func reset(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	_ = conn.Close()
}

// writeStatus answers with a metav1.Status of code, as the apiserver would.
func writeStatus(w http.ResponseWriter, code int, msg string) {
	st := metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure,
		Code:     int32(code),
		Reason:   reasonFor(code),
		Message:  msg,
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(st)
}

func reasonFor(code int) metav1.StatusReason {
	switch code {
	case http.StatusConflict:
		return metav1.StatusReasonConflict
	case http.StatusGone:
		// As the apiserver says of a resourceVersion it no longer has.
		return metav1.StatusReasonExpired
	case http.StatusServiceUnavailable:
		return metav1.StatusReasonServiceUnavailable
	case http.StatusTooManyRequests:
		return metav1.StatusReasonTooManyRequests
	case http.StatusGatewayTimeout:
		return metav1.StatusReasonTimeout
	case http.StatusNotFound:
		return metav1.StatusReasonNotFound
	case http.StatusForbidden:
		return metav1.StatusReasonForbidden
	default:
		return metav1.StatusReasonInternalError
	}
}

// codeRecorder passes a response through, recording its status code.
type codeRecorder struct {
	http.ResponseWriter
	record func(int)
	done   bool
}

func (c *codeRecorder) WriteHeader(code int) {
	if !c.done && (code >= 200 || code == http.StatusSwitchingProtocols) {
		c.done = true
		c.record(code)
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *codeRecorder) Write(b []byte) (int, error) {
	if !c.done {
		c.WriteHeader(http.StatusOK)
	}
	return c.ResponseWriter.Write(b)
}

// Flush lets watches stream through the recorder.
func (c *codeRecorder) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (c *codeRecorder) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// sinkWriter is a ResponseWriter that discards the body and keeps the status code.
type sinkWriter struct {
	header http.Header
	code   int
}

func (s *sinkWriter) Header() http.Header { return s.header }

func (s *sinkWriter) WriteHeader(code int) {
	if s.code == 0 && code >= 200 {
		s.code = code
	}
}

func (s *sinkWriter) Write(b []byte) (int, error) {
	if s.code == 0 {
		s.code = http.StatusOK
	}
	return len(b), nil
}

// Flush does nothing: there is no one to flush to.
func (s *sinkWriter) Flush() {}
