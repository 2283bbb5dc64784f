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

// Package envtest runs Berth with NodeLabelScore against a real apiserver
// (envtest, through test/berthtest), as the example's binary runs it.
package envtest

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/examples/nodelabelscore/nodelabelscore"
	"github.com/berth-io/berth/test/berthtest"
)

var env *berthtest.Env

func TestEnvtest(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "NodeLabelScore envtest suite")
}

var _ = BeforeSuite(func(ctx SpecContext) {
	var err error
	// The plugin is registered as main.go registers it, so the scheduler
	// and the webhook know it.
	env, err = berthtest.Start(klog.NewContext(ctx, GinkgoLogr),
		berthtest.WithWebhook(),
		berthtest.WithPlugin(nodelabelscore.Name, nodelabelscore.New),
		berthtest.WithLogger(GinkgoLogr))
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { Expect(env.Stop()).To(Succeed()) })
}, NodeTimeout(2*time.Minute))

// createNamespace creates a namespace for one spec and deletes it after.
func createNamespace(ctx context.Context) string {
	GinkgoHelper()
	ns, err := env.CreateNamespace(ctx, "nodelabelscore")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func(ctx SpecContext) { Expect(env.DeleteNamespace(ctx, ns)).To(Succeed()) })
	return ns
}
