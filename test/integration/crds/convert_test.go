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
