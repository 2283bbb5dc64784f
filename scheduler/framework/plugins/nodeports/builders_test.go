package nodeports

import (
	v1 "k8s.io/api/core/v1"

	pt "github.com/berth-io/berth/scheduler/framework/plugins/plugintest"
)

// port is a host port request "ip/proto/port"-style: hostIP, protocol and port.
func port(ip string, proto v1.Protocol, hostPort int32) v1.ContainerPort {
	return v1.ContainerPort{HostIP: ip, Protocol: proto, HostPort: hostPort, ContainerPort: 8080}
}

// podWithPorts returns a pod named name with one container asking for the ports.
func podWithPorts(name string, ports ...v1.ContainerPort) *v1.Pod {
	p := pt.Pod(name).Container().Obj()
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
