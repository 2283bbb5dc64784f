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

package scheduler_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler"
	"github.com/berth-io/berth/scheduler/framework/extender"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// callers records the common names of the client certificates an extender saw.
type callers struct {
	mu    sync.Mutex
	names []string
}

func (c *callers) add(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.names = append(c.names, name)
}

func (c *callers) last() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.names) == 0 {
		return ""
	}
	return c.names[len(c.names)-1]
}

// mtlsFilter serves a filtering extender over TLS with a certificate from
// serverCA that passes every node to callers with a client certificate
// from clientCA, recording their names.
func mtlsFilter(serverCA, clientCA *st.CA, seen *callers) string {
	GinkgoHelper()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /filter", func(w http.ResponseWriter, r *http.Request) {
		seen.add(r.TLS.PeerCertificates[0].Subject.CommonName)
		args := decodeArgs(r)
		_ = json.NewEncoder(w).Encode(extender.FilterResult{Nodes: args.Nodes})
	})
	srv := httptest.NewUnstartedServer(mux)
	cert, err := serverCA.Server()
	Expect(err).NotTo(HaveOccurred())
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: clientCA.Pool()}
	srv.StartTLS()
	DeferCleanup(srv.Close)
	return srv.URL
}

// clientTLSSecret is a Secret with a client certificate for name from
// clientCA, and serverCA's certificate as ca.crt.
func clientTLSSecret(ns, secretName, name string, clientCA, serverCA *st.CA) *corev1.Secret {
	GinkgoHelper()
	crt, key, err := clientCA.Client(name)
	Expect(err).NotTo(HaveOccurred())
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: secretName},
		Type:       corev1.SecretTypeTLS,
		Data:       map[string][]byte{extender.SecretCertKey: crt, extender.SecretKeyKey: key, extender.SecretCAKey: serverCA.PEM()},
	}
}

var _ = Describe("An extender over TLS", func() {
	It("is called with the client certificate of a Secret, and with the new one once the Secret is rotated", func(ctx SpecContext) {
		ns := createNamespace(ctx, "ext-tls")
		createNode(ctx, newNode("ext-tls-1").Label("berth-test", "ext-tls").Obj())
		serverCA, err := st.NewCA("extender-ca")
		Expect(err).NotTo(HaveOccurred())
		clientCA, err := st.NewCA("berth-client-ca")
		Expect(err).NotTo(HaveOccurred())
		seen := &callers{}
		url := mtlsFilter(serverCA, clientCA, seen)

		secrets := clientset.CoreV1().Secrets(ns)
		_, err = secrets.Create(ctx, clientTLSSecret(ns, "ext-tls", "berth-before", clientCA, serverCA), metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		startScheduler(ctx, map[string]*v1alpha1.SchedulingProfileSpec{"ext-tls": {
			Extenders: []v1alpha1.Extender{{URLPrefix: url, FilterVerb: "filter", EnableHTTPS: true,
				TLSConfig: &v1alpha1.ExtenderTLSConfig{SecretRef: &v1alpha1.SecretReference{Namespace: ns, Name: "ext-tls"}}}},
		}}, scheduler.WithSecretsNamespace(ns))

		place := func(ctx context.Context, name string) {
			GinkgoHelper()
			createPod(ctx, newPod(ns, name).SchedulerName("ext-tls").NodeSelector("berth-test", "ext-tls").Obj())
			Expect(boundNode(ctx, ns, name)).To(Equal("ext-tls-1"))
		}
		place(ctx, "before")
		Expect(seen.last()).To(Equal("berth-before"))

		By("rotating the Secret's client certificate")
		_, err = secrets.Update(ctx, clientTLSSecret(ns, "ext-tls", "berth-after", clientCA, serverCA), metav1.UpdateOptions{})
		Expect(err).NotTo(HaveOccurred())
		// The scheduler's informer sees the update shortly; each pod is one more call.
		i := 0
		Eventually(func() string {
			i++
			place(ctx, fmt.Sprintf("after-%d", i))
			return seen.last()
		}).WithContext(ctx).WithTimeout(30 * time.Second).WithPolling(200 * time.Millisecond).Should(Equal("berth-after"))
	}, SpecTimeout(2*time.Minute))
})
