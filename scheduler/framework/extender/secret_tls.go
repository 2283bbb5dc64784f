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
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"sync"

	"github.com/berth-io/berth/api/v1alpha1"
)

// The keys of an extender's TLS Secret, as in a kubernetes.io/tls Secret
// (plus cert-manager's ca.crt).
const (
	// SecretCertKey holds the PEM client certificate.
	SecretCertKey = "tls.crt"
	// SecretKeyKey holds the PEM key of the client certificate.
	SecretKeyKey = "tls.key"
	// SecretCAKey holds the PEM authorities the extender's certificate is verified against.
	SecretCAKey = "ca.crt"
)

// SecretSource gives extenders the Secrets their tlsConfig.secretRef names.
type SecretSource interface {
	// Secret returns the Secret's data and its resourceVersion; ok is false
	// while the Secret does not exist or may not be read.
	Secret(namespace, name string) (data map[string][]byte, version string, ok bool)
}

// WithSecrets reads the Secrets of tlsConfig.secretRef through src. Without
// it, an extender with a secretRef fails every call, as it has no material.
func WithSecrets(src SecretSource) Option { return func(o *options) { o.secrets = src } }

// noSecrets is the source of a client built without WithSecrets (an
// offline compile, for example): it has no Secret.
type noSecrets struct{}

func (noSecrets) Secret(string, string) (map[string][]byte, string, bool) { return nil, "", false }

// secretTLS is an extender's TLS material read from a Secret. The client
// certificate and the authorities are parsed once per version of the
// Secret, and looked up at every TLS handshake, so a rotated Secret is used
// by the next connection.
type secretTLS struct {
	src             SecretSource
	namespace, name string
	// inlineCA are the authorities of tlsConfig.caData, used when the Secret has no ca.crt.
	inlineCA *x509.CertPool
	// serverName is tlsConfig.serverName, checked instead of the URL's host when set.
	serverName string

	mu sync.Mutex
	// version is the Secret's resourceVersion the fields below were parsed from.
	version string
	cert    *tls.Certificate
	roots   *x509.CertPool
	err     error
	// used is the version the extender's connections were made with.
	used string
}

// newSecretTLS returns the Secret-backed material of tlsConfig c.
func newSecretTLS(src SecretSource, c *v1alpha1.ExtenderTLSConfig, inlineCA *x509.CertPool) *secretTLS {
	return &secretTLS{src: src, namespace: c.SecretRef.Namespace, name: c.SecretRef.Name, inlineCA: inlineCA, serverName: c.ServerName}
}

// configure makes tc read its client certificate and, unless insecure,
// verify the extender against the Secret's authorities.
func (s *secretTLS) configure(tc *tls.Config, insecure bool) {
	tc.GetClientCertificate = s.clientCertificate
	// The authorities may change with the Secret, so the check is made
	// in VerifyConnection against the current ones, not by crypto/tls
	// against a fixed pool.
	tc.InsecureSkipVerify = true
	if !insecure {
		tc.VerifyConnection = s.verify
	}
}

// material returns the Secret's current client certificate (nil for none)
// and authorities (nil for none), parsing them when the Secret changed.
func (s *secretTLS) material() (*tls.Certificate, *x509.CertPool, error) {
	data, version, ok := s.src.Secret(s.namespace, s.name)
	if !ok {
		return nil, nil, fmt.Errorf("tlsConfig.secretRef: Secret %s/%s not found, or Berth may not read it", s.namespace, s.name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if version != s.version || version == "" {
		s.version = version
		s.cert, s.roots, s.err = parseSecretTLS(data)
		if s.err != nil {
			s.err = fmt.Errorf("tlsConfig.secretRef: Secret %s/%s: %w", s.namespace, s.name, s.err)
		}
	}
	return s.cert, s.roots, s.err
}

// parseSecretTLS reads the client certificate and authorities of a Secret's data.
func parseSecretTLS(data map[string][]byte) (*tls.Certificate, *x509.CertPool, error) {
	var cert *tls.Certificate
	crt, key := data[SecretCertKey], data[SecretKeyKey]
	switch {
	case len(crt) > 0 && len(key) > 0:
		c, err := tls.X509KeyPair(crt, key)
		if err != nil {
			return nil, nil, fmt.Errorf("%s and %s: %w", SecretCertKey, SecretKeyKey, err)
		}
		cert = &c
	case len(crt) > 0 || len(key) > 0:
		return nil, nil, fmt.Errorf("%s and %s go together; the Secret has only one of them", SecretCertKey, SecretKeyKey)
	}
	var roots *x509.CertPool
	if ca := data[SecretCAKey]; len(ca) > 0 {
		roots = x509.NewCertPool()
		if !roots.AppendCertsFromPEM(ca) {
			return nil, nil, fmt.Errorf("%s holds no PEM certificate", SecretCAKey)
		}
	}
	return cert, roots, nil
}

// clientCertificate is tls.Config.GetClientCertificate: the Secret's
// certificate, or none when it has none.
func (s *secretTLS) clientCertificate(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
	cert, _, err := s.material()
	if err != nil {
		return nil, err
	}
	if cert == nil {
		return &tls.Certificate{}, nil
	}
	return cert, nil
}

// verify is tls.Config.VerifyConnection: the extender's certificate must
// chain to the Secret's ca.crt, else to tlsConfig.caData. With neither, the
// extender is not verified, as upstream does without caData.
func (s *secretTLS) verify(cs tls.ConnectionState) error {
	_, roots, err := s.material()
	if err != nil {
		return err
	}
	if roots == nil {
		roots = s.inlineCA
	}
	if roots == nil {
		return nil
	}
	if len(cs.PeerCertificates) == 0 {
		return errors.New("the extender presented no certificate")
	}
	opts := x509.VerifyOptions{Roots: roots, DNSName: cs.ServerName, Intermediates: x509.NewCertPool()}
	if s.serverName != "" {
		opts.DNSName = s.serverName
	}
	for _, c := range cs.PeerCertificates[1:] {
		opts.Intermediates.AddCert(c)
	}
	if _, err := cs.PeerCertificates[0].Verify(opts); err != nil {
		return fmt.Errorf("verifying the extender's certificate: %w", err)
	}
	return nil
}

// changed reports whether the Secret has changed since the last call, so
// that connections made with the old material are closed.
func (s *secretTLS) changed() bool {
	_, version, ok := s.src.Secret(s.namespace, s.name)
	if !ok {
		version = ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if version == s.used {
		return false
	}
	s.used = version
	return true
}
