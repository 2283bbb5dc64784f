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

package localcluster

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

const (
	// ResourceMetricsPathAnnotation tells metrics-server where on a node's
	// kubelet endpoint the node serves /metrics/resource; the fake nodes
	// carry it, since kwok serves every node's at a path of its own.
	ResourceMetricsPathAnnotation = "metrics.k8s.io/resource-metrics-path"
	// UsageCPUAnnotation sets the CPU a pod's containers use on a cluster
	// started WithMetricsServer (each container; a quantity such as "500m"),
	// unless a kwok ResourceUsage named after the pod says otherwise.
	UsageCPUAnnotation = "kwok.x-k8s.io/usage-cpu"
	// UsageMemoryAnnotation sets the memory a pod's containers use, as
	// UsageCPUAnnotation sets their CPU.
	UsageMemoryAnnotation = "kwok.x-k8s.io/usage-memory"
	// MetricsResolution is how often metrics-server scrapes the nodes: the
	// shortest it allows. A node's CPU use is a rate between two scrapes, so
	// a new pod's use shows in NodeMetrics one to two resolutions after it
	// runs, and in its PodMetrics after two scrapes.
	MetricsResolution = 10 * time.Second

	// metricsServerService is the Service the metrics.k8s.io APIService
	// names, in kube-system.
	metricsServerService = "metrics-server"
	// kwokUsageCRDs are the kwok kinds the pods' usage is read from, as
	// kwok's --enable-crds names them.
	kwokUsageCRDs = "ResourceUsage,ClusterResourceUsage"
)

// kubeletResourceMetrics is kwok's Metric that makes each fake node serve
// what a kubelet's /metrics/resource gives metrics-server: the node's and
// each container's cumulative CPU, working-set memory and the containers'
// start times, from the usage kwok computes for the pods (ResourceUsage,
// ClusterResourceUsage). A node also uses 100m CPU and 256Mi of memory of
// its own, as a real node's system daemons do: metrics-server drops a node
// whose CPU or memory reads zero, and a node without pods would otherwise
// have no NodeMetrics at all. kwok serves it from static configuration: a
// Metric object would be served too, but kwok cannot replace its routes.
const kubeletResourceMetrics = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Metric
metadata:
  name: kubelet-resource-metrics
spec:
  path: /metrics/nodes/{nodeName}/metrics/resource
  metrics:
  - name: node_cpu_usage_seconds_total
    help: Cumulative CPU the node used, in core-seconds.
    kind: counter
    dimension: node
    value: node.CumulativeUsage("cpu") + 0.1 * node.SinceSecond()
  - name: node_memory_working_set_bytes
    help: The node's working set, in bytes.
    kind: gauge
    dimension: node
    value: node.Usage("memory") + 268435456.0
  - name: container_cpu_usage_seconds_total
    help: Cumulative CPU the container used, in core-seconds.
    kind: counter
    dimension: container
    labels: &container
    - {name: container, value: container.name}
    - {name: namespace, value: pod.metadata.namespace}
    - {name: pod, value: pod.metadata.name}
    value: pod.CumulativeUsage("cpu", container.name)
  - name: container_memory_working_set_bytes
    help: The container's working set, in bytes.
    kind: gauge
    dimension: container
    labels: *container
    value: pod.Usage("memory", container.name)
  - name: container_start_time_seconds
    help: When the container started, in seconds since the epoch.
    kind: gauge
    dimension: container
    labels: *container
    value: UnixSecond(pod.status.startTime)
