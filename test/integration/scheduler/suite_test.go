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

// Package scheduler_test runs Berth's scheduler in-process against a real
// kube-apiserver (envtest) and checks where pods land.
package scheduler_test

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/berth-io/berth/test/envsuite"
)

var (
	testEnv   *envtest.Environment
	cfg       *rest.Config
	clientset kubernetes.Interface
)

func TestScheduler(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Scheduler suite")
}

var _ = BeforeSuite(func(ctx SpecContext) {
	// PodGroups are a Berth CRD; gang scheduling needs them served. The
	// apiserver also serves Kubernetes' own PodGroups, with the feature
	// gates users turn on for them, so both front doors run here.
	testEnv = &envtest.Environment{CRDDirectoryPaths: []string{envsuite.CRDs()}, ErrorIfCRDPathMissing: true}
	envsuite.NativePodGroups(testEnv, false)
	cfg = envsuite.Start(testEnv)
	var err error
	clientset, err = kubernetes.NewForConfig(cfg)
	Expect(err).NotTo(HaveOccurred())
}, NodeTimeout(3*time.Minute))

// createNamespace creates a namespace for one spec and deletes it after.
func createNamespace(ctx context.Context, prefix string) string {
	GinkgoHelper()
	return envsuite.Namespace(ctx, clientset, prefix)
}

// createLabelledNamespace is createNamespace with labels given as key/value pairs.
func createLabelledNamespace(ctx context.Context, prefix string, labelPairs ...string) string {
	GinkgoHelper()
	return envsuite.Namespace(ctx, clientset, prefix, labelPairs...)
}
