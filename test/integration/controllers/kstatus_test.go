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

package controllers_test

import (
	"context"
	"encoding/json"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	. "github.com/onsi/gomega/gstruct"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/config/argocd"
	"github.com/berth-io/berth/controllers"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// kstatusObject names the object whose health a kstatus entry checks.
type kstatusObject struct {
	kind            string
	namespace, name string
}

// health is what kstatus and Berth's Argo CD health check make of an object.
type health struct {
	kstatus status.Status
	argo    string
}

// GitOps tools read Berth's objects as the real kstatus library (Flux,
// `kubectl wait`, cli-utils) and Berth's Argo CD health checks do; each
// entry brings an object into one state and checks what both say, once the
// controller has observed the object's current generation.
var _ = DescribeTable("kstatus and Argo CD read every kind",
	func(ctx SpecContext, setup func(ctx context.Context) kstatusObject, want health, check func(ctx context.Context, u *unstructured.Unstructured)) {
		obj := setup(ctx)
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(v1alpha1.GroupVersion.WithKind(obj.kind))
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: obj.namespace, Name: obj.name}, u)).To(Succeed())
			observed, _, _ := unstructured.NestedInt64(u.Object, "status", "observedGeneration")
			g.Expect(observed).To(Equal(u.GetGeneration()), "the controller has not observed the current generation")
			res, err := status.Compute(u)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(res.Status).To(Equal(want.kstatus), "kstatus: %s", res.Message)
			argo, msg, err := argocd.Health(u.Object)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(argo).To(Equal(want.argo), "Argo CD: %s", msg)
		}).WithContext(ctx).WithTimeout(20 * time.Second).WithPolling(100 * time.Millisecond).Should(Succeed())
		if check != nil {
			check(ctx, u)
		}
	},
	Entry("a valid SchedulingProfile is Current", func(ctx context.Context) kstatusObject {
		createProfile(ctx, newProfile("ks-valid").Obj())
		return kstatusObject{kind: "SchedulingProfile", name: "ks-valid"}
	}, health{status.CurrentStatus, "Healthy"}, nil),
	Entry("a SchedulingProfile whose new generation is invalid is Failed, its last good generation live", func(ctx context.Context) kstatusObject {
		createProfile(ctx, newProfile("ks-invalid-update").Obj())
		waitActive(ctx, "ks-invalid-update")
		updateProfile(ctx, "ks-invalid-update", func(p *v1alpha1.SchedulingProfile) {
			p.Spec.Plugins = &v1alpha1.Plugins{Score: &v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{{Name: "NoSuchPlugin"}}}}
		})
		return kstatusObject{kind: "SchedulingProfile", name: "ks-invalid-update"}
	}, health{status.FailedStatus, "Degraded"}, func(ctx context.Context, u *unstructured.Unstructured) {
		active, _, _ := unstructured.NestedInt64(u.Object, "status", "activeGeneration")
		Expect(active).To(BeEquivalentTo(1), "the last good generation stays live")
		Expect(u.GetGeneration()).To(BeEquivalentTo(2))
		expectReadyReason(u, v1alpha1.ReasonInvalid)
		expectColumns(ctx, "schedulingprofiles", u, Keys{
			"Ready": Equal("False"), "Reason": Equal(v1alpha1.ReasonInvalid),
			"Generation": BeEquivalentTo(2), "Live": BeEquivalentTo(1),
		})
	}),
	Entry("a SchedulingProfile whose schedulerName an older one serves is Failed", func(ctx context.Context) kstatusObject {
		createProfile(ctx, newProfile("ks-a-served").SchedulerName("ks-shared").Obj())
		waitActive(ctx, "ks-a-served")
		// Created in the same second, the profile with the smaller name is the older.
		createProfile(ctx, newProfile("ks-b-second").SchedulerName("ks-shared").Obj())
		return kstatusObject{kind: "SchedulingProfile", name: "ks-b-second"}
	}, health{status.FailedStatus, "Degraded"}, func(ctx context.Context, u *unstructured.Unstructured) {
		expectReadyReason(u, v1alpha1.ReasonConflict)
		expectColumns(ctx, "schedulingprofiles", u, Keys{"Reason": Equal(v1alpha1.ReasonConflict), "Live": BeNil()})
	}),
	Entry("an applied PluginWeight is Current", func(ctx context.Context) kstatusObject {
		createProfile(ctx, newProfile("ks-weighted").Obj())
		createWeight(ctx, "ks-applied", "ks-weighted", "NodeResourcesFit", 7)
		return kstatusObject{kind: "PluginWeight", name: "ks-applied"}
	}, health{status.CurrentStatus, "Healthy"}, func(ctx context.Context, u *unstructured.Unstructured) {
		expectReadyReason(u, controllers.ReasonApplied)
	}),
	Entry("a PluginWeight applied by label selector is Current and shows its selector", func(ctx context.Context) kstatusObject {
		createProfile(ctx, newProfile("ks-labelled").Label("ks-team", "web").Obj())
		pw := st.PluginWeight("ks-by-label", "NodeResourcesFit", 4).UID("").ProfileSelector(st.Selector("ks-team", "web")).Obj()
		Expect(k8sClient.Create(ctx, pw)).To(Succeed())
		DeferCleanup(func(ctx SpecContext) { Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, pw))).To(Succeed()) })
		return kstatusObject{kind: "PluginWeight", name: "ks-by-label"}
	}, health{status.CurrentStatus, "Healthy"}, func(ctx context.Context, u *unstructured.Unstructured) {
		expectColumns(ctx, "pluginweights", u, Keys{
			"Profile": BeNil(), "Selector": Equal(`{"matchLabels":{"ks-team":"web"}}`),
			"Ready": Equal("True"), "Reason": Equal(controllers.ReasonApplied), "Applied-To": Equal(`["ks-labelled"]`),
		})
	}),
	Entry("a PluginWeight in conflict with an older one is Failed", func(ctx context.Context) kstatusObject {
		createProfile(ctx, newProfile("ks-contested").Obj())
		createWeight(ctx, "ks-a-older", "ks-contested", "NodeResourcesFit", 7)
		waitApplied(ctx, "ks-a-older", metav1.ConditionTrue, controllers.ReasonApplied)
		// Created in the same second, the weight with the smaller name is the older.
		createWeight(ctx, "ks-b-newer", "ks-contested", "NodeResourcesFit", 3)
		return kstatusObject{kind: "PluginWeight", name: "ks-b-newer"}
	}, health{status.FailedStatus, "Degraded"}, func(ctx context.Context, u *unstructured.Unstructured) {
		expectReadyReason(u, v1alpha1.ReasonConflict)
		expectColumns(ctx, "pluginweights", u, Keys{
			"Profile": Equal("ks-contested"), "Plugin": Equal("NodeResourcesFit"), "Weight": BeEquivalentTo(3),
			"Ready": Equal("False"), "Reason": Equal(v1alpha1.ReasonConflict),
		})
	}),
	Entry("a PluginWeight on a missing profile is Failed", func(ctx context.Context) kstatusObject {
		createWeight(ctx, "ks-orphan", "ks-no-such-profile", "NodeResourcesFit", 7)
		return kstatusObject{kind: "PluginWeight", name: "ks-orphan"}
	}, health{status.FailedStatus, "Degraded"}, func(ctx context.Context, u *unstructured.Unstructured) {
		expectReadyReason(u, controllers.ReasonProfileNotFound)
	}),
	Entry("a PluginWeight waiting for its profile to go live is InProgress", func(ctx context.Context) kstatusObject {
		createProfile(ctx, newProfile("ks-never-live").Enable("filter", "NoSuchPlugin").Obj())
		createWeight(ctx, "ks-waiting", "ks-never-live", "NodeResourcesFit", 7)
		return kstatusObject{kind: "PluginWeight", name: "ks-waiting"}
	}, health{status.InProgressStatus, "Progressing"}, func(ctx context.Context, u *unstructured.Unstructured) {
		expectReadyReason(u, controllers.ReasonPending)
	}),
	Entry("a valid RebalancePolicy is Current", func(ctx context.Context) kstatusObject {
		createPolicy(ctx, newPolicy("ks-policy", false))
		return kstatusObject{kind: "RebalancePolicy", name: "ks-policy"}
	}, health{status.CurrentStatus, "Healthy"}, func(ctx context.Context, u *unstructured.Unstructured) {
		expectReadyReason(u, controllers.ReasonScheduled)
		// The policy's worker schedules its first run after the first status
		// was written (it reads the last run the status recorded), and the
		// controller then writes nextRunTime.
		var next string
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(u), u)).To(Succeed())
			next, _, _ = unstructured.NestedString(u.Object, "status", "nextRunTime")
			g.Expect(next).NotTo(BeEmpty(), "status.nextRunTime")
		}).WithContext(ctx).WithTimeout(20 * time.Second).WithPolling(100 * time.Millisecond).Should(Succeed())
		expectColumns(ctx, "rebalancepolicies", u, Keys{
			"Ready": Equal("True"), "Reason": Equal(controllers.ReasonScheduled), "Next-Run": Equal(next),
		})
	}),
	Entry("a nodeFit RebalancePolicy with its profile is Current and names it", func(ctx context.Context) kstatusObject {
		createProfile(ctx, newProfile("ks-fit-profile").Obj())
		p := newPolicy("ks-fit", true)
		p.Spec.ProfileRef = &v1alpha1.ProfileReference{Name: "ks-fit-profile"}
		createPolicy(ctx, p)
		return kstatusObject{kind: "RebalancePolicy", name: "ks-fit"}
	}, health{status.CurrentStatus, "Healthy"}, func(ctx context.Context, u *unstructured.Unstructured) {
		profile, _, _ := unstructured.NestedString(u.Object, "status", "profile")
		Expect(profile).To(Equal("ks-fit-profile"))
		expectColumns(ctx, "rebalancepolicies", u, Keys{"Profile": Equal("ks-fit-profile")})
	}),
	Entry("a nodeFit RebalancePolicy without its profile is Failed", func(ctx context.Context) kstatusObject {
		p := newPolicy("ks-fit-missing", true)
		p.Spec.ProfileRef = &v1alpha1.ProfileReference{Name: "ks-no-such-profile"}
		createPolicy(ctx, p)
		return kstatusObject{kind: "RebalancePolicy", name: "ks-fit-missing"}
	}, health{status.FailedStatus, "Degraded"}, func(ctx context.Context, u *unstructured.Unstructured) {
		expectReadyReason(u, controllers.ReasonProfileNotFound)
		expectColumns(ctx, "rebalancepolicies", u, Keys{"Reason": Equal(controllers.ReasonProfileNotFound), "Next-Run": BeNil()})
	}),
	Entry("a PodGroup waiting for its members is InProgress (Suspended in Argo CD)", func(ctx context.Context) kstatusObject {
		ns := createNamespace(ctx, "ks-gang-pending")
		createPodGroup(ctx, newPodGroup(ns, "gang", 2).Obj())
		return kstatusObject{kind: "PodGroup", namespace: ns, name: "gang"}
	}, health{status.InProgressStatus, "Suspended"}, nil),
	Entry("a PodGroup whose members are bound is Current", func(ctx context.Context) kstatusObject {
		ns := createNamespace(ctx, "ks-gang-bound")
		nodes := createNodes(ctx, "ks-gang-bound", 1, "cpu", "4", "memory", "16Gi")
		createPodGroup(ctx, newPodGroup(ns, "gang", 2).Obj())
		for _, name := range []string{"a", "b"} {
			bind(ctx, createPod(ctx, newPod(ns, name, "ks-unserved").Group("gang").Obj()), nodes[0])
		}
		return kstatusObject{kind: "PodGroup", namespace: ns, name: "gang"}
	}, health{status.CurrentStatus, "Healthy"}, nil),
	Entry("a PodGroup with too few members left after a failure is Failed", func(ctx context.Context) kstatusObject {
		ns := createNamespace(ctx, "ks-gang-failed")
		nodes := createNodes(ctx, "ks-gang-failed", 1, "cpu", "4", "memory", "16Gi")
		createPodGroup(ctx, newPodGroup(ns, "gang", 2).Obj())
		for _, name := range []string{"a", "b"} {
			bind(ctx, createPod(ctx, newPod(ns, name, "ks-unserved").Group("gang").Obj()), nodes[0])
		}
		setPhase(ctx, ns, "b", corev1.PodFailed)
		return kstatusObject{kind: "PodGroup", namespace: ns, name: "gang"}
	}, health{status.FailedStatus, "Degraded"}, nil),
)

