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

package e2e_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/berth-io/berth/internal/localcluster"
)

// chartNamespace is the namespace the chart is rendered for.
const chartNamespace = "berth-system"

// The chart's objects that give the ServiceMonitor its identity: applied to
// the cluster as Helm would apply them.
var scrapeIdentity = map[string]bool{
	"ServiceAccount/berth-metrics-scraper":    true,
	"Secret/berth-metrics-scraper-token":      true,
	"ClusterRole/berth-metrics-reader":        true,
	"ClusterRoleBinding/berth-metrics-reader": true,
}

var _ = Describe("monitoring", func() {
	It("scrapes Berth with a real Prometheus through the chart's ServiceMonitor settings and reads a scheduling metric back", func(ctx SpecContext) {
		helm, prometheus := filepath.Join(binDir, "helm"), filepath.Join(binDir, "prometheus")
		for _, bin := range []string{helm, prometheus} {
			if _, err := os.Stat(bin); err != nil {
				Fail(fmt.Sprintf("missing %s: run `make test-e2e`, which installs it", bin))
			}
		}
		dir := GinkgoT().TempDir()

		// The chart as Helm renders it with the ServiceMonitor on.
		rendered, err := exec.CommandContext(ctx, helm, "template", "berth", filepath.Join(repoRoot, "charts", "berth"),
			"--namespace", chartNamespace, "--kube-version", "1.37.1", "--set", "metrics.serviceMonitor.enabled=true").Output()
		Expect(err).NotTo(HaveOccurred(), "helm template")
		objs, err := localcluster.DecodeManifests(bytes.NewReader(rendered))
		Expect(err).NotTo(HaveOccurred())
		var identity []*unstructured.Unstructured
		var monitor *unstructured.Unstructured
		for _, o := range objs {
			key := o.GetKind() + "/" + o.GetName()
			if scrapeIdentity[key] {
				identity = append(identity, o)
			}
			if key == "ServiceMonitor/berth" {
				monitor = o
			}
		}
		Expect(identity).To(HaveLen(len(scrapeIdentity)))
		Expect(monitor).NotTo(BeNil())
		ep := serviceMonitorEndpoint(monitor)

		// Apply the scraper's ServiceAccount, its token Secret and its binding
		// to the metrics-reader role; kube-controller-manager fills the token.
		_, err = cluster.Clientset.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: chartNamespace}}, metav1.CreateOptions{})
		if !apierrors.IsAlreadyExists(err) {
			Expect(err).NotTo(HaveOccurred())
		}
		applier, err := localcluster.NewApplier(cluster.Config)
		Expect(err).NotTo(HaveOccurred())
		Expect(applier.Apply(ctx, identity...)).To(Succeed())
		DeferCleanup(func() {
			_ = cluster.Clientset.RbacV1().ClusterRoleBindings().Delete(background(), "berth-metrics-reader", metav1.DeleteOptions{})
			_ = cluster.Clientset.RbacV1().ClusterRoles().Delete(background(), "berth-metrics-reader", metav1.DeleteOptions{})
			_ = cluster.Clientset.CoreV1().Namespaces().Delete(background(), chartNamespace, metav1.DeleteOptions{})
		})
		var token []byte
		Eventually(ctx, func() []byte {
			s, err := cluster.Clientset.CoreV1().Secrets(chartNamespace).Get(ctx, ep.tokenSecret, metav1.GetOptions{})
			if err != nil {
				return nil
			}
			token = s.Data[ep.tokenKey]
			return token
		}).WithTimeout(time.Minute).ShouldNot(BeEmpty(), "the token controller fills Secret %s", ep.tokenSecret)
		tokenFile := filepath.Join(dir, "token")
		Expect(os.WriteFile(tokenFile, token, 0o600)).To(Succeed())

		// Issue the metrics certificate for the ServiceMonitor's serverName,
		// as cert-manager does for the chart's Certificate, and serve it.
		certDir := filepath.Join(dir, "metrics-certs")
		Expect(os.MkdirAll(certDir, 0o700)).To(Succeed())
		caFile := issueServingCert(certDir, ep.serverName)
		metricsPort := freePort()
		m := startManager("berth-manager-monitoring",
			"--metrics-bind-address=127.0.0.1:"+strconv.Itoa(metricsPort), "--metrics-secure=true", "--metrics-cert-dir="+certDir)
		m.waitReady(ctx)

		// Prometheus scrapes it with the ServiceMonitor's scheme, token, CA
		// and serverName, as the Prometheus Operator would configure it.
		promPort := freePort()
		config := fmt.Sprintf(`global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
- job_name: berth
  scheme: %s
  metrics_path: %s
  authorization:
    type: %s
    credentials_file: %s
  tls_config:
    ca_file: %s
    server_name: %s
  static_configs:
  - targets: ["127.0.0.1:%d"]
`, ep.scheme, ep.path, ep.authType, tokenFile, caFile, ep.serverName, metricsPort)
		configFile := filepath.Join(dir, "prometheus.yml")
		Expect(os.WriteFile(configFile, []byte(config), 0o600)).To(Succeed())
		p, err := localcluster.StartProcess("prometheus", cluster.LogDir(), GinkgoWriter, prometheus,
			"--config.file="+configFile, "--storage.tsdb.path="+filepath.Join(dir, "tsdb"),
			"--web.listen-address=127.0.0.1:"+strconv.Itoa(promPort))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { p.Stop(10 * time.Second) })

		// A pod the sample profile binds makes a scheduling attempt.
		ns := newNamespace(ctx)
		d := makeDeployment(ns, "scraped").replicas(1).scheduler(sampleScheduler).req("100m", "128Mi").obj()
		_, err = cluster.Clientset.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())

		api := fmt.Sprintf("http://127.0.0.1:%d/api/v1/query", promPort)
		Eventually(ctx, func() (float64, error) { return promQuery(ctx, api, `up{job="berth"}`) }).
			WithTimeout(time.Minute).WithPolling(time.Second).Should(Equal(1.0), "Prometheus scrapes Berth (up is 1: token accepted, certificate verified)")
		Eventually(ctx, func() (float64, error) {
			return promQuery(ctx, api, `sum(scheduler_schedule_attempts_total{job="berth",result="scheduled",profile="`+sampleScheduler+`"})`)
		}).WithTimeout(time.Minute).WithPolling(time.Second).Should(BeNumerically(">=", 1), "the scheduled attempt reaches Prometheus")
		Expect(promQuery(ctx, api, `berth_leader{job="berth"}`)).To(Equal(1.0))
	}, SpecTimeout(4*time.Minute))
})

