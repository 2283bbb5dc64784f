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

package webhook_test

import (
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/berth-io/berth/internal/manifest"
	"github.com/berth-io/berth/internal/registries"
	"github.com/berth-io/berth/internal/validate"
)

// berth validate must reject what the apiserver, with Berth's CRDs and
// webhook, rejects, and accept what it accepts: every object of its test
// corpus is created with a server-side dry run and strict field validation,
// as kubectl apply sends it, and checked offline.
var _ = Describe("berth validate", func() {
	It("agrees with the apiserver and the webhook on every object of its corpus", func(ctx SpecContext) {
		checker, err := validate.NewChecker(registries.InTree())
		Expect(err).NotTo(HaveOccurred())
		corpus := filepath.Join("..", "..", "..", "internal", "validate", "testdata")
		set, err := manifest.NewReader().Read([]string{filepath.Join(corpus, "good"), filepath.Join(corpus, "bad")})
		Expect(err).NotTo(HaveOccurred())
		compared := 0
		for _, d := range set.Documents {
			for _, obj := range d.Objects {
				sent := obj.DeepCopy()
				report := checker.Check(ctx, []validate.Input{{Origin: validate.Origin{File: d.File, Document: d.Index}, Object: obj}})
				if report.Checked == 0 {
					continue // another API group
				}
				// Rejected offline by the apiserver's or the webhook's checks (an
				// unknown kind is one the apiserver cannot serve either); the
				// rebalancer's are not the apiserver's.
				offline := false
				for _, f := range report.Findings {
					offline = offline || f.Stage != validate.StageController
				}
				if obj.GetNamespace() != "" {
					// Namespaced: the test apiserver has only default.
					sent.SetNamespace("default")
				}
				err := k8s.Create(ctx, sent, client.DryRunAll, client.FieldValidation("Strict"))
				if offline {
					Expect(err).To(HaveOccurred(), "%s: berth validate rejects %s %s (%v), the apiserver accepts it", d.File, obj.GetKind(), obj.GetName(), report.Findings)
				} else {
					Expect(err).NotTo(HaveOccurred(), "%s: berth validate accepts %s %s, the apiserver does not", d.File, obj.GetKind(), obj.GetName())
				}
				compared++
			}
		}
		Expect(compared).To(BeNumerically(">=", 30))
	})
})
