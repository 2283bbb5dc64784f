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
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
)

// String names the source for messages and logs.
func (s Source) String() string {
	if s.Type == Prometheus {
		return "Prometheus " + s.Address
	}
	return string(s.Type)
}

// String names the Secret key for messages.
func (r SecretKeyRef) String() string {
	return fmt.Sprintf("%s/%s key %q", r.Namespace, r.Name, r.Key)
}

// canonicalSource is the form of a Source that key encodes: the queries
// sorted by resource, and nothing but the type for MetricsServer, whose
// reader ignores the other fields.
type canonicalSource struct {
	Type     SourceType      `json:"t"`
	Address  string          `json:"a,omitempty"`
	Queries  []resourceQuery `json:"q,omitempty"`
	Token    *SecretKeyRef   `json:"tok,omitempty"`
	CA       *SecretKeyRef   `json:"ca,omitempty"`
	Insecure bool            `json:"i,omitempty"`
}

// resourceQuery is one entry of Source.Queries.
type resourceQuery struct {
	Resource Resource `json:"r"`
	Query    string   `json:"q"`
}

// key returns a string that is the same for two Sources exactly when they
// read the same thing the same way, so that they share one store.
func (s Source) key() string {
	c := canonicalSource{Type: s.Type}
	if s.Type != MetricsServer {
		c.Address = strings.TrimRight(s.Address, "/")
		for _, r := range sortedResources(s.Queries) {
			c.Queries = append(c.Queries, resourceQuery{Resource: r, Query: s.Queries[r]})
		}
		c.Token, c.CA, c.Insecure = s.Token, s.CA, s.InsecureSkipVerify
	}
	b, err := json.Marshal(c)
	if err != nil {
		// Strings, bools and pointers to structs of strings always marshal.
		panic(fmt.Sprintf("usage: encoding a source's key: %v", err))
	}
	return string(b)
}

// clone returns a copy of the Source that shares no map or pointer with it.
func (s Source) clone() Source {
	c := s
	c.Queries = maps.Clone(s.Queries)
	if s.Token != nil {
		t := *s.Token
		c.Token = &t
	}
	if s.CA != nil {
		ca := *s.CA
		c.CA = &ca
	}
	return c
}

// validate says why the source cannot be read, or nil.
func (s Source) validate() error {
	switch s.Type {
	case MetricsServer:
		return nil
	case Prometheus:
	default:
		return fmt.Errorf("unknown source type %q (want %q or %q)", s.Type, MetricsServer, Prometheus)
	}
	var errs []error
	if s.Address == "" {
		errs = append(errs, errors.New("prometheus source has no address"))
	} else if u, err := url.Parse(s.Address); err != nil {
		errs = append(errs, fmt.Errorf("prometheus address %q: %w", s.Address, err))
	} else if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("prometheus address %q is not an http(s) URL", s.Address))
	}
	if len(s.Queries) == 0 {
		errs = append(errs, errors.New("prometheus source has no queries"))
	}
	for _, r := range sortedResources(s.Queries) {
		switch r {
		case CPU, Memory, Metric, CPUStdDev, MemoryStdDev:
		default:
			errs = append(errs, fmt.Errorf("query for unknown resource %q (want one of %q, %q, %q, %q, %q)",
				r, CPU, Memory, CPUStdDev, MemoryStdDev, Metric))
			continue
		}
		if strings.TrimSpace(s.Queries[r]) == "" {
			errs = append(errs, fmt.Errorf("query for %s is empty", r))
		}
	}
	for _, ref := range []struct {
		what string
		ref  *SecretKeyRef
	}{{"token", s.Token}, {"CA", s.CA}} {
		if ref.ref != nil && (ref.ref.Name == "" || ref.ref.Key == "") {
			errs = append(errs, fmt.Errorf("%s Secret reference %s needs a name and a key", ref.what, ref.ref))
		}
	}
	return errors.Join(errs...)
}

// sortedResources returns the map's resources in order.
func sortedResources(qs map[Resource]string) []Resource {
	rs := make([]Resource, 0, len(qs))
	for r := range qs {
		rs = append(rs, r)
	}
	slices.Sort(rs)
	return rs
}