// endpoint is what the chart's ServiceMonitor tells Prometheus.
type endpoint struct {
	scheme, path, authType, tokenSecret, tokenKey, serverName string
}

func serviceMonitorEndpoint(sm *unstructured.Unstructured) endpoint {
	GinkgoHelper()
	eps, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
	Expect(eps).To(HaveLen(1))
	ep := eps[0].(map[string]any)
	str := func(fields ...string) string {
		v, _, _ := unstructured.NestedString(ep, fields...)
		Expect(v).NotTo(BeEmpty(), "the ServiceMonitor's endpoint sets %v", fields)
		return v
	}
	Expect(ep).NotTo(HaveKey("bearerTokenFile"))
	_, insecure, _ := unstructured.NestedBool(ep, "tlsConfig", "insecureSkipVerify")
	Expect(insecure).To(BeFalse())
	return endpoint{
		scheme: str("scheme"), path: str("path"), authType: str("authorization", "type"),
		tokenSecret: str("authorization", "credentials", "name"), tokenKey: str("authorization", "credentials", "key"),
		serverName: str("tlsConfig", "serverName"),
	}
}

// issueServingCert writes a CA and a certificate for serverName signed by
// it into dir as tls.crt, tls.key and ca.crt, and returns ca.crt's path.
func issueServingCert(dir, serverName string) string {
	GinkgoHelper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	Expect(err).NotTo(HaveOccurred())
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "e2e metrics CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, caKey.Public(), caKey)
	Expect(err).NotTo(HaveOccurred())
	ca, err := x509.ParseCertificate(caDER)
	Expect(err).NotTo(HaveOccurred())
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	Expect(err).NotTo(HaveOccurred())
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: serverName}, DNSNames: []string{serverName},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, key.Public(), caKey)
	Expect(err).NotTo(HaveOccurred())
	keyDER, err := x509.MarshalECPrivateKey(key)
	Expect(err).NotTo(HaveOccurred())
	write := func(name, typ string, b []byte) {
		Expect(os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}), 0o600)).To(Succeed())
	}
	write("tls.crt", "CERTIFICATE", der)
	write("tls.key", "EC PRIVATE KEY", keyDER)
	write("ca.crt", "CERTIFICATE", caDER)
	return filepath.Join(dir, "ca.crt")
}

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort() int {
	GinkgoHelper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// promQuery runs an instant query through Prometheus' HTTP API and returns
// the value of its single series.
func promQuery(ctx context.Context, api, query string) (float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, api+"?query="+url.QueryEscape(query), nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	var out struct {
		Status string `json:"status"`
		Data   struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		return 0, fmt.Errorf("decoding %q: %w", body, err)
	}
	if out.Status != "success" || len(out.Data.Result) != 1 {
		return 0, fmt.Errorf("query %s: %s", query, body)
	}
	s, _ := out.Data.Result[0].Value[1].(string)
	return strconv.ParseFloat(s, 64)
}
