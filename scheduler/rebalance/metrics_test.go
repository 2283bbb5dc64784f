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

package rebalance

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	metricsfake "k8s.io/metrics/pkg/client/clientset/versioned/fake"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/rebalance/strategies"
	"github.com/berth-io/berth/scheduler/rebalance/strategies/strategytest"
	"github.com/berth-io/berth/scheduler/usage"
)

const (
	metricsServerLNU = `{"thresholds":{"cpu":20},"targetThresholds":{"cpu":50},"metricsUtilization":{"source":"KubernetesMetrics"}}`
	prometheusLNU    = `{"thresholds":{"MetricResource":30},"targetThresholds":{"MetricResource":60},"metricsUtilization":{"source":"Prometheus","prometheus":{"query":"node_load"}}}`
)

// lnuPolicy is a live policy running LowNodeUtilization with args over providers.
func lnuPolicy(lnuArgs string, providers ...v1alpha1.MetricsProvider) *v1alpha1.RebalancePolicySpec {
	return &v1alpha1.RebalancePolicySpec{
		Schedule: every(10 * time.Minute), DryRun: ptr.To(false), MetricsProviders: providers,
		Strategies: []v1alpha1.Strategy{{Name: "LowNodeUtilization", Args: k8sruntime.RawExtension{Raw: []byte(lnuArgs)}}},
	}
}

// hnuPolicy is a live policy running HighNodeUtilization with args over providers.
func hnuPolicy(hnuArgs string, providers ...v1alpha1.MetricsProvider) *v1alpha1.RebalancePolicySpec {
	spec := lnuPolicy(hnuArgs, providers...)
	spec.Strategies[0].Name = "HighNodeUtilization"
	return spec
}

var metricsServerProvider = v1alpha1.MetricsProvider{Source: v1alpha1.MetricsSourceKubernetesMetrics}

func prometheusProvider(url string, token string) v1alpha1.MetricsProvider {
	p := v1alpha1.MetricsProvider{Source: v1alpha1.MetricsSourcePrometheus, Prometheus: &v1alpha1.PrometheusProvider{URL: url}}
	if token != "" {
		p.Prometheus.AuthToken = &v1alpha1.PrometheusAuthToken{SecretReference: v1alpha1.SecretReference{Namespace: "berth-system", Name: token}}
	}
	return p
}

