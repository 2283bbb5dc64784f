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

package throughput

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
)

// nodeUsage serves Prometheus's instant query API for the load-aware
// profile: every query gets one sample per node of the cluster, labelled
// instance, its value fixed by the node's name and spread evenly over
// [0, 0.99], so that about a third of the nodes are above
// LoadAwareScheduling's default CPU threshold of 65%.
type nodeUsage struct {
	client kubernetes.Interface
	// queries counts the queries answered.
	queries atomic.Int64
	mu      sync.Mutex
	// body is the last answer and when the node list behind it was read.
	body   []byte
	listed time.Time
}

// usageValue is node's value in [0, 0.99].
func usageValue(node string) float64 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(node))
	return float64(h.Sum32()%100) / 100
}

// ServeHTTP answers /api/v1/query; the node list is read again at most
// every 10 seconds.
func (u *nodeUsage) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/api/v1/query" {
		http.NotFound(w, r)
		return
	}
	u.queries.Add(1)
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.body == nil || time.Since(u.listed) > 10*time.Second {
		body, err := u.answer(r.Context())
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		u.body, u.listed = body, time.Now()
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(u.body)
}

// answer lists the nodes and builds the vector of their values.
func (u *nodeUsage) answer(ctx context.Context) ([]byte, error) {
	nodes, err := u.client.CoreV1().Nodes().List(ctx, metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		return nil, fmt.Errorf("listing nodes: %w", err)
	}
	type sample struct {
		Metric map[string]string `json:"metric"`
		Value  [2]any            `json:"value"`
	}
	now := float64(time.Now().Unix())
	result := make([]sample, 0, len(nodes.Items))
	for _, n := range nodes.Items {
		result = append(result, sample{
			Metric: map[string]string{"instance": n.Name},
			Value:  [2]any{now, strconv.FormatFloat(usageValue(n.Name), 'f', 2, 64)},
		})
	}
	return json.Marshal(map[string]any{"status": "success", "data": map[string]any{"resultType": "vector", "result": result}})
}

// serveNodeUsage starts the node usage endpoint on a free local port until
// ctx ends and returns its URL.
func serveNodeUsage(ctx context.Context, env Env) (string, error) {
	client, err := kubernetes.NewForConfig(env.Cluster.Config)
	if err != nil {
		return "", fmt.Errorf("building a client: %w", err)
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("listening for the node usage endpoint: %w", err)
	}
	usage := &nodeUsage{client: client}
	srv := &http.Server{Handler: usage, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	go func() {
		<-ctx.Done()
		_ = srv.Close()
		klog.FromContext(ctx).Info("The node usage endpoint stopped", "queries", usage.queries.Load())
	}()
	return "http://" + ln.Addr().String(), nil
}

// BerthLoadAware is Berth whose default profile adds TargetLoadPacking and
// LoadAwareScheduling (through multiPoint, default args) reading node usage
// from a Prometheus endpoint the bench serves (nodeUsage): what reading
// real usage costs the live path.
func BerthLoadAware(name, binary string, extraArgs ...string) Scheduler {
	s := Berth(name, binary, extraArgs...)
	s.Setup = func(ctx context.Context, env Env) error {
		url, err := serveNodeUsage(ctx, env)
		if err != nil {
			return err
		}
		provider := map[string]any{"type": "Prometheus", "address": url}
		return applyProfile(ctx, env, SchedulerName, map[string]any{
			"plugins": map[string]any{"multiPoint": map[string]any{"enabled": []any{
				map[string]any{"name": "TargetLoadPacking"},
				map[string]any{"name": "LoadAwareScheduling"},
			}}},
			"pluginConfig": []any{
				map[string]any{"name": "TargetLoadPacking", "args": map[string]any{"metricProvider": provider}},
				map[string]any{"name": "LoadAwareScheduling", "args": map[string]any{"metricProvider": provider}},
			},
		})
	}
	return s
}
