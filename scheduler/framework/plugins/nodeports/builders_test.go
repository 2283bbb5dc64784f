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

package nodeports

import (
	v1 "k8s.io/api/core/v1"

	st "github.com/berth-io/berth/scheduler/schedtest"
)

// port is a host port request "ip/proto/port"-style: hostIP, protocol and port.
func port(ip string, proto v1.Protocol, hostPort int32) v1.ContainerPort {
	return v1.ContainerPort{HostIP: ip, Protocol: proto, HostPort: hostPort, ContainerPort: 8080}
}

// podWithPorts returns a pod named name with one container asking for the ports.
func podWithPorts(name string, ports ...v1.ContainerPort) *v1.Pod {
	p := st.Pod(name).Container().Obj()
	p.Spec.Containers[0].Ports = ports
	return p
}

// onNode places the pod on node n.
func onNode(p *v1.Pod) *v1.Pod { p.Spec.NodeName = "n"; return p }

// sidecarPorts adds an init container, restartable when sidecar is set, with the ports.
func sidecarPorts(p *v1.Pod, sidecar bool, ports ...v1.ContainerPort) *v1.Pod {
	c := v1.Container{Name: "init", Ports: ports}
	if sidecar {
		always := v1.ContainerRestartPolicyAlways
		c.RestartPolicy = &always
	}
	p.Spec.InitContainers = append(p.Spec.InitContainers, c)
	return p
}
