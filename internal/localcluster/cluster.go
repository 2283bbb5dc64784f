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

// Package localcluster runs a local Kubernetes control plane for trying and
// testing Berth: etcd, kube-apiserver and kube-controller-manager built from
// Go modules, plus kwok simulating fake nodes and the kubelets' view of the
// pods bound to them, and optionally metrics-server reporting what kwok says
// the pods use. `make run` and the e2e suite both use it.
package localcluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/berth-io/berth/config/crd"
)

// stopGrace is how long a component may take to exit after SIGTERM.
const stopGrace = 10 * time.Second

// Cluster is a running local control plane with fake nodes.
type Cluster struct {
	// Dir holds the cluster's data, certificates, kubeconfig and logs/.
	Dir string
	// Kubeconfig is the path of an administrator kubeconfig.
	Kubeconfig string
	// Config reaches the apiserver as an administrator, without a client-side rate limit.
	Config *rest.Config
	// Clientset is a client-go clientset built from Config.
	Clientset kubernetes.Interface
	// Nodes is how many fake nodes the cluster has.
	Nodes int

	logger     logr.Logger
	caPEM      []byte
	podInit    string
	network    *serviceNetwork
	removeDir  bool
	components []*Process
	// apiserverArgs and apiserverBin restart the apiserver.
	apiserverBin  string
	apiserverArgs []string
	output        io.Writer
}

