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

package rebalance_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/controllers"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// nodeLoad serves Prometheus's instant query API: every query returns one
// sample per node the rebalancer knows, labelled instance, valued load[node]
// or 0.5 (neither under- nor overutilized) for the nodes load does not name.
func nodeLoad(load map[string]string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/query" {
			http.NotFound(w, r)
			return
		}
		nodes, err := nodeLister.List(everything())
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		var samples []string
		for _, n := range nodes {
			v, ok := load[n.Name]
			if !ok {
				v = "0.5"
			}
			samples = append(samples, fmt.Sprintf(`{"metric":{"instance":%q},"value":[%d,%q]}`, n.Name, time.Now().Unix(), v))
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"status":"success","data":{"resultType":"vector","result":[%s]}}`, strings.Join(samples, ","))
	}))
	DeferCleanup(srv.Close)
	return srv
}

// loadPolicy runs LowNodeUtilization live in ns on the value of a
// Prometheus query, under 30% idle and over 60% busy.
func loadPolicy(name, ns string, prom *v1alpha1.PrometheusProvider) *v1alpha1.RebalancePolicy {
	return &v1alpha1.RebalancePolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1alpha1.RebalancePolicySpec{
			Schedule:         v1alpha1.RebalanceSchedule{Interval: &metav1.Duration{Duration: time.Hour}},
			DryRun:           ptr.To(false),
			Namespaces:       &v1alpha1.NamespaceFilter{Include: []string{ns}},
			MetricsProviders: []v1alpha1.MetricsProvider{{Source: v1alpha1.MetricsSourcePrometheus, Prometheus: prom}},
			Strategies: []v1alpha1.Strategy{{Name: "LowNodeUtilization", Args: k8sruntime.RawExtension{Raw: []byte(
				`{"thresholds":{"MetricResource":30},"targetThresholds":{"MetricResource":60},` +
					`"metricsUtilization":{"source":"Prometheus","prometheus":{"query":"instance:node_cpu:ratio"}}}`)}}},
		},
	}
}

var _ = Describe("RebalancePolicy reading real usage", func() {
	It("evicts one pod of the node a Prometheus query says is busy", func(ctx SpecContext) {
		ns := createNamespace(ctx, "load")
		for _, n := range []string{"load-busy", "load-idle"} {
			createNode(ctx, st.Node(n).Hostname().Obj())
		}
		for i := range 3 {
			createPod(ctx, replicaPod(ns, fmt.Sprintf("busy-%d", i), "load-busy").Obj())
		}
		createPod(ctx, replicaPod(ns, "idle-0", "load-idle").Obj())
		waitForPods(ns, 4)
		srv := nodeLoad(map[string]string{"load-busy": "0.9", "load-idle": "0.1"})

		createPolicy(ctx, loadPolicy("load", ns, &v1alpha1.PrometheusProvider{URL: srv.URL}))
		status := lastRun(ctx, "load")
		Expect(status.LastRun.Result).To(Equal(v1alpha1.RunSucceeded))
		// Prometheus gives no pod's usage: one pod leaves the busy node.
		Expect(status.LastRun.Evicted).To(BeEquivalentTo(1))
		Expect(status.Plan).To(HaveLen(1))
		Expect(status.Plan[0].Node).To(Equal("load-busy"))
		Expect(status.Plan[0].Reason).To(ContainSubstring("usage from Prometheus is above targetThresholds (MetricResource 90%)"))
	})

	It("fails the run and evicts nothing when the token's Secret is missing", func(ctx SpecContext) {
		ns := createNamespace(ctx, "notoken")
		for _, n := range []string{"notoken-busy", "notoken-idle"} {
			createNode(ctx, st.Node(n).Hostname().Obj())
		}
		createPod(ctx, replicaPod(ns, "busy-0", "notoken-busy").Obj())
		waitForPods(ns, 1)
		srv := nodeLoad(map[string]string{"notoken-busy": "0.9", "notoken-idle": "0.1"})
		before := evictionCalls.Load()

		p := loadPolicy("notoken", ns, &v1alpha1.PrometheusProvider{URL: srv.URL, AuthToken: &v1alpha1.PrometheusAuthToken{
			SecretReference: v1alpha1.SecretReference{Namespace: "berth-system", Name: "prometheus-token"},
		}})
		createPolicy(ctx, p)
		status := lastRun(ctx, "notoken")
		Expect(status.LastRun.Result).To(Equal(v1alpha1.RunFailed))
		Expect(status.LastRun.Planned).To(BeZero())
		Expect(status.Plan).To(BeEmpty())
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(p), p)).To(Succeed())
			c := meta.FindStatusCondition(p.Status.Conditions, v1alpha1.ConditionReady)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(c.Reason).To(Equal(controllers.ReasonRunFailed))
			g.Expect(c.Message).To(ContainSubstring(`strategy LowNodeUtilization: reading node usage from the policy's Prometheus metrics provider`))
			g.Expect(c.Message).To(ContainSubstring(`Secret berth-system/prometheus-token`))
		}).WithTimeout(10 * time.Second).Should(Succeed())
		Expect(evictionCalls.Load()).To(Equal(before))
	})
})
