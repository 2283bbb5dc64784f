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
	"context"
	"errors"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	berthv1alpha1 "github.com/berth-io/berth/api/v1alpha1"
)

// violation is how the apiserver reports a broken rule: the field path of the
// error's cause and the readable message it carries (a CEL rule's message, or
// the apiserver's wording of an OpenAPI rule such as Minimum or Enum).
type violation struct {
	field   string
	message string
}

// Each entry is one OpenAPI or CEL rule of api/v1alpha1, named after it; every
// object of an entry breaks that rule and nothing else.
var _ = DescribeTable("a rule of the CRDs rejects an object that breaks it",
	func(ctx SpecContext, want violation, objects ...builder) {
		Expect(objects).NotTo(BeEmpty())
		for _, object := range objects {
			expectRejected(ctx, object, want)
		}
	},

	// PluginWeight
	Entry("PluginWeight spec.weight: Minimum=1",
		violation{"spec.weight", "should be greater than or equal to 1"},
		newPluginWeight("weight-zero").withWeight(0)),
	Entry("PluginWeight spec.weight: Maximum=100",
		violation{"spec.weight", "should be less than or equal to 100"},
		newPluginWeight("weight-too-high").withWeight(101)),
	Entry("PluginWeight spec: exactly one of profileRef or profileSelector must be set",
		violation{"spec", "exactly one of profileRef or profileSelector must be set"},
		newPluginWeight("ref-and-selector").withProfileSelector(map[string]string{"team": "platform"}),
		newPluginWeight("no-target").withoutProfileRef()),

	// SchedulingProfile
	Entry("SchedulingProfile spec: podInitialBackoffSeconds must not exceed podMaxBackoffSeconds",
		violation{"spec", "podInitialBackoffSeconds must not exceed podMaxBackoffSeconds"},
		newProfile("backoff-inverted").withBackoff(5, 2)),
	Entry("SchedulingProfile spec.percentageOfNodesToScore: Minimum=0",
		violation{"spec.percentageOfNodesToScore", "should be greater than or equal to 0"},
		newProfile("percentage-negative").withPercentageOfNodesToScore(-1)),
	Entry("SchedulingProfile spec.percentageOfNodesToScore: Maximum=100",
		violation{"spec.percentageOfNodesToScore", "should be less than or equal to 100"},
		newProfile("percentage-too-high").withPercentageOfNodesToScore(101)),
	Entry("SchedulingProfile plugin weight: Minimum=1",
		violation{"spec.plugins.score.enabled[0].weight", "should be greater than or equal to 1"},
		newProfile("plugin-weight-zero").withScorePlugin("NodeResourcesFit", 0)),
	Entry("SchedulingProfile plugin weight: Maximum=100",
		violation{"spec.plugins.score.enabled[0].weight", "should be less than or equal to 100"},
		newProfile("plugin-weight-too-high").withScorePlugin("NodeResourcesFit", 101)),
	Entry("SchedulingProfile plugins: each plugin may be enabled at most once per extension point",
		violation{"spec.plugins.score.enabled", "each plugin may be enabled at most once per extension point"},
		newProfile("enabled-twice").withScorePlugin("NodeResourcesFit", 1).withScorePlugin("NodeResourcesFit", 2)),
	Entry("SchedulingProfile plugins: each plugin may be disabled at most once per extension point",
		violation{"spec.plugins.score.disabled", "each plugin may be disabled at most once per extension point"},
		newProfile("disabled-twice").withDisabledScorePlugin("ImageLocality").withDisabledScorePlugin("ImageLocality")),
	Entry("SchedulingProfile spec.pluginConfig: each plugin may appear at most once in pluginConfig",
		violation{"spec.pluginConfig", "each plugin may appear at most once in pluginConfig"},
		newProfile("config-twice").
			withPluginConfig("NodeResourcesFit", `{"scoringStrategy":{"type":"MostAllocated"}}`).
			withPluginConfig("NodeResourcesFit", `{"scoringStrategy":{"type":"LeastAllocated"}}`)),

	Entry("SchedulingProfile spec.extenders[]: weight must be at least 1 when prioritizeVerb is set",
		violation{"spec.extenders[0]", "weight must be at least 1 when prioritizeVerb is set"},
		newProfile("extender-no-weight").withExtender(berthv1alpha1.Extender{URLPrefix: "http://x", PrioritizeVerb: "prioritize"})),
	Entry("SchedulingProfile spec.extenders[]: httpTimeout must be at most 30s",
		violation{"spec.extenders[0]", "httpTimeout must be at most 30s"},
		newProfile("extender-slow").withExtender(berthv1alpha1.Extender{URLPrefix: "http://x", FilterVerb: "filter", HTTPTimeout: &metav1.Duration{Duration: 31 * time.Second}}),
		newProfile("extender-very-slow").withExtender(berthv1alpha1.Extender{URLPrefix: "http://x", FilterVerb: "filter", HTTPTimeout: &metav1.Duration{Duration: 10 * time.Minute}})),
	Entry("SchedulingProfile spec.extenders[].tlsConfig: no private key inline",
		violation{"spec.extenders[0].tlsConfig", "keyData would keep a private key in the SchedulingProfile: put tls.crt and tls.key (and ca.crt) in a Secret in Berth's namespace and name it in tlsConfig.secretRef"},
		newProfile("extender-key-inline").withExtender(berthv1alpha1.Extender{URLPrefix: "https://x", FilterVerb: "filter", EnableHTTPS: true,
			TLSConfig: &berthv1alpha1.ExtenderTLSConfig{KeyData: []byte("key")}})),
	Entry("SchedulingProfile spec.extenders[].tlsConfig: no client certificate inline",
		violation{"spec.extenders[0].tlsConfig", "certData is refused with keyData"},
		newProfile("extender-cert-inline").withExtender(berthv1alpha1.Extender{URLPrefix: "https://x", FilterVerb: "filter", EnableHTTPS: true,
			TLSConfig: &berthv1alpha1.ExtenderTLSConfig{CertData: []byte("cert")}})),

	// RebalancePolicy
	Entry("RebalancePolicy spec.schedule: exactly one of interval or cron must be set",
		violation{"spec.schedule", "exactly one of interval or cron must be set"},
		newRebalancePolicy("interval-and-cron").withCron("*/5 * * * *"),
		newRebalancePolicy("no-schedule").withoutSchedule()),
	Entry("RebalancePolicy spec.schedule: interval must be at least 1m",
		violation{"spec.schedule", "interval must be at least 1m"},
		newRebalancePolicy("interval-short").withInterval(30*time.Second),
		newRebalancePolicy("interval-zero").withInterval(0)),
	Entry("RebalancePolicy spec.schedule.cron: Pattern (five fields or a descriptor)",
		violation{"spec.schedule.cron", "should match"},
		newRebalancePolicy("cron-three-fields").withOnlyCron("*/5 * *"),
		newRebalancePolicy("cron-unknown-descriptor").withOnlyCron("@fortnightly")),
	Entry("RebalancePolicy spec.strategies: each strategy may appear at most once",
		violation{"spec.strategies", "each strategy may appear at most once"},
		newRebalancePolicy("strategy-twice").withStrategies("RemoveDuplicates", "LowNodeUtilization", "RemoveDuplicates")),
	Entry("RebalancePolicy spec.strategies[].name: Enum of descheduler strategies",
		violation{"spec.strategies[0].name", `Unsupported value: "RemoveEverything"`},
		newRebalancePolicy("strategy-unknown").withStrategies("RemoveEverything")),
	Entry("RebalancePolicy spec.namespaces: only one of namespaces.include or namespaces.exclude may be set",
		violation{"spec.namespaces", "only one of namespaces.include or namespaces.exclude may be set"},
		newRebalancePolicy("include-and-exclude").withNamespaces([]string{"team-a"}, []string{"kube-system"})),
	Entry("RebalancePolicy spec.evictor.priorityThreshold: only one of priorityThreshold.value or priorityThreshold.name may be set",
		violation{"spec.evictor.priorityThreshold", "only one of priorityThreshold.value or priorityThreshold.name may be set"},
		newRebalancePolicy("threshold-value-and-name").withPriorityThreshold(1000, "high-priority")),

	// PodGroup
	Entry("PodGroup spec: exactly one of schedulingPolicy and the deprecated minMember",
		violation{"spec", "set exactly one of schedulingPolicy and the deprecated minMember"},
		newPodGroup("no-policy").withPolicy(nil),
		newPodGroup("policy-and-min-member").withMinMember(3)),
	Entry("PodGroup spec.minMember: Minimum=1",
		violation{"spec.minMember", "should be greater than or equal to 1"},
		newPodGroup("negative-members").withPolicy(nil).withMinMember(-1)),
	Entry("PodGroup spec.schedulingPolicy: exactly one of basic and gang",
		violation{"spec.schedulingPolicy", "set exactly one of basic and gang"},
		newPodGroup("neither-policy").withPolicy(&berthv1alpha1.PodGroupSchedulingPolicy{}),
		newPodGroup("both-policies").withPolicy(&berthv1alpha1.PodGroupSchedulingPolicy{
			Basic: &berthv1alpha1.BasicSchedulingPolicy{}, Gang: &berthv1alpha1.GangSchedulingPolicy{MinCount: 2}})),
	Entry("PodGroup spec.schedulingPolicy.gang.minCount: Minimum=1",
		violation{"spec.schedulingPolicy.gang.minCount", "should be greater than or equal to 1"},
		newPodGroup("zero-gang").withPolicy(&berthv1alpha1.PodGroupSchedulingPolicy{Gang: &berthv1alpha1.GangSchedulingPolicy{}})),
	Entry("PodGroup spec.schedulingConstraints.topology: MaxItems=1",
		violation{"spec.schedulingConstraints.topology", "must have at most 1 item"},
		newPodGroup("two-keys").withTopology("rack", "zone")),
	Entry("PodGroup spec.schedulingConstraints.topology[].key: MinLength=1",
		violation{"spec.schedulingConstraints.topology[0].key", "should be at least 1 chars long"},
		newPodGroup("empty-key").withTopology("")),
	Entry("PodGroup spec.disruptionMode: exactly one of single and all",
		violation{"spec.disruptionMode", "set exactly one of single and all"},
		newPodGroup("no-mode").withDisruptionMode(&berthv1alpha1.DisruptionMode{})),
)

// expectRejected creates the object and expects the apiserver to refuse it as
// Invalid, with a cause at want.field whose message contains want.message.
func expectRejected(ctx context.Context, b builder, want violation) {
	GinkgoHelper()
	obj := b.build()
	desc := fmt.Sprintf("%T %q", obj, obj.GetName())

	err := k8sClient.Create(ctx, obj)
	if err == nil {
		Expect(k8sClient.Delete(ctx, obj)).To(Succeed())
		Fail(fmt.Sprintf("%s was accepted; want it rejected at %s with %q", desc, want.field, want.message))
	}
	Expect(apierrors.IsInvalid(err)).To(BeTrue(), "%s: want an Invalid error, got %v", desc, err)
	Expect(err.Error()).To(ContainSubstring(want.message), "%s: the error does not say why", desc)
	Expect(causesOf(err)).To(ContainElement(SatisfyAll(
		HaveField("Field", want.field),
		HaveField("Message", ContainSubstring(want.message)),
	)), "%s: no cause at %s with the rule's message; the error was: %v", desc, want.field, err)
}

// causesOf lists the field-level causes of an apiserver error.
func causesOf(err error) []metav1.StatusCause {
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().Details == nil {
		return nil
	}
	return status.Status().Details.Causes
}
