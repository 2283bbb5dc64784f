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

package extender

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/berth-io/berth/api/v1alpha1"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// fakeSecrets is a SecretSource whose Secrets a test sets; each set is a new version.
type fakeSecrets struct {
	mu      sync.Mutex
	data    map[string]map[string][]byte
	version int
}

func (f *fakeSecrets) set(name string, data map[string][]byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.data == nil {
		f.data = map[string]map[string][]byte{}
	}
	f.data[name] = data
	f.version++
}

func (f *fakeSecrets) Secret(namespace, name string) (map[string][]byte, string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.data[namespace+"/"+name]
	return d, strconv.Itoa(f.version), ok
}

// mtlsServer is an extender that requires a client certificate from
// clientCA and records the common name of each caller.
type mtlsServer struct {
	*httptest.Server
	mu      sync.Mutex
	callers []string
}

func newMTLSServer(t *testing.T, serverCA, clientCA *st.CA) *mtlsServer {
	t.Helper()
	s := &mtlsServer{}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.callers = append(s.callers, r.TLS.PeerCertificates[0].Subject.CommonName)
		s.mu.Unlock()
		_ = json.NewEncoder(w).Encode(BindingResult{})
	}))
	cert, err := serverCA.Server()
	if err != nil {
		t.Fatal(err)
	}
	s.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: clientCA.Pool()}
	s.StartTLS()
	t.Cleanup(s.Close)
	return s
}

func (s *mtlsServer) lastCaller() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.callers) == 0 {
		return ""
	}
	return s.callers[len(s.callers)-1]
}

func mustCA(t *testing.T, name string) *st.CA {
	t.Helper()
	ca, err := st.NewCA(name)
	if err != nil {
		t.Fatal(err)
	}
	return ca
}

// clientSecret is the data of a Secret with a client certificate for name
// from ca, and caPEM as ca.crt when not nil.
func clientSecret(t *testing.T, ca *st.CA, name string, caPEM []byte) map[string][]byte {
	t.Helper()
	crt, key, err := ca.Client(name)
	if err != nil {
		t.Fatal(err)
	}
	data := map[string][]byte{SecretCertKey: crt, SecretKeyKey: key}
	if caPEM != nil {
		data[SecretCAKey] = caPEM
	}
	return data
}

func secretExtender(t *testing.T, url string, src SecretSource, caData []byte) *Extender {
	t.Helper()
	cfg := makeCfg(url).bind().obj()
	cfg.EnableHTTPS = true
	cfg.TLSConfig = &v1alpha1.ExtenderTLSConfig{CAData: caData, SecretRef: &v1alpha1.SecretReference{Namespace: "berth-system", Name: "extender-tls"}}
	e, err := New(cfg, WithSecrets(src))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestTLSFromSecret(t *testing.T) {
	serverCA, clientCA, otherCA := mustCA(t, "server-ca"), mustCA(t, "client-ca"), mustCA(t, "other-ca")
	srv := newMTLSServer(t, serverCA, clientCA)
	tests := []struct {
		name string
		// secret is the Secret's data; nil means there is no Secret.
		secret map[string][]byte
		// caData is the profile's inline tlsConfig.caData.
		caData     []byte
		wantCaller string
		wantErr    string
	}{
		{name: "certificate, key and CA from the Secret", secret: clientSecret(t, clientCA, "berth", serverCA.PEM()), wantCaller: "berth"},
		{name: "the Secret's CA, else caData", secret: clientSecret(t, clientCA, "berth", nil), caData: serverCA.PEM(), wantCaller: "berth"},
		{name: "no CA at all: not verified, as upstream", secret: clientSecret(t, clientCA, "berth", nil), wantCaller: "berth"},
		{name: "the extender's certificate is not the Secret CA's", secret: clientSecret(t, clientCA, "berth", otherCA.PEM()),
			wantErr: "certificate signed by unknown authority"},
		{name: "no Secret", wantErr: "Secret berth-system/extender-tls not found"},
		{name: "a certificate without its key", secret: map[string][]byte{SecretCertKey: clientSecret(t, clientCA, "berth", nil)[SecretCertKey]},
			wantErr: "tls.crt and tls.key go together"},
		{name: "a client certificate the extender does not trust", secret: clientSecret(t, otherCA, "intruder", serverCA.PEM()),
			wantErr: "extender https://127.0.0.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := &fakeSecrets{}
			if tt.secret != nil {
				src.set("berth-system/extender-tls", tt.secret)
			}
			e := secretExtender(t, srv.URL, src, tt.caData)
			err := e.Bind(context.Background(), st.Pod("p").Obj(), "n1")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := srv.lastCaller(); got != tt.wantCaller {
				t.Errorf("the extender saw %q, want %q", got, tt.wantCaller)
			}
		})
	}
}

// TestTLSSecretRotation rotates the client certificate in the Secret: the
// next call presents the new one, although the old connection was idle.
func TestTLSSecretRotation(t *testing.T) {
	serverCA, clientCA := mustCA(t, "server-ca"), mustCA(t, "client-ca")
	srv := newMTLSServer(t, serverCA, clientCA)
	src := &fakeSecrets{}
	src.set("berth-system/extender-tls", clientSecret(t, clientCA, "before", serverCA.PEM()))
	e := secretExtender(t, srv.URL, src, nil)
	call := func(want string) {
		t.Helper()
		if err := e.Bind(context.Background(), st.Pod("p").Obj(), "n1"); err != nil {
			t.Fatal(err)
		}
		if got := srv.lastCaller(); got != want {
			t.Fatalf("the extender saw %q, want %q", got, want)
		}
	}
	call("before")
	call("before")
	src.set("berth-system/extender-tls", clientSecret(t, clientCA, "after", serverCA.PEM()))
	call("after")
	call("after")
}

func TestParseSecretTLS(t *testing.T) {
	ca := mustCA(t, "ca")
	good := clientSecret(t, ca, "berth", ca.PEM())
	tests := []struct {
		name             string
		data             map[string][]byte
		wantCert, wantCA bool
		wantErr          string
	}{
		{name: "all three", data: good, wantCert: true, wantCA: true},
		{name: "only the CA", data: map[string][]byte{SecretCAKey: ca.PEM()}, wantCA: true},
		{name: "empty", data: map[string][]byte{}},
		{name: "a key without its certificate", data: map[string][]byte{SecretKeyKey: good[SecretKeyKey]}, wantErr: "go together"},
		{name: "a CA that is not PEM", data: map[string][]byte{SecretCAKey: []byte("junk")}, wantErr: "ca.crt holds no PEM certificate"},
		{name: "a key of another certificate", data: map[string][]byte{SecretCertKey: good[SecretCertKey], SecretKeyKey: clientSecret(t, ca, "x", nil)[SecretKeyKey]},
			wantErr: "tls.crt and tls.key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cert, roots, err := parseSecretTLS(tt.data)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || (cert != nil) != tt.wantCert || (roots != nil) != tt.wantCA {
				t.Errorf("cert %v, roots %v, err %v; want cert %v, roots %v", cert != nil, roots != nil, err, tt.wantCert, tt.wantCA)
			}
		})
	}
}
