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

// Package extender calls upstream-compatible HTTP scheduler extenders: the
// filter, prioritize, preempt and bind verbs of a SchedulingProfile's
// spec.extenders.
package extender

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/utils/clock"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/metrics"
)

// DefaultTimeout bounds each call when the extender sets no httpTimeout, as upstream.
const DefaultTimeout = 5 * time.Second

// MaxTimeout is the longest httpTimeout an extender may have: its calls
// are made inside the scheduling cycle, which every profile shares. The
// CRD refuses more; an older stored profile is cut to it.
const MaxTimeout = 30 * time.Second

// maxResponseBytes caps how much of an extender's answer is read.
const maxResponseBytes = 64 << 20

// Extender is the client of one HTTP extender. It is safe for concurrent use.
type Extender struct {
	urlPrefix      string
	filterVerb     string
	prioritizeVerb string
	bindVerb       string
	preemptVerb    string
	weight         int64
	nodeCache      bool
	ignorable      bool
	managed        sets.Set[string]
	client         *http.Client
	breaker        *breaker
	// secretTLS is the TLS material of tlsConfig.secretRef, nil without one;
	// idle closes the connections made with material the Secret replaced.
	secretTLS *secretTLS
	idle      interface{ CloseIdleConnections() }
	metrics   *metrics.ExtenderRecorder
}

// Option configures New.
type Option func(*options)

type options struct {
	clock   clock.PassiveClock
	secrets SecretSource
	metrics *metrics.Metrics
}

// WithClock sets the clock of the extender's circuit breaker.
func WithClock(c clock.PassiveClock) Option { return func(o *options) { o.clock = c } }

// WithMetrics records the extender's calls and circuit state; nil records nothing.
func WithMetrics(m *metrics.Metrics) Option { return func(o *options) { o.metrics = m } }

