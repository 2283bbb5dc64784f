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

package audit

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"
)

// checkResources holds the sum of each node's bound pods' requests, and
// their number, against the node's allocatable. A resource the node does
// not list has nothing allocatable.
func (s *snapshot) checkResources() []Violation {
	var out []Violation
	for _, name := range s.nodeNames {
		pods := s.byNode[name]
		if len(pods) == 0 {
			continue
		}
		node := s.nodes[name]
		total := corev1.ResourceList{}
		for _, p := range pods {
			addList(total, podRequests(p))
		}
		var over []string
		if alloc := node.Status.Allocatable[corev1.ResourcePods]; int64(len(pods)) > alloc.Value() {
			over = append(over, fmt.Sprintf("pods %d > %s", len(pods), alloc.String()))
		}
		names := make([]corev1.ResourceName, 0, len(total))
		for r := range total {
			names = append(names, r)
		}
		slices.Sort(names)
		for _, r := range names {
			req := total[r]
			if !isCheckedResource(r) || req.Sign() <= 0 {
				continue
			}
			alloc := node.Status.Allocatable[r]
			if req.Cmp(alloc) > 0 {
				over = append(over, fmt.Sprintf("%s %s > %s", r, req.String(), alloc.String()))
			}
		}
		if len(over) > 0 {
			out = append(out, Violation{Kind: KindNode, Name: name, Node: name, Constraint: NodeResources, Message: fmt.Sprintf(
				"the requests of the node's %d bound pods exceed its allocatable: %s", len(pods), strings.Join(over, ", "))})
		}
	}
	return out
}

// isCheckedResource reports whether the scheduler holds requests of the
// resource against allocatable: cpu, memory, ephemeral-storage, huge pages
// and every domain-prefixed (extended) resource.
func isCheckedResource(r corev1.ResourceName) bool {
	switch {
	case r == corev1.ResourceCPU, r == corev1.ResourceMemory, r == corev1.ResourceEphemeralStorage:
		return true
	case strings.HasPrefix(string(r), corev1.ResourceHugePagesPrefix), strings.Contains(string(r), "/"):
		return true
	}
	return false
}

// podRequests returns what the pod holds on its node, by the API's rules
// (k8s.io/component-helpers' PodRequests: the larger of the containers
// with their sidecars and the largest init container, pod-level requests,
// the overhead, and across a resize what the kubelet allocated or
// actuated). Extended resources the scheduler gave a container through a
// DRA claim are left out: the node's allocatable does not list them.
func podRequests(p *corev1.Pod) corev1.ResourceList {
	reqs := resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{UseStatusResources: true, InPlacePodLevelResourcesVerticalScalingEnabled: true})
	if st := p.Status.ExtendedResourceClaimStatus; st != nil {
		for _, m := range st.RequestMappings {
			delete(reqs, corev1.ResourceName(m.ResourceName))
		}
	}
	return reqs
}

// addList adds add to total.
func addList(total, add corev1.ResourceList) {
	for r, q := range add {
		sum := total[r]
		sum.Add(q)
		total[r] = sum
	}
}

// hostPort is a port a pod takes on its node.
type hostPort struct {
	ip       string
	protocol corev1.Protocol
	port     int32
}

func (h hostPort) String() string { return fmt.Sprintf("%d/%s on %s", h.port, h.protocol, h.ip) }

// conflicts reports whether two pods cannot both take the ports: same port
// and protocol, on the same IP or on 0.0.0.0, which takes every IP.
func (h hostPort) conflicts(o hostPort) bool {
	return h.port == o.port && h.protocol == o.protocol && (h.ip == o.ip || h.ip == wildcardIP || o.ip == wildcardIP)
}

const wildcardIP = "0.0.0.0"

// hostPorts returns the host ports of the pod's containers and sidecars;
// an empty protocol is TCP and an empty hostIP is 0.0.0.0.
func hostPorts(p *corev1.Pod) []hostPort {
	var out []hostPort
	add := func(c *corev1.Container) {
		for _, port := range c.Ports {
			if port.HostPort <= 0 {
				continue
			}
			h := hostPort{ip: port.HostIP, protocol: port.Protocol, port: port.HostPort}
			if h.ip == "" {
				h.ip = wildcardIP
			}
			if h.protocol == "" {
				h.protocol = corev1.ProtocolTCP
			}
			out = append(out, h)
		}
	}
	for i := range p.Spec.Containers {
		add(&p.Spec.Containers[i])
	}
	for i := range p.Spec.InitContainers {
		if c := &p.Spec.InitContainers[i]; c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			add(c)
		}
	}
	return out
}

// checkHostPorts reports the pods that take a host port another pod of
// their node already takes. The pods of a node are taken oldest first (by
// creation, then namespace and name), and each conflict is reported on the
// younger pod, naming the older ones.
func (s *snapshot) checkHostPorts() []Violation {
	var out []Violation
	for _, name := range s.nodeNames {
		pods := slices.Clone(s.byNode[name])
		slices.SortStableFunc(pods, func(a, b *corev1.Pod) int {
			return cmp.Or(a.CreationTimestamp.Compare(b.CreationTimestamp.Time), comparePods(a, b))
		})
		type taken struct {
			port hostPort
			pod  *corev1.Pod
		}
		var seen []taken
		for _, p := range pods {
			ports := hostPorts(p)
			for _, h := range ports {
				var with []string
				for _, t := range seen {
					if h.conflicts(t.port) {
						with = append(with, fmt.Sprintf("%s (%s)", podName(t.pod), t.port))
					}
				}
				if len(with) > 0 {
					out = append(out, podViolation(p, HostPorts, fmt.Sprintf("hostPort %s on node %s is also taken by %s",
						h, name, joinLimited(with, 5))))
				}
			}
			for _, h := range ports {
				seen = append(seen, taken{port: h, pod: p})
			}
		}
	}
	return out
}