// expectReadyReason checks the reason of the object's Ready condition.
func expectReadyReason(u *unstructured.Unstructured, reason string) {
	GinkgoHelper()
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == v1alpha1.ConditionReady {
			Expect(m["reason"]).To(Equal(reason), "Ready: %v", m["message"])
			return
		}
	}
	Fail("no Ready condition")
}

// expectColumns checks the cells of the object's row in the table that
// `kubectl get <resource>` prints (every column, as -o wide shows them).
func expectColumns(ctx context.Context, resource string, u *unstructured.Unstructured, want Keys) {
	GinkgoHelper()
	c := rest.CopyConfig(cfg)
	c.GroupVersion = &v1alpha1.GroupVersion
	c.APIPath = "/apis"
	c.NegotiatedSerializer = clientgoscheme.Codecs.WithoutConversion()
	rc, err := rest.RESTClientFor(c)
	Expect(err).NotTo(HaveOccurred())
	req := rc.Get().Resource(resource).Name(u.GetName())
	if ns := u.GetNamespace(); ns != "" {
		req = req.Namespace(ns)
	}
	raw, err := req.SetHeader("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io").DoRaw(ctx)
	Expect(err).NotTo(HaveOccurred())
	var table metav1.Table
	Expect(json.Unmarshal(raw, &table)).To(Succeed())
	Expect(table.Rows).To(HaveLen(1))
	cells := map[any]any{}
	for i, col := range table.ColumnDefinitions {
		cells[col.Name] = table.Rows[0].Cells[i]
	}
	Expect(cells).To(MatchKeys(IgnoreExtras, want), "kubectl get %s %s", resource, u.GetName())
}

// newPolicy is a dry-run RemoveDuplicates RebalancePolicy that runs hourly.
func newPolicy(name string, nodeFit bool) *v1alpha1.RebalancePolicy {
	return &v1alpha1.RebalancePolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1alpha1.RebalancePolicySpec{
			Schedule:   v1alpha1.RebalanceSchedule{Cron: "@hourly"},
			DryRun:     ptr.To(true),
			Evictor:    &v1alpha1.EvictorOptions{NodeFit: nodeFit},
			Strategies: []v1alpha1.Strategy{{Name: "RemoveDuplicates"}},
		},
	}
}

// createPolicy creates the RebalancePolicy and deletes it when the spec ends.
func createPolicy(ctx context.Context, p *v1alpha1.RebalancePolicy) {
	GinkgoHelper()
	Expect(k8sClient.Create(ctx, p)).To(Succeed(), "creating RebalancePolicy %s", p.Name)
	DeferCleanup(func(ctx SpecContext) {
		Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, p))).To(Succeed())
	})
}
