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
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
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
	// Status is the HTTP code FaultStatus answers.
	Status int
	// Delay is how long FaultDelay holds a request.
	Delay time.Duration
	// Count bounds how many requests the rule applies to; 0 is unlimited.
	Count int
	// Probability is the fraction of matching requests the rule applies to; 0 is all.
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
	// Code is the HTTP status the apiserver or the proxy answered; 0 when none was received.
	Code int
}

// Proxy forwards requests to the apiserver, injecting the faults of its rules.
type Proxy struct {
	target    *url.URL
	transport http.RoundTripper
	clock     clock.PassiveClock
	forward   *httputil.ReverseProxy

	listener net.Listener
	server   *http.Server
	closed   chan struct{}

	mu       sync.Mutex
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

// rule is a Rule with the budget it has left.
type rule struct {
	Rule
	applied int
}

// Option configures a Proxy.
type Option func(*Proxy)

// WithClock sets the clock that stamps requests.
func WithClock(c clock.PassiveClock) Option { return func(p *Proxy) { p.clock = c } }

// New returns a Proxy that forwards to the apiserver that cfg describes,
// with cfg's credentials.
func New(cfg *rest.Config, opts ...Option) (*Proxy, error) {
	target, err := url.Parse(cfg.Host)
	if err != nil {
		return nil, fmt.Errorf("parsing the apiserver's address %q: %w", cfg.Host, err)
	}
	if target.Scheme == "" {
		target.Scheme = "https"
	}
	transport, err := rest.TransportFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("building the apiserver's transport: %w", err)
	}
	p := &Proxy{target: target, transport: transport, clock: clock.RealClock{}, closed: make(chan struct{}), streams: map[int]stream{}}
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
			if errors.Is(err, context.Canceled) {
				return
			}
			writeStatus(w, http.StatusBadGateway, fmt.Sprintf("faultproxy: forwarding: %v", err))
		},
	}
	return p, nil
}

// Start listens on a free port of 127.0.0.1 and serves until Close.
func (p *Proxy) Start() error {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listening: %w", err)
	}
	p.listener = l
	// Plain HTTP/1.1: client-go then speaks HTTP/1.1, whose connections
	// can be hijacked and reset.
	p.server = &http.Server{Handler: http.HandlerFunc(p.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = p.server.Serve(l) }()
	return nil
}

// URL returns the proxy's address.
func (p *Proxy) URL() string { return "http://" + p.listener.Addr().String() }

// Close stops serving and ends the requests it holds.
func (p *Proxy) Close() error {
	select {
	case <-p.closed:
		return nil
	default:
	}
	close(p.closed)
	if p.server == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := p.server.Shutdown(ctx); err != nil {
		// Watches and held requests do not end by themselves.
		return p.server.Close()
	}
	return nil
}

// Kubeconfig writes a kubeconfig whose only cluster is the proxy; it
// carries no credentials, which the proxy adds.
func (p *Proxy) Kubeconfig(path string) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["proxy"] = &clientcmdapi.Cluster{Server: p.URL()}
	cfg.AuthInfos["proxy"] = &clientcmdapi.AuthInfo{}
	cfg.Contexts["proxy"] = &clientcmdapi.Context{Cluster: "proxy", AuthInfo: "proxy"}
	cfg.CurrentContext = "proxy"
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return fmt.Errorf("writing the proxy's kubeconfig: %w", err)
	}
	return os.Chmod(path, 0o600)
}

// Inject adds r after the rules already there: the first rule that
// matches a request and has budget left applies to it.
func (p *Proxy) Inject(r Rule) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rules = append(p.rules, &rule{Rule: r})
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

func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	a := parseRequest(r)
	chosen, i := p.decide(a)
	if chosen == nil {
		p.forwardTracked(w, r, a, i)
		return
	}
	switch chosen.Fault {
	case FaultStatus:
		p.setCode(i, chosen.Status)
		writeStatus(w, chosen.Status, "injected by faultproxy")
	case FaultDelay:
		select {
		case <-time.After(chosen.Delay):
		case <-r.Context().Done():
			return
		case <-p.closed:
			return
		}
		p.forwardTracked(w, r, a, i)
	case FaultReset:
		reset(w)
	case FaultLoseReply:
		resp, err := p.roundTrip(r)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			p.setCode(i, resp.StatusCode)
		}
		reset(w)
	case FaultBlackhole:
		select {
		case <-r.Context().Done():
		case <-p.closed:
		}
	default:
		writeStatus(w, http.StatusInternalServerError, fmt.Sprintf("faultproxy: unknown fault %q", chosen.Fault))
	}
}

// roundTrip sends r to the apiserver as the reverse proxy would.
func (p *Proxy) roundTrip(r *http.Request) (*http.Response, error) {
	out := r.Clone(r.Context())
	out.RequestURI = ""
	out.URL.Scheme, out.URL.Host = p.target.Scheme, p.target.Host
	out.Host = p.target.Host
	return p.transport.RoundTrip(out)
}

// reset closes the client's connection with a TCP reset.
func reset(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
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
	if !c.done {
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
