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

// Package helm_test applies the Helm chart, as `make helm-lint` renders it,
// to a real kube-apiserver with server-side dry-run: every object must be
// accepted, the manager's pod must pass Pod Security "restricted", and the
// chart must agree with config/ on the CRDs and the webhook paths.
package helm_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/berth-io/berth/test/envsuite"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// repoRoot is the repository root as seen from this package's directory.
var repoRoot = filepath.Join("..", "..", "..")

var (
	testEnv  *envtest.Environment
	cfg      *rest.Config
	rendered string
)

func TestHelmChart(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Helm chart suite")
}

var _ = BeforeSuite(func(_ SpecContext) {
	rendered = os.Getenv("BERTH_CHART_RENDERED")
	if rendered == "" {
		Fail("BERTH_CHART_RENDERED is not set: run `make helm-lint test-integration` (make renders the chart into bin/chart/rendered.yaml)")
	}
	_, err := os.Stat(rendered)
	Expect(err).NotTo(HaveOccurred(), "the rendered chart is missing; `make helm-lint` writes it")
	testEnv = &envtest.Environment{}
	cfg = envsuite.Start(testEnv)
}, NodeTimeout(3*time.Minute))
