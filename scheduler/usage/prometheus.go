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
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	promapi "github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// instanceLabel is the label that names a sample's node.
const instanceLabel = model.InstanceLabel

// promReader runs one instant query per resource of a Prometheus source.
type promReader struct {
	src     Source
	secrets SecretGetter
	now     func() time.Time

	mu sync.Mutex
	// transport is reused from read to read while the CA stays the same, so
	// that connections are kept alive.
	transport *http.Transport
	ca        []byte
}

func (p *promReader) read(ctx context.Context) (map[string]sample, error) {
	rt, err := p.roundTripper(ctx)
	if err != nil {
		return nil, err
	}
	c, err := promapi.NewClient(promapi.Config{Address: p.src.Address, RoundTripper: rt})
	if err != nil {
		return nil, fmt.Errorf("prometheus client for %s: %w", p.src.Address, err)
	}
	api := promv1.NewAPI(c)
	logger := logr.FromContextOrDiscard(ctx)
	at := p.now()
	out := make(map[string]sample)
	for _, res := range sortedResources(p.src.Queries) {
		val, warnings, _, err := api.Query(ctx, p.src.Queries[res], at)
		if err != nil {
			return nil, fmt.Errorf("querying %s for %s: %w", p.src.Address, res, err)
		}
		if len(warnings) > 0 {
			logger.Info("Prometheus warned about a query", "resource", res, "warnings", []string(warnings))
		}
		vec, ok := val.(model.Vector)
		if !ok {
			got := "nothing"
			if val != nil {
				got = val.Type().String()
			}
			return nil, fmt.Errorf("query for %s: expected a vector, got %s", res, got)
		}
		for _, smp := range vec {
			name := string(smp.Metric[instanceLabel])
			if name == "" {
				return nil, fmt.Errorf("query for %s: sample %s has no %q label", res, smp.Metric, instanceLabel)
			}
			v := float64(smp.Value)
			if math.IsNaN(v) || v < 0 || v > 1 {
				return nil, fmt.Errorf("query for %s: node %q has value %v outside [0, 1]", res, name, v)
			}
			s, ok := out[name]
			if !ok {
				s = sample{at: at, values: make(map[Resource]float64, len(p.src.Queries))}
				out[name] = s
			}
			if _, dup := s.values[res]; dup {
				return nil, fmt.Errorf("query for %s: more than one sample for node %q", res, name)
			}
			s.values[res] = v
		}
	}
	return out, nil
}

// roundTripper returns the transport for the source's TLS settings, with the
// bearer token read from its Secret, both read again on each call so that a
// rotated token or CA is picked up.
func (p *promReader) roundTripper(ctx context.Context) (http.RoundTripper, error) {
	var ca []byte
	if p.src.CA != nil {
		var err error
		if ca, err = p.secret(ctx, "CA bundle", *p.src.CA); err != nil {
			return nil, err
		}
	}
	t, err := p.transportFor(ca)
	if err != nil {
		return nil, err
	}
	if p.src.Token == nil {
		return t, nil
	}
	tok, err := p.secret(ctx, "bearer token", *p.src.Token)
	if err != nil {
		return nil, err
	}
	token := strings.TrimSpace(string(tok))
	if token == "" {
		return nil, fmt.Errorf("bearer token in Secret %s is empty", p.src.Token)
	}
	return &bearerRoundTripper{token: token, next: t}, nil
}

// secret reads one Secret key through the SecretGetter.
func (p *promReader) secret(ctx context.Context, what string, ref SecretKeyRef) ([]byte, error) {
	if p.secrets == nil {
		return nil, fmt.Errorf("reading %s from Secret %s: no Secret getter configured", what, ref)
	}
	b, err := p.secrets(ctx, ref)
	if err != nil {
		return nil, fmt.Errorf("reading %s from Secret %s: %w", what, ref, err)
	}
	return b, nil
}

// transportFor returns the cached transport when it was built for the same
// CA bundle, and builds a new one otherwise.
func (p *promReader) transportFor(ca []byte) (*http.Transport, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.transport != nil && bytes.Equal(ca, p.ca) {
		return p.transport, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: p.src.InsecureSkipVerify}
	if ca != nil {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(ca) {
			return nil, fmt.Errorf("CA bundle in Secret %s holds no PEM certificate", p.src.CA)
		}
		cfg.RootCAs = pool
	}
	base, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return nil, errors.New("http.DefaultTransport is not an *http.Transport")
	}
	t := base.Clone()
	t.TLSClientConfig = cfg
	if p.transport != nil {
		p.transport.CloseIdleConnections()
	}
	p.transport, p.ca = t, bytes.Clone(ca)
	return t, nil
}

// close drops the reader's idle connections.
func (p *promReader) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.transport != nil {
		p.transport.CloseIdleConnections()
	}
}

// bearerRoundTripper sets the Authorization header of each request.
type bearerRoundTripper struct {
	token string
	next  http.RoundTripper
}

func (b *bearerRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Authorization") == "" {
		req = req.Clone(req.Context())
		req.Header.Set("Authorization", "Bearer "+b.token)
	}
	return b.next.RoundTrip(req)
}