func TestValidateMetricsProviders(t *testing.T) {
	tests := []struct {
		name string
		spec *v1alpha1.RebalancePolicySpec
		// want are the problems, each "field: message".
		want []string
	}{
		{name: "metrics-server", spec: lnuPolicy(metricsServerLNU, metricsServerProvider)},
		{name: "prometheus", spec: lnuPolicy(prometheusLNU, prometheusProvider("https://prom.monitoring:9091", "prom-token"))},
		{name: "a provider no strategy reads", spec: lnuPolicy(`{"thresholds":{"cpu":20},"targetThresholds":{"cpu":50}}`, metricsServerProvider)},
		{name: "no provider for the strategy", spec: lnuPolicy(prometheusLNU, metricsServerProvider), want: []string{
			`spec.strategies[0].args.metricsUtilization.source: invalid args of strategy LowNodeUtilization: metricsUtilization.source: Invalid value: "Prometheus": the policy's metricsProviders configure no Prometheus source`,
		}},
		{name: "deprecated metricsServer without provider", spec: lnuPolicy(`{"thresholds":{"cpu":20},"targetThresholds":{"cpu":50},"metricsUtilization":{"metricsServer":true}}`), want: []string{
			`spec.strategies[0].args.metricsUtilization.metricsServer: invalid args of strategy LowNodeUtilization: metricsUtilization.metricsServer: Invalid value: "KubernetesMetrics": the policy's metricsProviders configure no KubernetesMetrics source`,
		}},
		{name: "HighNodeUtilization's source", spec: hnuPolicy(`{"thresholds":{"cpu":20},"metricsUtilization":{"source":"KubernetesMetrics"}}`, metricsServerProvider)},
		{name: "no provider for HighNodeUtilization", spec: hnuPolicy(`{"thresholds":{"MetricResource":20},"metricsUtilization":{"source":"Prometheus","prometheus":{"query":"q"}}}`, metricsServerProvider), want: []string{
			`spec.strategies[0].args.metricsUtilization.source: invalid args of strategy HighNodeUtilization: metricsUtilization.source: Invalid value: "Prometheus": the policy's metricsProviders configure no Prometheus source`,
		}},
		{name: "the same source twice", spec: lnuPolicy(metricsServerLNU, metricsServerProvider, metricsServerProvider), want: []string{
			`spec.metricsProviders[1].source: metricsProviders[1].source: metrics provider "KubernetesMetrics" is already configured: each source can be configured only once`,
		}},
		{name: "prometheus without its configuration", spec: lnuPolicy(prometheusLNU, v1alpha1.MetricsProvider{Source: v1alpha1.MetricsSourcePrometheus}), want: []string{
			"spec.metricsProviders[0].prometheus: metricsProviders[0].prometheus: prometheus configuration is required when source is Prometheus",
		}},
		{name: "prometheus configuration for metrics-server", spec: lnuPolicy(metricsServerLNU,
			v1alpha1.MetricsProvider{Source: v1alpha1.MetricsSourceKubernetesMetrics, Prometheus: &v1alpha1.PrometheusProvider{URL: "http://p"}}), want: []string{
			"spec.metricsProviders[0].prometheus: metricsProviders[0].prometheus: prometheus may be set only when source is Prometheus",
		}},
		{name: "not an http URL", spec: lnuPolicy(prometheusLNU, prometheusProvider("ftp://prom", "")), want: []string{
			`spec.metricsProviders[0].prometheus.url: metricsProviders[0].prometheus.url: prometheus URL "ftp://prom" is not an http:// or https:// URL with a host`,
		}},
		{name: "no URL", spec: lnuPolicy(prometheusLNU, prometheusProvider("", "")), want: []string{
			"spec.metricsProviders[0].prometheus.url: metricsProviders[0].prometheus.url: prometheus URL is required when source is Prometheus",
		}},
		{name: "token Secret without namespace", spec: func() *v1alpha1.RebalancePolicySpec {
			p := prometheusProvider("http://prom:9090", "t")
			p.Prometheus.AuthToken.SecretReference.Namespace = ""
			return lnuPolicy(prometheusLNU, p)
		}(), want: []string{
			"spec.metricsProviders[0].prometheus.authToken.secretReference: metricsProviders[0].prometheus.authToken.secretReference: prometheus authToken secret reference does not set both namespace and name",
		}},
		{name: "unknown source", spec: lnuPolicy(`{"thresholds":{"cpu":20},"targetThresholds":{"cpu":50}}`, v1alpha1.MetricsProvider{Source: "Graphite"}), want: []string{
			`spec.metricsProviders[0].source: metricsProviders[0].source: unknown metrics source "Graphite" (want KubernetesMetrics or Prometheus)`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, se := range args.SpecErrors(ValidateSpec(NewInTreeRegistry(), tt.spec)) {
				at := se.Field(field.NewPath("spec")).String()
				if invalid := se.InvalidArgs(); invalid != nil {
					at = invalid.Under(se.Field(field.NewPath("spec")))[0].Field
				}
				got = append(got, at+": "+se.Error())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

var (
	nodeMetricsGVR = schema.GroupVersionResource{Group: "metrics.k8s.io", Version: "v1beta1", Resource: "nodes"}
	podMetricsGVR  = schema.GroupVersionResource{Group: "metrics.k8s.io", Version: "v1beta1", Resource: "pods"}
)

// usageCluster is three nodes of 4 CPUs: four pods on n0, one on n1 and n2.
func usageCluster() []k8sruntime.Object {
	var objs []k8sruntime.Object
	for _, n := range []string{"n0", "n1", "n2"} {
		objs = append(objs, strategytest.Node(n).Obj())
	}
	for i := range 4 {
		objs = append(objs, strategytest.Pod(fmt.Sprintf("n0-p%d", i)).NodeName("n0").Obj())
	}
	return append(objs, strategytest.Pod("n1-p0").NodeName("n1").Obj(), strategytest.Pod("n2-p0").NodeName("n2").Obj())
}

// metricsServer serves NodeMetrics of nodes, given as name and CPU, and
// PodMetrics of 600m CPU for every pod of n0.
func metricsServer(t *testing.T, nodes ...string) *metricsfake.Clientset {
	t.Helper()
	c := metricsfake.NewSimpleClientset()
	for i := 0; i+1 < len(nodes); i += 2 {
		nm := &metricsv1beta1.NodeMetrics{ObjectMeta: metav1.ObjectMeta{Name: nodes[i]}, Window: metav1.Duration{Duration: 15 * time.Second},
			Usage: v1.ResourceList{v1.ResourceCPU: resource.MustParse(nodes[i+1]), v1.ResourceMemory: resource.MustParse("1Gi")}}
		if err := c.Tracker().Create(nodeMetricsGVR, nm, ""); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 4 {
		pm := &metricsv1beta1.PodMetrics{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("n0-p%d", i), Namespace: "default"},
			Containers: []metricsv1beta1.ContainerMetrics{{Name: "c", Usage: v1.ResourceList{v1.ResourceCPU: resource.MustParse("600m"), v1.ResourceMemory: resource.MustParse("100Mi")}}}}
		if err := c.Tracker().Create(podMetricsGVR, pm, "default"); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// registry returns a usage registry over the metrics client and a Secret
// berth-system/prom-token holding token, its polling stopped with the test.
func registry(t *testing.T, mc *metricsfake.Clientset, token string) *usage.Registry {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return usage.NewRegistry(usage.WithContext(ctx), usage.WithMetricsClient(mc),
		usage.WithAllocatable(func(name string) (int64, int64, bool) {
			return 4000, 8 << 30, slices.Contains([]string{"n0", "n1", "n2"}, name)
		}),
		usage.WithSecretGetter(func(_ context.Context, ref usage.SecretKeyRef) ([]byte, error) {
			if ref.Namespace == "berth-system" && ref.Name == "prom-token" && ref.Key == v1alpha1.PrometheusAuthTokenKey {
				return []byte(token), nil
			}
			return nil, fmt.Errorf("the Secret %s/%s is not found, or is outside the namespace Berth reads Secrets in", ref.Namespace, ref.Name)
		}))
}

// countingUsage counts the stores acquired and not yet released.
type countingUsage struct {
	NodeUsage
	mu   sync.Mutex
	held int
}

func (c *countingUsage) Acquire(ctx context.Context, src usage.Source) (usage.Store, func()) {
	st, release := c.NodeUsage.Acquire(ctx, src)
	c.mu.Lock()
	c.held++
	c.mu.Unlock()
	var once sync.Once
	return st, func() {
		once.Do(func() {
			release()
			c.mu.Lock()
			c.held--
			c.mu.Unlock()
		})
	}
}

func (c *countingUsage) holding() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.held
}

// runOnce runs spec once over usageCluster, reading usage from nu, and
// returns the run and the evicted pods.
func runOnce(t *testing.T, nu NodeUsage, spec *v1alpha1.RebalancePolicySpec) (RunResult, []string) {
	t.Helper()
	c := fake.NewClientset(usageCluster()...)
	var mu sync.Mutex
	var evicted []string
	c.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, k8sruntime.Object, error) {
		if a.GetSubresource() != "eviction" {
			return false, nil, nil
		}
		mu.Lock()
		defer mu.Unlock()
		evicted = append(evicted, a.(k8stesting.CreateAction).GetObject().(metav1.Object).GetName())
		return true, nil, nil
	})
	r := New(c, nil, nil, NewInTreeRegistry(), WithClock(clocktesting.NewFakeClock(t0)), WithNodeUsage(nu))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Start(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	if err := r.SetPolicy("p", 1, spec); err != nil {
		t.Fatal(err)
	}
	res := waitRun(t, r, "p", t0)
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(evicted)
	return res, evicted
}

// fromNode reports whether every pod is of node and there are n.
func fromNode(pods []string, node string, n int) bool {
	return len(pods) == n && !slices.ContainsFunc(pods, func(p string) bool { return !strings.HasPrefix(p, node+"-") })
}

func TestRunReadsMetricsServer(t *testing.T) {
	// n0 uses 3600m of 4 CPUs (90%), n1 400m (10%), n2 2000m (50%): three
	// pods of 600m leave n0 for it to drop to 1800m, at most 50%.
	nu := &countingUsage{NodeUsage: registry(t, metricsServer(t, "n0", "3600m", "n1", "400m", "n2", "2000m"), "")}
	res, evicted := runOnce(t, nu, lnuPolicy(metricsServerLNU, metricsServerProvider))
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if !fromNode(evicted, "n0", 3) || res.Evicted != 3 {
		t.Errorf("evicted %v (run %+v), want three pods of n0", evicted, res)
	}
	if err := waitFor(func() bool { return nu.holding() == 0 }); err != nil {
		t.Errorf("%d usage stores still held after the policy stopped", nu.holding())
	}
}

// TestHighNodeUtilizationReadsUsage checks that HighNodeUtilization reading
// real usage is run as LowNodeUtilization is: its source polled and
// released, its pods checked for where they go, and a run without a
// node's usage evicting nothing.
func TestHighNodeUtilizationReadsUsage(t *testing.T) {
	const args = `{"thresholds":{"cpu":20},"metricsUtilization":{"source":"KubernetesMetrics"}}`
	s, err := NewInTreeRegistry().Build("HighNodeUtilization", []byte(args))
	if err != nil {
		t.Fatal(err)
	}
	if !readsUsage(s) {
		t.Errorf("readsUsage(HighNodeUtilization with metricsUtilization) = false")
	}
	c := &compiledPolicy{strategies: []strategies.Strategy{s}, providers: map[v1alpha1.MetricsSource]usage.Source{
		v1alpha1.MetricsSourceKubernetesMetrics: {Type: usage.MetricsServer},
	}}
	if got := c.polled(); len(got) != 1 || got[0].Type != usage.MetricsServer {
		t.Errorf("polled %v, want metrics-server", got)
	}

	// n1 uses 10% of its CPU: its one pod goes.
	nu := &countingUsage{NodeUsage: registry(t, metricsServer(t, "n0", "3600m", "n1", "400m", "n2", "2000m"), "")}
	res, evicted := runOnce(t, nu, hnuPolicy(args, metricsServerProvider))
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if !slices.Equal(evicted, []string{"n1-p0"}) {
		t.Errorf("evicted %v (run %+v), want [n1-p0]", evicted, res)
	}
	if err := waitFor(func() bool { return nu.holding() == 0 }); err != nil {
		t.Errorf("%d usage stores still held after the policy stopped", nu.holding())
	}

	res, evicted = runOnce(t, registry(t, metricsServer(t, "n0", "3600m", "n1", "400m"), ""), hnuPolicy(args, metricsServerProvider))
	if want := "strategy HighNodeUtilization: node n2 has no usage in metrics-server's node metrics"; res.Err == nil || !strings.Contains(res.Err.Error(), want) {
		t.Errorf("run error %v, want one containing %q", res.Err, want)
	}
	if len(evicted) > 0 || res.Planned > 0 {
		t.Errorf("evicted %v (run %+v) without usage", evicted, res)
	}
}

// waitFor polls cond for a second.
func waitFor(cond func() bool) error {
	for range 200 {
		if cond() {
			return nil
		}
		time.Sleep(5 * time.Millisecond)
	}
	return errors.New("timed out")
}

func TestRunWithoutNodeMetricsEvictsNothing(t *testing.T) {
	for _, tt := range []struct {
		name    string
		mc      func(t *testing.T) *metricsfake.Clientset
		wantErr string
	}{
		{name: "a node missing", mc: func(t *testing.T) *metricsfake.Clientset { return metricsServer(t, "n0", "3600m", "n1", "400m") },
			wantErr: "strategy LowNodeUtilization: node n2 has no usage in metrics-server's node metrics"},
		{name: "metrics-server down", mc: func(t *testing.T) *metricsfake.Clientset {
			c := metricsServer(t)
			c.PrependReactor("list", "nodes", func(k8stesting.Action) (bool, k8sruntime.Object, error) {
				return true, nil, errors.New("the server is currently unable to handle the request")
			})
			return c
		}, wantErr: "strategy LowNodeUtilization: reading node usage from the policy's KubernetesMetrics metrics provider: reading metrics-server's node metrics: listing NodeMetrics from metrics.k8s.io: the server is currently unable to handle the request"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, evicted := runOnce(t, registry(t, tt.mc(t), ""), lnuPolicy(metricsServerLNU, metricsServerProvider))
			if res.Err == nil || !strings.Contains(res.Err.Error(), tt.wantErr) {
				t.Errorf("run error %v, want one containing %q", res.Err, tt.wantErr)
			}
			if len(evicted) > 0 || res.Planned > 0 {
				t.Errorf("evicted %v (run %+v) without usage", evicted, res)
			}
		})
	}
}

// fakePrometheus answers the instant query node_load with data, after
// checking the bearer token when token is set.
type fakePrometheus struct {
	token, data string
}

func (p *fakePrometheus) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if p.token != "" && r.Header.Get("Authorization") != "Bearer "+p.token {
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
		return
	}
	if err := r.ParseForm(); err != nil || r.URL.Path != "/api/v1/query" || r.Form.Get("query") != "node_load" {
		http.Error(w, "bad query", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = fmt.Fprintf(w, `{"status":"success","data":%s}`, p.data)
}

// vector is the data of an instant vector of the nodes' values, given as
// pairs of name and value.
func vector(pairs ...string) string {
	var items []string
	for i := 0; i+1 < len(pairs); i += 2 {
		items = append(items, fmt.Sprintf(`{"metric":{"instance":%q},"value":[1772366400,%q]}`, pairs[i], pairs[i+1]))
	}
	return `{"resultType":"vector","result":[` + strings.Join(items, ",") + `]}`
}

func TestRunReadsPrometheus(t *testing.T) {
	good := vector("n0", "0.9", "n1", "0.1", "n2", "0.5")
	tests := []struct {
		name string
		// data is what the query returns; token is what Prometheus asks for.
		data, token string
		// secret is the Secret the policy names for the token, if any.
		secret  string
		perNode *int32
		wantN0  int
		wantErr string
	}{
		{name: "one pod of the overutilized node", data: good, wantN0: 1},
		{name: "up to the per-node limit", data: good, perNode: ptr.To[int32](2), wantN0: 2},
		{name: "with the token of a Secret", data: good, token: "s3cret", secret: "prom-token", wantN0: 1},
		{name: "a matrix", data: `{"resultType":"matrix","result":[{"metric":{"instance":"n0"},"values":[[1772366400,"0.9"]]}]}`,
			wantErr: `running Prometheus query "node_load" at URL: query for MetricResource: expected a vector, got matrix`},
		{name: "a value above 1", data: vector("n0", "1.5", "n1", "0.1", "n2", "0.5"),
			wantErr: `query for MetricResource: node "n0" has value 1.5 outside [0, 1]`},
		{name: "a node missing", data: vector("n0", "0.9", "n1", "0.1"),
			wantErr: `strategy LowNodeUtilization: node n2 has no usage in the result of Prometheus query "node_load"`},
		{name: "the token's Secret missing", data: good, token: "s3cret", secret: "gone",
			wantErr: `reading bearer token from Secret berth-system/gone key "prometheusAuthToken": the Secret berth-system/gone is not found`},
		{name: "no token", data: good, token: "s3cret", wantErr: "401"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(&fakePrometheus{token: tt.token, data: tt.data})
			defer srv.Close()
			spec := lnuPolicy(prometheusLNU, prometheusProvider(srv.URL, tt.secret))
			if tt.perNode != nil {
				spec.Limits = &v1alpha1.EvictionLimits{MaxPodsToEvictPerNode: tt.perNode}
			}
			res, evicted := runOnce(t, registry(t, metricsServer(t), "s3cret"), spec)
			if tt.wantErr != "" {
				want := strings.ReplaceAll(tt.wantErr, "URL", srv.URL)
				if res.Err == nil || !strings.Contains(res.Err.Error(), want) {
					t.Errorf("run error %v, want one containing %q", res.Err, want)
				}
				if len(evicted) > 0 || res.Planned > 0 {
					t.Errorf("evicted %v (run %+v) on bad usage", evicted, res)
				}
				return
			}
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			if !fromNode(evicted, "n0", tt.wantN0) {
				t.Errorf("evicted %v, want %d pods of n0", evicted, tt.wantN0)
			}
		})
	}
}
