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

package install_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"strings"
	"time"

	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// certManager stands in for cert-manager on the local cluster: it serves
// cert-manager's Issuer and Certificate kinds (schemaless CRDs), writes each
// Certificate's Secret signed by one CA, and injects that CA into webhook
// configurations annotated cert-manager.io/inject-ca-from, as cert-manager's
// controller and CA injector do. Berth's manifests are applied unchanged.
type certManager struct {
	clients kubernetes.Interface
	dynamic dynamic.Interface
	ca      *x509.Certificate
	caKey   *ecdsa.PrivateKey
	caPEM   []byte
}

var certificates = schema.GroupVersionResource{Group: "cert-manager.io", Version: "v1", Resource: "certificates"}

// installCertManager creates the stand-in's CRDs and CA.
func installCertManager(ctx context.Context, clients kubernetes.Interface, ext apiextensionsclient.Interface, dyn dynamic.Interface) (*certManager, error) {
	for _, kind := range []string{"Issuer", "ClusterIssuer", "Certificate"} {
		plural := strings.ToLower(kind) + "s"
		scope := apiextensionsv1.NamespaceScoped
		if kind == "ClusterIssuer" {
			scope = apiextensionsv1.ClusterScoped
		}
		crd := &apiextensionsv1.CustomResourceDefinition{
			ObjectMeta: metav1.ObjectMeta{Name: plural + ".cert-manager.io"},
			Spec: apiextensionsv1.CustomResourceDefinitionSpec{
				Group: "cert-manager.io",
				Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: kind, ListKind: kind + "List", Plural: plural, Singular: strings.ToLower(kind)},
				Scope: scope,
				Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
					Name: "v1", Served: true, Storage: true,
					Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
						Type: "object", XPreserveUnknownFields: ptr.To(true),
					}},
				}},
			},
		}
		if _, err := ext.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return nil, fmt.Errorf("creating the %s CRD: %w", kind, err)
		}
	}
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := dyn.Resource(certificates).List(ctx, metav1.ListOptions{})
		return err == nil, nil
	})
	if err != nil {
		return nil, fmt.Errorf("waiting for cert-manager's kinds to be served: %w", err)
	}
	cm := &certManager{clients: clients, dynamic: dyn}
	if cm.caKey, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "e2e cert-manager stand-in"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature, BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, cm.caKey.Public(), cm.caKey)
	if err != nil {
		return nil, err
	}
	if cm.ca, err = x509.ParseCertificate(der); err != nil {
		return nil, err
	}
	cm.caPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	return cm, nil
}

// run issues Certificates and injects the CA every 500 ms until ctx ends.
func (cm *certManager) run(ctx context.Context) {
	_ = wait.PollUntilContextCancel(ctx, 500*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		_ = cm.sync(ctx)
		return false, nil
	})
}

func (cm *certManager) sync(ctx context.Context) error {
	list, err := cm.dynamic.Resource(certificates).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	issued := map[string]bool{}
	for i := range list.Items {
		c := &list.Items[i]
		issued[c.GetNamespace()+"/"+c.GetName()] = true
		secretName, _, _ := unstructured.NestedString(c.Object, "spec", "secretName")
		dnsNames, _, _ := unstructured.NestedStringSlice(c.Object, "spec", "dnsNames")
		if secretName == "" {
			continue
		}
		if _, err := cm.clients.CoreV1().Secrets(c.GetNamespace()).Get(ctx, secretName, metav1.GetOptions{}); err == nil {
			continue
		}
		certPEM, keyPEM, err := cm.issue(dnsNames)
		if err != nil {
			return err
		}
		secret := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: secretName, Namespace: c.GetNamespace(),
				Annotations: map[string]string{"cert-manager.io/certificate-name": c.GetName()}},
			Type: corev1.SecretTypeTLS,
			Data: map[string][]byte{"tls.crt": certPEM, "tls.key": keyPEM, "ca.crt": cm.caPEM},
		}
		if _, err := cm.clients.CoreV1().Secrets(c.GetNamespace()).Create(ctx, secret, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	hooks, err := cm.clients.AdmissionregistrationV1().ValidatingWebhookConfigurations().List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for i := range hooks.Items {
		h := &hooks.Items[i]
		from := h.Annotations["cert-manager.io/inject-ca-from"]
		if from == "" || !issued[from] || injected(h, cm.caPEM) {
			continue
		}
		for j := range h.Webhooks {
			h.Webhooks[j].ClientConfig.CABundle = cm.caPEM
		}
		if _, err := cm.clients.AdmissionregistrationV1().ValidatingWebhookConfigurations().Update(ctx, h, metav1.UpdateOptions{}); err != nil {
			return err
		}
	}
	mutating, err := cm.clients.AdmissionregistrationV1().MutatingWebhookConfigurations().List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for i := range mutating.Items {
		h := &mutating.Items[i]
		from := h.Annotations["cert-manager.io/inject-ca-from"]
		configs := make([]admissionregistrationv1.WebhookClientConfig, len(h.Webhooks))
		for j := range h.Webhooks {
			configs[j] = h.Webhooks[j].ClientConfig
		}
		if from == "" || !issued[from] || injectedInto(configs, cm.caPEM) {
			continue
		}
		for j := range h.Webhooks {
			h.Webhooks[j].ClientConfig.CABundle = cm.caPEM
		}
		if _, err := cm.clients.AdmissionregistrationV1().MutatingWebhookConfigurations().Update(ctx, h, metav1.UpdateOptions{}); err != nil {
			return err
		}
	}
	return nil
}

func injected(h *admissionregistrationv1.ValidatingWebhookConfiguration, ca []byte) bool {
	configs := make([]admissionregistrationv1.WebhookClientConfig, len(h.Webhooks))
	for j := range h.Webhooks {
		configs[j] = h.Webhooks[j].ClientConfig
	}
	return injectedInto(configs, ca)
}

// injectedInto reports whether every client config trusts ca.
func injectedInto(configs []admissionregistrationv1.WebhookClientConfig, ca []byte) bool {
	for _, c := range configs {
		if string(c.CABundle) != string(ca) {
			return false
		}
	}
	return true
}

// issue signs a serving certificate for dnsNames with the stand-in's CA.
func (cm *certManager) issue(dnsNames []string) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: first(dnsNames)}, DNSNames: dnsNames,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, cm.ca, key.Public(), cm.caKey)
	if err != nil {
		return nil, nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), nil
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// expectSecretIssued waits until the stand-in has written secret.
func (cm *certManager) expectSecretIssued(ctx context.Context, namespace, secret string) {
	Eventually(ctx, func() error {
		_, err := cm.clients.CoreV1().Secrets(namespace).Get(ctx, secret, metav1.GetOptions{})
		return err
	}).WithTimeout(30 * time.Second).Should(Succeed())
}