// Start starts etcd, kube-apiserver, kube-controller-manager and kwok (and
// metrics-server, WithMetricsServer), installs Berth's CRDs and creates the
// fake nodes, and returns once the nodes are Ready (and metrics.k8s.io is
// served). ctx bounds the start only. When Start fails it stops what
// it had started; when it succeeds the caller must call Stop.
func Start(ctx context.Context, opts ...Option) (_ *Cluster, err error) {
	o := options{nodes: DefaultNodes, logger: logr.Discard(), startTimeout: 2 * time.Minute}
	for _, opt := range opts {
		opt(&o)
	}
	if o.k8sBinDir == "" || (!o.apiOnly && (o.kwokBin == "" || o.kwokStages == "")) {
		return nil, errors.New("localcluster: WithK8sBinDir and WithKwok are required")
	}
	if o.metricsBin != "" && (o.apiOnly || o.podInit != "") {
		return nil, errors.New("localcluster: WithMetricsServer cannot be combined with WithControlPlaneOnly or WithPodNetwork")
	}
	var usage *kwokUsage
	if o.metricsBin != "" {
		if usage, err = readKwokUsage(o.kwokUsage); err != nil {
			return nil, err
		}
	}
	c := &Cluster{Dir: o.runDir, Nodes: o.nodes, logger: o.logger}
	if c.Dir == "" {
		if c.Dir, err = os.MkdirTemp("", "berth-local-"); err != nil {
			return nil, fmt.Errorf("creating a run directory: %w", err)
		}
		c.removeDir = true
	} else {
		if err := os.RemoveAll(c.Dir); err != nil {
			return nil, fmt.Errorf("clearing the run directory: %w", err)
		}
		if err := os.MkdirAll(c.Dir, 0o755); err != nil {
			return nil, fmt.Errorf("creating the run directory: %w", err)
		}
	}
	defer func() {
		if err != nil {
			c.Stop()
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, o.startTimeout)
	defer cancel()

	start := func(name, binary string, args ...string) (*Process, error) {
		p, err := StartProcess(name, c.LogDir(), o.output, binary, args...)
		if err != nil {
			return nil, err
		}
		c.components = append(c.components, p)
		return p, nil
	}

	ports, err := freePorts(4)
	if err != nil {
		return nil, err
	}
	etcdPort, apiPort, kwokPort, metricsPort := ports[0], ports[1], ports[2], ports[3]
	certs, err := writePKI(filepath.Join(c.Dir, "pki"), time.Now())
	if err != nil {
		return nil, err
	}
	c.caPEM = certs.caPEM
	var egressArgs []string
	if o.podInit != "" {
		if egressArgs, err = c.startServiceNetwork(o.podInit); err != nil {
			return nil, err
		}
	}
	etcdURL := "http://127.0.0.1:" + strconv.Itoa(etcdPort)
	c.logger.Info("Starting etcd", "url", etcdURL)
	if _, err := start("etcd", filepath.Join(o.k8sBinDir, "etcd"),
		"--data-dir="+filepath.Join(c.Dir, "etcd"),
		"--listen-client-urls="+etcdURL, "--advertise-client-urls="+etcdURL,
		"--listen-peer-urls=http://127.0.0.1:0",
		"--unsafe-no-fsync", "--log-level=warn",
	); err != nil {
		return nil, err
	}

	server := "https://127.0.0.1:" + strconv.Itoa(apiPort)
	c.logger.Info("Starting kube-apiserver", "url", server)
	apiserverArgs := append([]string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(apiPort),
		"--tls-cert-file=" + certs.servingCert, "--tls-private-key-file=" + certs.servingKey,
		"--client-ca-file=" + certs.caCert,
		"--service-account-key-file=" + certs.saPublic,
		"--service-account-signing-key-file=" + certs.saPrivate,
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-cluster-ip-range=10.0.0.0/24",
		"--authorization-mode=RBAC",
		"--allow-privileged=true",
		// The default reconciler refuses a loopback address for the kubernetes Service.
		"--endpoint-reconciler-type=none",
		"--max-requests-inflight=1000", "--max-mutating-requests-inflight=500",
	}, aggregationArgs(certs)...)
	apiserverArgs = append(apiserverArgs, egressArgs...)
	if o.featureGates != "" {
		apiserverArgs = append(apiserverArgs, "--feature-gates="+o.featureGates)
	}
	if o.runtimeCfg != "" {
		apiserverArgs = append(apiserverArgs, "--runtime-config="+o.runtimeCfg)
	}
	if o.audit {
		auditArgs, err := c.writeAuditPolicy()
		if err != nil {
			return nil, err
		}
		apiserverArgs = append(apiserverArgs, auditArgs...)
	}
	c.apiserverBin, c.apiserverArgs, c.output = filepath.Join(o.k8sBinDir, "kube-apiserver"), apiserverArgs, o.output
	apiserver, err := start("kube-apiserver", c.apiserverBin, apiserverArgs...)
	if err != nil {
		return nil, err
	}
	c.Kubeconfig = filepath.Join(c.Dir, "kubeconfig")
	if err := writeKubeconfig(c.Kubeconfig, server, certs); err != nil {
		return nil, err
	}
	if c.Config, err = clientcmd.BuildConfigFromFlags("", c.Kubeconfig); err != nil {
		return nil, fmt.Errorf("loading the kubeconfig: %w", err)
	}
	c.Config.QPS, c.Config.Burst = -1, -1
	if c.Clientset, err = kubernetes.NewForConfig(c.Config); err != nil {
		return nil, fmt.Errorf("building a clientset: %w", err)
	}
	if err := c.waitFor(ctx, "kube-apiserver to be ready", apiserver, func(ctx context.Context) (bool, error) {
		raw, err := c.Clientset.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		return err == nil && string(raw) == "ok", nil
	}); err != nil {
		return nil, err
	}

	if o.apiOnly {
		return c, c.finishControlPlaneOnly(ctx)
	}

	// metrics-server needs only the apiserver: it starts while the rest
	// does, and is waited for last.
	var metricsServer *Process
	if usage != nil {
		c.logger.Info("Starting metrics-server", "port", metricsPort)
		if metricsServer, err = start("metrics-server", o.metricsBin, c.metricsServerArgs(certs, metricsPort)...); err != nil {
			return nil, err
		}
		if err := c.registerMetricsAPI(ctx, metricsPort); err != nil {
			return nil, err
		}
	}

	c.logger.Info("Starting kube-controller-manager")
	kcmArgs := []string{
		"--kubeconfig=" + c.Kubeconfig,
		"--leader-elect=false", "--secure-port=0",
		"--service-account-private-key-file=" + certs.saPrivate,
		"--root-ca-file=" + certs.caCert,
		"--use-service-account-credentials=false",
		"--kube-api-qps=500", "--kube-api-burst=1000",
		"--concurrent-deployment-syncs=10", "--concurrent-replicaset-syncs=10",
	}
	if o.featureGates != "" {
		kcmArgs = append(kcmArgs, "--feature-gates="+o.featureGates)
	}
	kcm, err := start("kube-controller-manager", filepath.Join(o.k8sBinDir, "kube-controller-manager"), kcmArgs...)
	if err != nil {
		return nil, err
	}
	// The serviceaccount controller creating default/default proves the
	// controller manager works, and pods need that account to be admitted.
	if err := c.waitFor(ctx, "kube-controller-manager to create the default ServiceAccount", kcm, func(ctx context.Context) (bool, error) {
		_, err := c.Clientset.CoreV1().ServiceAccounts(metav1.NamespaceDefault).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	}); err != nil {
		return nil, err
	}

	if c.network != nil {
		c.network.clients = c.Clientset
	}
	var extraCRDs []*apiextensionsv1.CustomResourceDefinition
	if usage != nil {
		extraCRDs = usage.crds
	}
	if err := c.installCRDs(ctx, !o.noCRDs, extraCRDs...); err != nil {
		return nil, err
	}

	// The nodes' kubelet endpoint is kwok's server, at their InternalIP
	// 127.0.0.1 and the port of their status, serving TLS as a kubelet does.
	kwokArgs := []string{
		"--kubeconfig=" + c.Kubeconfig,
		"--config=" + o.kwokStages,
		"--manage-all-nodes=false",
		"--manage-nodes-with-annotation-selector=" + KwokNodeAnnotation + "=fake",
		"--node-lease-duration-seconds=40",
		"--cidr=10.244.0.1/16", "--node-ip=127.0.0.1",
		"--node-port=" + strconv.Itoa(kwokPort),
		"--server-address=127.0.0.1:" + strconv.Itoa(kwokPort),
		"--tls-cert-file=" + certs.kwokCert, "--tls-private-key-file=" + certs.kwokKey,
	}
	if usage != nil {
		applier, err := NewApplier(c.Config)
		if err != nil {
			return nil, err
		}
		if err := applier.Apply(ctx, usage.objects...); err != nil {
			return nil, fmt.Errorf("applying kwok's usage configuration: %w", err)
		}
		metricConfig, err := c.writeKubeletMetricsConfig()
		if err != nil {
			return nil, err
		}
		kwokArgs = append(kwokArgs, "--config="+metricConfig, "--enable-crds="+kwokUsageCRDs)
	}
	c.logger.Info("Starting kwok", "nodes", o.nodes)
	kwok, err := start("kwok", o.kwokBin, kwokArgs...)
	if err != nil {
		return nil, err
	}
	if err := c.createNodes(ctx, kwok, o.nodes); err != nil {
		return nil, err
	}
	if metricsServer != nil {
		if err := c.waitMetricsAPI(ctx, metricsServer); err != nil {
			return nil, err
		}
	}
	c.logger.Info("Local cluster is up", "kubeconfig", c.Kubeconfig, "nodes", o.nodes, "metricsServer", metricsServer != nil)
	return c, nil
}

