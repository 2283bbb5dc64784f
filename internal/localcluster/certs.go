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

package localcluster

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// pki holds the files of the cluster's certificates and keys.
type pki struct {
	caCert, servingCert, servingKey, adminCert, adminKey, saPublic, saPrivate string
	caPEM, adminCertPEM, adminKeyPEM                                          []byte
	// The aggregation layer's: the front proxy's CA, which aggregated
	// apiservers trust for the requester's identity in request headers,
	// and the client certificate the apiserver proxies with.
	frontProxyCACert, proxyClientCert, proxyClientKey string
	// Serving certificates of metrics-server (for its Service's name, as
	// the aggregator verifies it) and of kwok's kubelet endpoint.
	metricsServerCert, metricsServerKey, kwokCert, kwokKey string
}

// frontProxyClientName is the common name of the apiserver's proxy client
// certificate, the only one aggregated apiservers take request headers from.
const frontProxyClientName = "front-proxy-client"

// certificateValidity is how long the local cluster's certificates last.
const certificateValidity = 7 * 24 * time.Hour

// writePKI creates a CA, an apiserver serving certificate for 127.0.0.1 and
// localhost, an administrator client certificate (group system:masters), a
// service-account signing key, the aggregation layer's front-proxy CA and
// proxy client certificate, and serving certificates for metrics-server and
// kwok, all under dir.
func writePKI(dir string, now time.Time) (*pki, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating %s: %w", dir, err)
	}
	p := &pki{
		caCert:            filepath.Join(dir, "ca.crt"),
		servingCert:       filepath.Join(dir, "apiserver.crt"),
		servingKey:        filepath.Join(dir, "apiserver.key"),
		adminCert:         filepath.Join(dir, "admin.crt"),
		adminKey:          filepath.Join(dir, "admin.key"),
		saPublic:          filepath.Join(dir, "sa.pub"),
		saPrivate:         filepath.Join(dir, "sa.key"),
		frontProxyCACert:  filepath.Join(dir, "front-proxy-ca.crt"),
		proxyClientCert:   filepath.Join(dir, "front-proxy-client.crt"),
		proxyClientKey:    filepath.Join(dir, "front-proxy-client.key"),
		metricsServerCert: filepath.Join(dir, "metrics-server.crt"),
		metricsServerKey:  filepath.Join(dir, "metrics-server.key"),
		kwokCert:          filepath.Join(dir, "kwok.crt"),
		kwokKey:           filepath.Join(dir, "kwok.key"),
	}
	ca, caKey, caPEM, err := newCA("berth-local-ca", now, p.caCert)
	if err != nil {
		return nil, err
	}
	p.caPEM = caPEM

	serving := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "kube-apiserver"},
		DNSNames:     []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("10.0.0.1")},
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if _, _, err := issue(serving, ca, caKey, now, p.servingCert, p.servingKey); err != nil {
		return nil, fmt.Errorf("issuing the serving certificate: %w", err)
	}
	admin := &x509.Certificate{
		SerialNumber: big.NewInt(3),
		Subject:      pkix.Name{CommonName: "berth-admin", Organization: []string{"system:masters"}},
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if p.adminCertPEM, p.adminKeyPEM, err = issue(admin, ca, caKey, now, p.adminCert, p.adminKey); err != nil {
		return nil, fmt.Errorf("issuing the administrator certificate: %w", err)
	}

	frontProxyCA, frontProxyKey, _, err := newCA("berth-local-front-proxy-ca", now, p.frontProxyCACert)
	if err != nil {
		return nil, err
	}
	proxyClient := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: frontProxyClientName},
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if _, _, err := issue(proxyClient, frontProxyCA, frontProxyKey, now, p.proxyClientCert, p.proxyClientKey); err != nil {
		return nil, fmt.Errorf("issuing the front proxy's client certificate: %w", err)
	}
	metricsServer := &x509.Certificate{
		SerialNumber: big.NewInt(4),
		Subject:      pkix.Name{CommonName: "metrics-server"},
		DNSNames:     []string{metricsServerService + "." + metav1.NamespaceSystem + ".svc", "localhost"},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if _, _, err := issue(metricsServer, ca, caKey, now, p.metricsServerCert, p.metricsServerKey); err != nil {
		return nil, fmt.Errorf("issuing metrics-server's serving certificate: %w", err)
	}
	kwok := &x509.Certificate{
		SerialNumber: big.NewInt(5),
		Subject:      pkix.Name{CommonName: "kwok"},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if _, _, err := issue(kwok, ca, caKey, now, p.kwokCert, p.kwokKey); err != nil {
		return nil, fmt.Errorf("issuing kwok's serving certificate: %w", err)
	}

	saKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating the service-account key: %w", err)
	}
	if err := writeKey(p.saPrivate, saKey); err != nil {
		return nil, err
	}
	pub, err := x509.MarshalPKIXPublicKey(saKey.Public())
	if err != nil {
		return nil, fmt.Errorf("encoding the service-account public key: %w", err)
	}
	if err := os.WriteFile(p.saPublic, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}), 0o600); err != nil {
		return nil, fmt.Errorf("writing the service-account public key: %w", err)
	}
	return p, nil
}

// newCA creates a self-signed CA named name and writes its certificate to
// certPath; its key stays in memory.
func newCA(name string, now time.Time, certPath string) (*x509.Certificate, crypto.Signer, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("generating the key of %s: %w", name, err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(certificateValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("signing the certificate of %s: %w", name, err)
	}
	ca, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("parsing the certificate of %s: %w", name, err)
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	if err := os.WriteFile(certPath, certPEM, 0o600); err != nil {
		return nil, nil, nil, fmt.Errorf("writing the certificate of %s: %w", name, err)
	}
	return ca, key, certPEM, nil
}

// issue signs tmpl with the CA for a new key and writes both as PEM files.
func issue(tmpl, ca *x509.Certificate, caKey crypto.Signer, now time.Time, certPath, keyPath string) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("generating a key: %w", err)
	}
	tmpl.NotBefore, tmpl.NotAfter = now.Add(-time.Hour), now.Add(certificateValidity)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, key.Public(), caKey)
	if err != nil {
		return nil, nil, fmt.Errorf("signing: %w", err)
	}
	certPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	if err := os.WriteFile(certPath, certPEM, 0o600); err != nil {
		return nil, nil, fmt.Errorf("writing %s: %w", certPath, err)
	}
	if err := writeKey(keyPath, key); err != nil {
		return nil, nil, err
	}
	keyPEM, err = os.ReadFile(keyPath)
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s back: %w", keyPath, err)
	}
	return certPEM, keyPEM, nil
}

func writeKey(path string, key *ecdsa.PrivateKey) error {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return fmt.Errorf("encoding a key: %w", err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// writeKubeconfig writes an administrator kubeconfig for server with the
// certificates embedded, so that it keeps working when copied elsewhere.
func writeKubeconfig(path, server string, p *pki) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["berth-local"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: p.caPEM}
	cfg.AuthInfos["berth-admin"] = &clientcmdapi.AuthInfo{ClientCertificateData: p.adminCertPEM, ClientKeyData: p.adminKeyPEM}
	cfg.Contexts["berth-local"] = &clientcmdapi.Context{Cluster: "berth-local", AuthInfo: "berth-admin", Namespace: "default"}
	cfg.CurrentContext = "berth-local"
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return fmt.Errorf("writing the kubeconfig: %w", err)
	}
	return nil
}
