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

// Package webhook_test runs Berth's validating webhook and its namespace
// default (the mutating webhook on pods), wired as `berth manager` wires
// them, against a real kube-apiserver (envtest), which calls them over TLS
// with envtest's certificates, and checks what the apiserver admits and stores.
package webhook_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/berth-io/berth/test/envsuite"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	crwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/controllers/webhook"
	"github.com/berth-io/berth/internal/manager"
	"github.com/berth-io/berth/scheduler/framework/plugins"
	schedruntime "github.com/berth-io/berth/scheduler/framework/runtime"
)

// berthNamespace is the namespace Berth runs in, as config/webhook assumes.
const berthNamespace = "berth-system"

var (
	testEnv *envtest.Environment
	k8s     client.Client
	// warnings are the admission warnings k8s's requests drew, in order.
	warnings = &warningRecorder{}
)

func TestWebhook(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Webhook suite")
}

var _ = BeforeSuite(func(ctx SpecContext) {
	testEnv = &envtest.Environment{
		CRDDirectoryPaths:     []string{envsuite.CRDs()},
		ErrorIfCRDPathMissing: true,
		WebhookInstallOptions: envtest.WebhookInstallOptions{
			Paths: []string{filepath.Join(envsuite.RepoRoot(), "config", "webhook", "manifests.yaml")},
		},
	}
	cfg := envsuite.Start(testEnv)

	scheme, err := manager.NewScheme()
	Expect(err).NotTo(HaveOccurred())
	withWarnings := rest.CopyConfig(cfg)
	withWarnings.WarningHandlerWithContext = warnings
	k8s, err = client.New(withWarnings, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())

	opts := &testEnv.WebhookInstallOptions
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:  scheme,
		Metrics: metricsserver.Options{BindAddress: "0"},
		WebhookServer: crwebhook.NewServer(crwebhook.Options{
			Host: opts.LocalServingHost, Port: opts.LocalServingPort, CertDir: opts.LocalServingCertDir,
		}),
	})
	Expect(err).NotTo(HaveOccurred())
	validator := webhook.NewValidator(schedruntime.Registry(plugins.NewInTreeRegistry()))
	Expect(webhook.SetupWithManager(mgr, validator)).To(Succeed())
	// The namespace default reads namespaces from an informer, as from the
	// scheduler's in `berth manager`, and profiles from the manager's cache,
	// which the controllers fill there and this informer here.
	namespaces := informers.NewSharedInformerFactory(kubernetes.NewForConfigOrDie(cfg), 0)
	_, err = mgr.GetCache().GetInformer(ctx, &v1alpha1.SchedulingProfile{})
	Expect(err).NotTo(HaveOccurred())
	webhook.SetupNamespaceDefaultWithManager(mgr, webhook.NewNamespaceDefaulter(
		webhook.CachedNamespaces(namespaces.Core().V1().Namespaces().Lister(), mgr.GetAPIReader()),
		webhook.WithBerthNamespace(berthNamespace), webhook.WithProfiles(mgr.GetClient())))

	mgrCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	namespaces.Start(mgrCtx.Done())
	DeferCleanup(namespaces.Shutdown)
	done := make(chan error, 1)
	go func() {
		defer GinkgoRecover()
		done <- mgr.Start(mgrCtx)
	}()
	DeferCleanup(func() {
		cancel()
		Expect(<-done).To(Succeed())
	})

	// The apiserver calls the webhook as soon as the configuration exists:
	// wait until the server answers TLS before the first spec.
	addr := net.JoinHostPort(opts.LocalServingHost, fmt.Sprint(opts.LocalServingPort))
	Eventually(func() error {
		conn, err := tls.DialWithDialer(&net.Dialer{Timeout: time.Second}, "tcp", addr, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // only a liveness probe
		if err != nil {
			return err
		}
		return conn.Close()
	}).WithTimeout(30 * time.Second).Should(Succeed())
}, NodeTimeout(3*time.Minute))