`

// ResourceMetricsPath is where kwok serves the /metrics/resource of the
// node named node.
func ResourceMetricsPath(node string) string { return "/metrics/nodes/" + node + "/metrics/resource" }

// aggregationArgs are kube-apiserver's flags for the aggregation layer: it
// proxies to aggregated apiservers with the front proxy's client
// certificate and the requester's identity in request headers.
func aggregationArgs(certs *pki) []string {
	return []string{
		"--requestheader-client-ca-file=" + certs.frontProxyCACert,
		"--requestheader-allowed-names=" + frontProxyClientName,
		"--requestheader-username-headers=X-Remote-User",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--proxy-client-cert-file=" + certs.proxyClientCert,
		"--proxy-client-key-file=" + certs.proxyClientKey,
	}
}

// metricsServerArgs are metrics-server's flags: it serves on 127.0.0.1:port,
// authenticates and authorizes through the apiserver with the
// administrator's kubeconfig, and scrapes each node at its InternalIP and
// the port of its status (kwok's server), without verifying kwok's
// certificate, as kubelets' self-signed ones are not verified either.
func (c *Cluster) metricsServerArgs(certs *pki, port int) []string {
	return []string{
		"--kubeconfig=" + c.Kubeconfig,
		"--authentication-kubeconfig=" + c.Kubeconfig,
		"--authorization-kubeconfig=" + c.Kubeconfig,
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		"--tls-cert-file=" + certs.metricsServerCert,
		"--tls-private-key-file=" + certs.metricsServerKey,
		"--kubelet-insecure-tls",
		"--kubelet-use-node-status-port",
		"--kubelet-preferred-address-types=InternalIP",
		"--metric-resolution=" + MetricsResolution.String(),
		// Shorter than the resolution, as metrics-server requires.
		"--kubelet-request-timeout=5s",
	}
}

// registerMetricsAPI registers metrics-server as the metrics.k8s.io
// apiserver: an ExternalName Service for 127.0.0.1 (an EndpointSlice may not
// hold a loopback address, and the aggregator dials an ExternalName
// Service's name on the APIService's port), and the APIService, which
// verifies metrics-server's certificate with the cluster's CA.
func (c *Cluster) registerMetricsAPI(ctx context.Context, port int) error {
	applier, err := NewApplier(c.Config)
	if err != nil {
		return err
	}
	service := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1",
		"kind":       "Service",
		"metadata": map[string]any{
			"name":      metricsServerService,
			"namespace": metav1.NamespaceSystem,
			"labels":    map[string]any{"app.kubernetes.io/name": "metrics-server"},
		},
		"spec": map[string]any{
			"type":         "ExternalName",
			"externalName": "127.0.0.1",
			"ports":        []any{map[string]any{"name": "https", "port": int64(port), "protocol": "TCP"}},
		},
	}}
	apiService := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiregistration.k8s.io/v1",
		"kind":       "APIService",
		"metadata": map[string]any{
			"name":   "v1beta1.metrics.k8s.io",
			"labels": map[string]any{"app.kubernetes.io/name": "metrics-server"},
		},
		"spec": map[string]any{
			"group":                "metrics.k8s.io",
			"version":              "v1beta1",
			"groupPriorityMinimum": int64(100),
			"versionPriority":      int64(100),
			"caBundle":             base64.StdEncoding.EncodeToString(c.caPEM),
			"service": map[string]any{
				"namespace": metav1.NamespaceSystem,
				"name":      metricsServerService,
				"port":      int64(port),
			},
		},
	}}
	if err := applier.Apply(ctx, service, apiService); err != nil {
		return fmt.Errorf("registering metrics-server's APIService: %w", err)
	}
	return nil
}

// waitMetricsAPI waits until the apiserver serves metrics.k8s.io through
// metrics-server, that is until the aggregator reaches it.
func (c *Cluster) waitMetricsAPI(ctx context.Context, p *Process) error {
	return c.waitFor(ctx, "metrics.k8s.io to be served by metrics-server", p, func(context.Context) (bool, error) {
		list, err := c.Clientset.Discovery().ServerResourcesForGroupVersion("metrics.k8s.io/v1beta1")
		return err == nil && servesResource(list, "nodes") && servesResource(list, "pods"), nil
	})
}

// kwokUsage is the content of WithMetricsServer's kwok file, split into
// the CRDs, installed with Berth's, and the objects of those kinds.
type kwokUsage struct {
	crds    []*apiextensionsv1.CustomResourceDefinition
	objects []*unstructured.Unstructured
}

// readKwokUsage reads and splits the kwok file of WithMetricsServer.
func readKwokUsage(file string) (*kwokUsage, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("opening kwok's usage configuration: %w", err)
	}
	defer func() { _ = f.Close() }()
	objs, err := DecodeManifests(f)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", file, err)
	}
	ku := &kwokUsage{}
	for _, u := range objs {
		if u.GetKind() != "CustomResourceDefinition" {
			ku.objects = append(ku.objects, u)
			continue
		}
		d := &apiextensionsv1.CustomResourceDefinition{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, d); err != nil {
			return nil, fmt.Errorf("reading CRD %s of %s: %w", u.GetName(), file, err)
		}
		ku.crds = append(ku.crds, d)
	}
	if len(ku.crds) == 0 {
		return nil, fmt.Errorf("%s holds no CRD; want kwok's ResourceUsage and ClusterResourceUsage CRDs", file)
	}
	return ku, nil
}

// writeKubeletMetricsConfig writes kwok's Metric configuration into the run
// directory and returns its path.
func (c *Cluster) writeKubeletMetricsConfig() (string, error) {
	path := filepath.Join(c.Dir, "kwok-metric.yaml")
	if err := os.WriteFile(path, []byte(kubeletResourceMetrics), 0o644); err != nil {
		return "", fmt.Errorf("writing kwok's Metric configuration: %w", err)
	}
	return path, nil
}