// New builds the client of one extender from its profile configuration.
func New(cfg v1alpha1.Extender, opts ...Option) (*Extender, error) {
	o := options{clock: clock.RealClock{}, secrets: noSecrets{}}
	for _, opt := range opts {
		opt(&o)
	}
	if cfg.URLPrefix == "" {
		return nil, errors.New("urlPrefix must be set")
	}
	if cfg.PrioritizeVerb != "" && cfg.Weight < 1 {
		return nil, fmt.Errorf("extender %q: weight must be at least 1 when prioritizeVerb is set", cfg.URLPrefix)
	}
	timeout := DefaultTimeout
	if cfg.HTTPTimeout != nil && cfg.HTTPTimeout.Duration > 0 {
		timeout = min(cfg.HTTPTimeout.Duration, MaxTimeout)
	}
	rt, fromSecret, err := transportFor(cfg, o.secrets)
	if err != nil {
		return nil, fmt.Errorf("extender %q: %w", cfg.URLPrefix, err)
	}
	e := &Extender{
		urlPrefix:      strings.TrimRight(cfg.URLPrefix, "/"),
		filterVerb:     cfg.FilterVerb,
		prioritizeVerb: cfg.PrioritizeVerb,
		bindVerb:       cfg.BindVerb,
		preemptVerb:    cfg.PreemptVerb,
		weight:         cfg.Weight,
		nodeCache:      cfg.NodeCacheCapable,
		ignorable:      cfg.Ignorable,
		managed:        sets.New[string](),
		client: &http.Client{Transport: rt, Timeout: timeout,
			// An extender answers; it does not send the scheduler elsewhere.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
		secretTLS: fromSecret,
		idle:      rt,
	}
	// A new client starts with its breaker closed.
	e.metrics = o.metrics.Extender(e.urlPrefix)
	e.metrics.SetCircuitOpen(false)
	e.breaker = &breaker{clock: o.clock, onChange: e.metrics.SetCircuitOpen}
	for _, r := range cfg.ManagedResources {
		e.managed.Insert(r.Name)
	}
	return e, nil
}

// transportFor builds the TLS transport of an extender, with the material
// of its tlsConfig.secretRef read through secrets when it has one. As
// upstream, an https extender without authorities to trust is not verified.
func transportFor(cfg v1alpha1.Extender, secrets SecretSource) (*http.Transport, *secretTLS, error) {
	t := http.DefaultTransport.(*http.Transport).Clone()
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	t.TLSClientConfig = tc
	c := cfg.TLSConfig
	if c == nil {
		tc.InsecureSkipVerify = cfg.EnableHTTPS
		return t, nil, nil
	}
	tc.InsecureSkipVerify = c.Insecure
	tc.ServerName = c.ServerName
	if len(c.CAData) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(c.CAData) {
			return nil, nil, errors.New("tlsConfig.caData holds no PEM certificate")
		}
		tc.RootCAs = pool
	}
	if c.SecretRef != nil {
		st := newSecretTLS(secrets, c, tc.RootCAs)
		st.configure(tc, c.Insecure)
		return t, st, nil
	}
	// keyData is refused at admission; a profile stored before keeps working.
	if len(c.CertData) > 0 || len(c.KeyData) > 0 {
		cert, err := tls.X509KeyPair(c.CertData, c.KeyData)
		if err != nil {
			return nil, nil, fmt.Errorf("tlsConfig client certificate: %w", err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	if cfg.EnableHTTPS && tc.RootCAs == nil {
		tc.InsecureSkipVerify = true
	}
	return t, nil, nil
}

// Name identifies the extender by its URL prefix.
func (e *Extender) Name() string { return e.urlPrefix }

// String returns Name, for logs.
func (e *Extender) String() string { return e.urlPrefix }

// IsFilter reports whether the extender filters nodes.
func (e *Extender) IsFilter() bool { return e.filterVerb != "" }

// IsPrioritizer reports whether the extender scores nodes.
func (e *Extender) IsPrioritizer() bool { return e.prioritizeVerb != "" }

// IsBinder reports whether the extender binds pods.
func (e *Extender) IsBinder() bool { return e.bindVerb != "" }

// SupportsPreemption reports whether the extender has a preempt verb, which DefaultPreemption calls.
func (e *Extender) SupportsPreemption() bool { return e.preemptVerb != "" }

// IsIgnorable reports whether the extender's failures are skipped rather than failing the cycle.
func (e *Extender) IsIgnorable() bool { return e.ignorable }

// Weight is the multiplier of the extender's scores.
func (e *Extender) Weight() int64 { return e.weight }

// IsInterested reports whether the pod concerns the extender: every pod does
// when it manages no resources, else only pods whose containers request or
// limit one of them.
func (e *Extender) IsInterested(pod *v1.Pod) bool {
	if e.managed.Len() == 0 {
		return true
	}
	return e.usesManaged(pod.Spec.Containers) || e.usesManaged(pod.Spec.InitContainers)
}

func (e *Extender) usesManaged(containers []v1.Container) bool {
	for i := range containers {
		r := &containers[i].Resources
		for name := range r.Requests {
			if e.managed.Has(string(name)) {
				return true
			}
		}
		for name := range r.Limits {
			if e.managed.Has(string(name)) {
				return true
			}
		}
	}
	return false
}

// Filter asks the extender which of the nodes may run the pod. It returns the
// nodes that passed (a subset of nodes, in the extender's order) and the
// reasons of the rejected ones, split into those preemption may help and
// those it cannot. An extender that does not filter passes every node.
func (e *Extender) Filter(ctx context.Context, pod *v1.Pod, nodes []*framework.NodeInfo) (feasible []*framework.NodeInfo, failed, failedUnresolvable map[string]string, err error) {
	if !e.IsFilter() {
		return nodes, nil, nil, nil
	}
	byName := make(map[string]*framework.NodeInfo, len(nodes))
	for _, ni := range nodes {
		byName[ni.Node().Name] = ni
	}
	var result FilterResult
	if err := e.send(ctx, "filter", e.filterVerb, e.args(pod, nodes), &result); err != nil {
		return nil, nil, nil, err
	}
	if result.Error != "" {
		return nil, nil, nil, fmt.Errorf("extender %s: filter: %s", e.urlPrefix, result.Error)
	}
	switch {
	case e.nodeCache && result.NodeNames != nil:
		feasible = make([]*framework.NodeInfo, 0, len(*result.NodeNames))
		for _, name := range *result.NodeNames {
			if ni, ok := byName[name]; ok {
				feasible = append(feasible, ni)
			}
		}
	case result.Nodes != nil:
		feasible = make([]*framework.NodeInfo, 0, len(result.Nodes.Items))
		for i := range result.Nodes.Items {
			if ni, ok := byName[result.Nodes.Items[i].Name]; ok {
				feasible = append(feasible, ni)
			}
		}
	}
	return feasible, result.FailedNodes, result.FailedAndUnresolvableNodes, nil
}

// Prioritize asks the extender to score the nodes in [0, MaxPriority]; it
// also returns the extender's weight. An extender that does not score returns
// no scores.
func (e *Extender) Prioritize(ctx context.Context, pod *v1.Pod, nodes []*framework.NodeInfo) (HostPriorityList, int64, error) {
	if !e.IsPrioritizer() {
		return nil, 0, nil
	}
	var result HostPriorityList
	if err := e.send(ctx, "prioritize", e.prioritizeVerb, e.args(pod, nodes), &result); err != nil {
		return nil, 0, err
	}
	return result, e.weight, nil
}

// Bind asks the extender to bind the pod to the node.
func (e *Extender) Bind(ctx context.Context, pod *v1.Pod, nodeName string) error {
	if !e.IsBinder() {
		return fmt.Errorf("extender %s does not bind", e.urlPrefix)
	}
	args := &BindingArgs{PodName: pod.Name, PodNamespace: pod.Namespace, PodUID: pod.UID, Node: nodeName}
	var result BindingResult
	if err := e.send(ctx, "bind", e.bindVerb, args, &result); err != nil {
		return err
	}
	if result.Error != "" {
		return fmt.Errorf("extender %s: bind: %s", e.urlPrefix, result.Error)
	}
	return nil
}

// ProcessPreemption asks the extender which of the preemption candidates it
// accepts: victims maps each candidate node to the pods preemption would
// evict there. The answer is the nodes the extender keeps, each with the
// victims it accepts, turned back into pods through nodes; a node or a pod
// UID the snapshot does not have there is an error, as upstream. The
// extender may keep fewer nodes and other victims; victims is not changed.
func (e *Extender) ProcessPreemption(ctx context.Context, pod *v1.Pod, victims map[string]*Victims, nodes framework.NodeInfoLister) (map[string]*Victims, error) {
	if !e.SupportsPreemption() {
		return nil, fmt.Errorf("extender %s has no preempt verb", e.urlPrefix)
	}
	args := &PreemptionArgs{Pod: pod}
	if e.nodeCache {
		args.NodeNameToMetaVictims = toMetaVictims(victims)
	} else {
		args.NodeNameToVictims = victims
	}
	var result PreemptionResult
	if err := e.send(ctx, "preempt", e.preemptVerb, args, &result); err != nil {
		return nil, err
	}
	out := make(map[string]*Victims, len(result.NodeNameToMetaVictims))
	for name, meta := range result.NodeNameToMetaVictims {
		ni, err := nodes.Get(name)
		if err != nil {
			return nil, fmt.Errorf("extender %s: preempt: the answer names node %q: %w", e.urlPrefix, name, err)
		}
		v := &Victims{Pods: []*v1.Pod{}}
		if meta != nil {
			v.NumPDBViolations = meta.NumPDBViolations
			for _, mp := range meta.Pods {
				var uid string
				if mp != nil {
					uid = mp.UID
				}
				p := podByUID(ni, uid)
				if p == nil {
					return nil, fmt.Errorf("extender %s: preempt: the answer names pod UID %q on node %s, which has no such pod", e.urlPrefix, uid, name)
				}
				v.Pods = append(v.Pods, p)
			}
		}
		out[name] = v
	}
	return out, nil
}

// toMetaVictims names the victims by UID, for an extender that caches nodes.
func toMetaVictims(victims map[string]*Victims) map[string]*MetaVictims {
	out := make(map[string]*MetaVictims, len(victims))
	for name, v := range victims {
		meta := &MetaVictims{Pods: make([]*MetaPod, 0, len(v.Pods)), NumPDBViolations: v.NumPDBViolations}
		for _, p := range v.Pods {
			meta.Pods = append(meta.Pods, &MetaPod{UID: string(p.UID)})
		}
		out[name] = meta
	}
	return out
}

// podByUID finds the pod of the node with the UID, or nil.
func podByUID(ni *framework.NodeInfo, uid string) *v1.Pod {
	if uid == "" {
		return nil
	}
	for _, pi := range ni.Pods {
		if string(pi.Pod.UID) == uid {
			return pi.Pod
		}
	}
	return nil
}

// args builds the body of a filter or prioritize call: node names for an
// extender that caches nodes, the nodes themselves otherwise.
func (e *Extender) args(pod *v1.Pod, nodes []*framework.NodeInfo) *Args {
	a := &Args{Pod: pod}
	if e.nodeCache {
		names := make([]string, len(nodes))
		for i, ni := range nodes {
			names[i] = ni.Node().Name
		}
		a.NodeNames = &names
		return a
	}
	list := &v1.NodeList{Items: make([]v1.Node, len(nodes))}
	for i, ni := range nodes {
		list.Items[i] = *ni.Node()
	}
	a.Nodes = list
	return a
}

// probe sends req, a call the breaker held back, to learn whether the
// extender answers again; its answer is discarded.
func (e *Extender) probe(req *http.Request, body []byte) {
	req.Body = io.NopCloser(bytes.NewReader(body))
	resp, err := e.client.Do(req)
	if err != nil {
		e.breaker.unreachable(err)
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxResponseBytes))
	_ = resp.Body.Close()
	e.breaker.answered()
}

// request builds the POST of args as JSON to urlPrefix/verb.
func (e *Extender) request(ctx context.Context, verb string, args any) (*http.Request, []byte, error) {
	body, err := json.Marshal(args)
	if err != nil {
		return nil, nil, fmt.Errorf("extender %s: encoding the %s request: %w", e.urlPrefix, verb, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.urlPrefix+"/"+verb, bytes.NewReader(body))
	if err != nil {
		return nil, nil, fmt.Errorf("extender %s: %w", e.urlPrefix, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if e.secretTLS != nil && e.secretTLS.changed() && e.idle != nil {
		// Connections made with the Secret's previous material are not reused.
		e.idle.CloseIdleConnections()
	}
	return req, body, nil
}

// send POSTs args as JSON to urlPrefix/verb and decodes the answer into
// result; kind (filter, prioritize, bind or preempt) labels the call's metric.
// The breaker is asked first: a call it refuses costs no encoding, which
// matters since args may hold every node of the cluster.
func (e *Extender) send(ctx context.Context, kind, verb string, args, result any) (err error) {
	call, probe, refused := e.breaker.admit()
	if call {
		defer func() {
			if err != nil {
				e.metrics.Call(kind, metrics.ExtenderError)
			} else {
				e.metrics.Call(kind, metrics.ExtenderSuccess)
			}
		}()
	} else {
		e.metrics.Call(kind, metrics.ExtenderRefused)
	}
	if !call && !probe {
		return fmt.Errorf("extender %s: %w", e.urlPrefix, refused)
	}
	req, body, err := e.request(ctx, verb, args)
	if err != nil {
		if probe {
			e.breaker.probeNotSent()
		}
		return err
	}
	if probe {
		// The probe outlives this cycle, bounded by the client's timeout.
		go e.probe(req.Clone(context.WithoutCancel(ctx)), body)
	}
	if !call {
		return fmt.Errorf("extender %s: %w", e.urlPrefix, refused)
	}
	resp, err := e.client.Do(req)
	if err != nil {
		if ctx.Err() == nil {
			e.breaker.unreachable(err)
		}
		return fmt.Errorf("extender %s: %w", e.urlPrefix, err)
	}
	e.breaker.answered()
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxResponseBytes))
		return fmt.Errorf("extender %s: %s returned HTTP %d", e.urlPrefix, req.URL, resp.StatusCode)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxResponseBytes)).Decode(result); err != nil {
		return fmt.Errorf("extender %s: decoding the %s answer: %w", e.urlPrefix, verb, err)
	}
	return nil
}
