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
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
)

// serviceNetwork stands in for kube-proxy where the apiserver needs it: the
// apiserver's egress to the cluster (webhook calls to a Service) arrives as
// HTTP CONNECT to a Service's cluster IP on a unix socket, and is joined to a
// ready local pod behind that Service. Nothing is dialled on the cluster IP.
type serviceNetwork struct {
	listener net.Listener
	clients  kubernetes.Interface
	logger   logr.Logger

	mu   sync.Mutex
	pods map[*LocalPod]struct{}
}

// egressSelectorConfig sends kube-apiserver's cluster egress to socket.
func egressSelectorConfig(socket string) string {
	return `apiVersion: apiserver.k8s.io/v1beta1
kind: EgressSelectorConfiguration
egressSelections:
- name: cluster
  connection:
    proxyProtocol: HTTPConnect
    transport:
      uds:
        udsName: ` + socket + "\n"
}

func newServiceNetwork(socket string, logger logr.Logger) (*serviceNetwork, error) {
	_ = os.Remove(socket)
	l, err := net.Listen("unix", socket)
	if err != nil {
		return nil, fmt.Errorf("listening for the apiserver's cluster egress: %w", err)
	}
	return &serviceNetwork{listener: l, logger: logger, pods: map[*LocalPod]struct{}{}}, nil
}

// serve handles the apiserver's connections until the listener is closed.
func (n *serviceNetwork) serve() {
	for {
		conn, err := n.listener.Accept()
		if err != nil {
			return
		}
		go n.handle(conn)
	}
}

func (n *serviceNetwork) close() { _ = n.listener.Close() }

func (n *serviceNetwork) add(p *LocalPod) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.pods[p] = struct{}{}
}

func (n *serviceNetwork) remove(p *LocalPod) {
	n.mu.Lock()
	defer n.mu.Unlock()
	delete(n.pods, p)
}

func (n *serviceNetwork) handle(conn net.Conn) {
	br := bufio.NewReader(conn)
	req, err := http.ReadRequest(br)
	if err != nil {
		_ = conn.Close()
		return
	}
	if req.Method != http.MethodConnect {
		_, _ = io.WriteString(conn, "HTTP/1.1 405 Method Not Allowed\r\n\r\n")
		_ = conn.Close()
		return
	}
	backend, err := n.dial(req.Context(), req.Host)
	if err != nil {
		n.logger.Info("Refusing a connection from the apiserver", "target", req.Host, "reason", err.Error())
		_, _ = io.WriteString(conn, "HTTP/1.1 503 Service Unavailable\r\n\r\n")
		_ = conn.Close()
		return
	}
	if _, err := io.WriteString(conn, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		_ = conn.Close()
		_ = backend.Close()
		return
	}
	if br.Buffered() > 0 {
		buffered, _ := br.Peek(br.Buffered())
		if _, err := backend.Write(buffered); err != nil {
			_ = conn.Close()
			_ = backend.Close()
			return
		}
	}
	splice(conn, backend)
}

// dial connects to a ready local pod behind the Service whose cluster IP and
// port make hostPort.
func (n *serviceNetwork) dial(ctx context.Context, hostPort string) (net.Conn, error) {
	host, portText, err := net.SplitHostPort(hostPort)
	if err != nil {
		return nil, fmt.Errorf("bad target %q: %w", hostPort, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil {
		return nil, fmt.Errorf("bad port in %q: %w", hostPort, err)
	}
	services, err := n.clients.CoreV1().Services(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing Services: %w", err)
	}
	for i := range services.Items {
		svc := &services.Items[i]
		if svc.Spec.ClusterIP != host {
			continue
		}
		for _, sp := range svc.Spec.Ports {
			if int(sp.Port) != port {
				continue
			}
			if p, target := n.endpoint(svc, sp.TargetPort); p != nil {
				return net.Dial("unix", portSocket(p.socketDir, target))
			}
			return nil, fmt.Errorf("service %s/%s has no ready local pod for port %d", svc.Namespace, svc.Name, port)
		}
	}
	return nil, fmt.Errorf("no Service has cluster IP %s and port %d", host, port)
}

// endpoint picks a ready pod that the Service selects, and the container
// port that targetPort names on it.
func (n *serviceNetwork) endpoint(svc *corev1.Service, targetPort intstr.IntOrString) (*LocalPod, int) {
	if len(svc.Spec.Selector) == 0 {
		return nil, 0
	}
	selector := labels.SelectorFromSet(svc.Spec.Selector)
	n.mu.Lock()
	defer n.mu.Unlock()
	for p := range n.pods {
		if p.Pod.Namespace != svc.Namespace || !selector.Matches(labels.Set(p.Pod.Labels)) || !p.Ready() || p.Exited() {
			continue
		}
		if port := containerPort(p.Pod, targetPort); port > 0 {
			return p, port
		}
	}
	return nil, 0
}

// containerPort resolves a Service's targetPort against the pod's containers.
func containerPort(pod *corev1.Pod, target intstr.IntOrString) int {
	if target.Type == intstr.Int {
		return target.IntValue()
	}
	for _, c := range pod.Spec.Containers {
		for _, p := range c.Ports {
			if p.Name == target.StrVal {
				return int(p.ContainerPort)
			}
		}
	}
	return 0
}

// splice copies both ways between a and b until both directions end.
func splice(a, b net.Conn) {
	var wg sync.WaitGroup
	wg.Add(2)
	half := func(dst, src net.Conn) {
		defer wg.Done()
		_, _ = io.Copy(dst, src)
		if cw, ok := dst.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		} else {
			_ = dst.Close()
		}
	}
	go half(a, b)
	go half(b, a)
	wg.Wait()
	_ = a.Close()
	_ = b.Close()
}
