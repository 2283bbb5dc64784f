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

// Package manager_test runs the real `berth manager` binary against envtest
// and checks what an operator relies on: profiles place pods, /readyz, the
// leader Lease, secured metrics, a clean exit on SIGTERM and a non-zero exit
// when the Lease is lost.
//
// The manager runs as a child process built from the repository, not in the
// test's process: package main cannot be imported, and a real process is
// what tests signals and exit codes for real.
package manager_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/berth-io/berth/test/envsuite"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/config/crd"
)

var (
	testEnv    *envtest.Environment
	k8s        client.Client
	clientset  kubernetes.Interface
	restConfig *rest.Config
	// berthBinary is the berth binary built from the repository.
	berthBinary string
	// kubeconfig is a file that reaches the test apiserver as an administrator.
	kubeconfig string
)

func TestManager(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Manager suite")
}

var _ = BeforeSuite(func(ctx SpecContext) {
	envsuite.CheckAssets()
	root := envsuite.RepoRoot()
	dir := GinkgoT().TempDir()
	berthBinary = filepath.Join(dir, "berth")
	build := exec.CommandContext(ctx, "go", "build", "-o", berthBinary, "./cmd/berth")
	build.Dir = root
	build.Stdout, build.Stderr = GinkgoWriter, GinkgoWriter
	Expect(build.Run()).To(Succeed(), "building berth")

	crds, err := crd.CRDs()
	Expect(err).NotTo(HaveOccurred())
	testEnv = &envtest.Environment{
		CRDs: crds,
		WebhookInstallOptions: envtest.WebhookInstallOptions{
			Paths: []string{filepath.Join(root, "config", "webhook", "manifests.yaml")},
		},
	}
	restConfig = envsuite.Start(testEnv)

	scheme := runtime.NewScheme()
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	Expect(v1alpha1.AddToScheme(scheme)).To(Succeed())
	k8s, err = client.New(restConfig, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
	clientset, err = kubernetes.NewForConfig(restConfig)
	Expect(err).NotTo(HaveOccurred())

	admin, err := testEnv.AddUser(envtest.User{Name: "berth-manager", Groups: []string{"system:masters"}}, nil)
	Expect(err).NotTo(HaveOccurred())
	contents, err := admin.KubeConfig()
	Expect(err).NotTo(HaveOccurred())
	kubeconfig = filepath.Join(dir, "kubeconfig")
	Expect(os.WriteFile(kubeconfig, contents, 0o600)).To(Succeed())

	Expect(k8s.Create(context.Background(), namespace(leaseNamespace))).To(Succeed())
}, NodeTimeout(5*time.Minute))