// LogDir is where the components write their logs.
func (c *Cluster) LogDir() string { return filepath.Join(c.Dir, "logs") }

// CopyLogs copies the components' and local pods' logs into dst, which it
// empties first, so that they outlive a temporary run directory.
func (c *Cluster) CopyLogs(dst string) error {
	if err := os.RemoveAll(dst); err != nil {
		return fmt.Errorf("clearing %s: %w", dst, err)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dst, err)
	}
	files, err := filepath.Glob(filepath.Join(c.LogDir(), "*.log"))
	if err != nil {
		return fmt.Errorf("listing the logs: %w", err)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("reading %s: %w", f, err)
		}
		if err := os.WriteFile(filepath.Join(dst, filepath.Base(f)), raw, 0o644); err != nil {
			return fmt.Errorf("writing the copy of %s: %w", f, err)
		}
	}
	return nil
}

// Stop stops kwok, the controller manager, metrics-server, the apiserver
// and etcd, in that order, each within a grace period, and removes the run directory when
// Start made a temporary one. It is safe to call more than once.
func (c *Cluster) Stop() {
	for i := len(c.components) - 1; i >= 0; i-- {
		p := c.components[i]
		c.logger.V(1).Info("Stopping", "component", p.Name)
		p.Stop(stopGrace)
	}
	c.components = nil
	if c.network != nil {
		c.network.close()
	}
	if c.removeDir {
		_ = os.RemoveAll(c.Dir)
	}
}

// Exited returns the first component that is no longer running, or nil.
func (c *Cluster) Exited() *Process {
	for _, p := range c.components {
		if p.Exited() {
			return p
		}
	}
	return nil
}

// Components returns the component processes in start order.
func (c *Cluster) Components() []*Process { return append([]*Process(nil), c.components...) }

