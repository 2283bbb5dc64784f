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

package crds_test

import (
	"bytes"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// What `berth convert` writes must be accepted as written, like the samples.
var _ = Describe("the output of berth convert", func() {
	DescribeTable("is accepted by the apiserver, with no field unknown to the schema",
		func(ctx SpecContext, golden string) {
			raw, err := os.ReadFile(filepath.Join(repoRoot, "internal", "convert", "testdata", golden))
			Expect(err).NotTo(HaveOccurred())
			docs := bytes.Split(raw, []byte("\n---\n"))
			Expect(docs).NotTo(BeEmpty())
			for _, doc := range docs {
				obj := &unstructured.Unstructured{}
				Expect(yaml.Unmarshal(doc, &obj.Object)).To(Succeed())
				createAndCleanUp(ctx, obj, client.FieldValidation("Strict"))
			}
		},
		Entry("SchedulingProfiles from a KubeSchedulerConfiguration", "profiles.golden"),
		Entry("RebalancePolicies from a DeschedulerPolicy", "descheduler-policy.golden"),
	)
})
