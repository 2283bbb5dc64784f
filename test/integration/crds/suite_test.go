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

// Package crds_test checks Berth's CustomResourceDefinitions against a real
// kube-apiserver: the OpenAPI and CEL rules reject what they should, defaults
// are applied, the samples are accepted and the schema carries descriptions.
package crds_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/berth-io/berth/test/envsuite"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	berthv1alpha1 "github.com/berth-io/berth/api/v1alpha1"
)

// repoRoot is the repository root as seen from this package's directory,
// where `go test` and ginkgo run the test binary.
var repoRoot = filepath.Join("..", "..", "..")

// testNamespace holds the namespaced objects the specs create.
const testNamespace = "crd-validation"

var (
	testEnv    *envtest.Environment
	testScheme *runtime.Scheme
	cfg        *rest.Config
	k8sClient  client.Client
)

func TestCRDs(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "CRD validation suite")
}

var _ = BeforeSuite(func(ctx SpecContext) {
	testScheme = runtime.NewScheme()
	Expect(clientgoscheme.AddToScheme(testScheme)).To(Succeed())
	Expect(berthv1alpha1.AddToScheme(testScheme)).To(Succeed())

	testEnv = &envtest.Environment{CRDDirectoryPaths: []string{envsuite.CRDs()}, ErrorIfCRDPathMissing: true, Scheme: testScheme}
	cfg = envsuite.Start(testEnv)

	var err error
	k8sClient, err = client.New(cfg, client.Options{Scheme: testScheme})
	Expect(err).NotTo(HaveOccurred())

	ensureNamespace(ctx, testNamespace)
}, NodeTimeout(3*time.Minute))

// ensureNamespace creates a namespace unless it exists.
func ensureNamespace(ctx context.Context, name string) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := k8sClient.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		Expect(err).NotTo(HaveOccurred(), "creating namespace %s", name)
	}
}