// waitFor polls cond every 200ms until it holds, ctx ends, or p exits.
func (c *Cluster) waitFor(ctx context.Context, what string, p *Process, cond wait.ConditionWithContextFunc) error {
	c.logger.V(1).Info("Waiting for " + what)
	err := wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		if p != nil && p.Exited() {
			return false, fmt.Errorf("%s exited: %w", p.Name, p.Err())
		}
		return cond(ctx)
	})
	if err != nil {
		if p != nil {
			return fmt.Errorf("waiting for %s: %w\nlast lines of %s:\n%s", what, err, p.LogFile, tailLog(p.LogFile, 20))
		}
		return fmt.Errorf("waiting for %s: %w", what, err)
	}
	return nil
}

// installCRDs creates Berth's CRDs, when berth is set, and extra, and waits
// until the apiserver serves them.
func (c *Cluster) installCRDs(ctx context.Context, berth bool, extra ...*apiextensionsv1.CustomResourceDefinition) error {
	var crds []*apiextensionsv1.CustomResourceDefinition
	if berth {
		var err error
		if crds, err = crd.CRDs(); err != nil {
			return fmt.Errorf("loading Berth's CRDs: %w", err)
		}
	}
	crds = append(crds, extra...)
	if len(crds) == 0 {
		return nil
	}
	applier, err := NewApplier(c.Config)
	if err != nil {
		return err
	}
	objs := make([]*unstructured.Unstructured, 0, len(crds))
	for _, d := range crds {
		d.APIVersion, d.Kind = "apiextensions.k8s.io/v1", "CustomResourceDefinition"
		raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(d)
		if err != nil {
			return fmt.Errorf("converting CRD %s: %w", d.Name, err)
		}
		u := &unstructured.Unstructured{Object: raw}
		unstructured.RemoveNestedField(u.Object, "status")
		unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
		objs = append(objs, u)
	}
	c.logger.Info("Installing CRDs", "berth", berth, "count", len(objs))
	if err := applier.Apply(ctx, objs...); err != nil {
		return err
	}
	return c.waitFor(ctx, "the CRDs to be served", nil, func(ctx context.Context) (bool, error) {
		for _, d := range crds {
			list, err := c.Clientset.Discovery().ServerResourcesForGroupVersion(d.Spec.Group + "/" + d.Spec.Versions[0].Name)
			if err != nil || !servesResource(list, d.Spec.Names.Plural) {
				return false, nil
			}
		}
		return true, nil
	})
}

func servesResource(list *metav1.APIResourceList, plural string) bool {
	for _, r := range list.APIResources {
		if r.Name == plural {
			return true
		}
	}
	return false
}

// createNodes creates n fake nodes and waits until kwok reports them all Ready.
func (c *Cluster) createNodes(ctx context.Context, kwok *Process, n int) error {
	for i := range n {
		if _, err := c.Clientset.CoreV1().Nodes().Create(ctx, FakeNode(i), metav1.CreateOptions{FieldManager: FieldManager}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating node %s: %w", NodeName(i), err)
		}
	}
	return c.waitFor(ctx, fmt.Sprintf("%d fake nodes to be Ready", n), kwok, func(ctx context.Context) (bool, error) {
		nodes, err := c.Clientset.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		ready := 0
		for i := range nodes.Items {
			if nodeReady(&nodes.Items[i]) {
				ready++
			}
		}
		return ready >= n, nil
	})
}

func nodeReady(node *corev1.Node) bool {
	for _, cond := range node.Status.Conditions {
		if cond.Type == corev1.NodeReady {
			return cond.Status == corev1.ConditionTrue
		}
	}
	return false
}

// freePorts asks the kernel for n unused local ports.
func freePorts(n int) ([]int, error) {
	ports := make([]int, n)
	var listeners []net.Listener
	defer func() {
		for _, l := range listeners {
			_ = l.Close()
		}
	}()
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("finding a free port: %w", err)
		}
		listeners = append(listeners, l)
		ports[i] = l.Addr().(*net.TCPAddr).Port
	}
	return ports, nil
}

// startServiceNetwork listens for the apiserver's cluster egress and returns
// the apiserver flags that send it there.
func (c *Cluster) startServiceNetwork(podInit string) ([]string, error) {
	n, err := newServiceNetwork(filepath.Join(c.Dir, "egress.sock"), c.logger.WithName("service-network"))
	if err != nil {
		return nil, err
	}
	c.network, c.podInit = n, podInit
	go n.serve()
	config := filepath.Join(c.Dir, "egress-selector.yaml")
	if err := os.WriteFile(config, []byte(egressSelectorConfig(filepath.Join(c.Dir, "egress.sock"))), 0o644); err != nil {
		return nil, fmt.Errorf("writing the egress selector configuration: %w", err)
	}
	return []string{"--egress-selector-config-file=" + config}, nil
}
