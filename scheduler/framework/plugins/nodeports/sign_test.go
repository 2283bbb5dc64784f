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
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/internal/signtest"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestSignPod(t *testing.T) {
	tcp80, tcp81 := port("", v1.ProtocolTCP, 80), port("", v1.ProtocolTCP, 81)
	containerOnly := v1.ContainerPort{ContainerPort: 8080, Protocol: v1.ProtocolTCP}
	signtest.Pairs(t, &NodePorts{}, []string{framework.HostPortsSignKey}, []signtest.Pair{
		{Name: "another name", A: podWithPorts("a", tcp80), B: podWithPorts("b", tcp80), Same: true},
		{Name: "labels and volumes", A: podWithPorts("p", tcp80), B: st.PodFrom(podWithPorts("p", tcp80)).Labels("app", "x").PVC("data").Obj(), Same: true},
		{Name: "ports in another order", A: podWithPorts("p", tcp80, tcp81), B: podWithPorts("p", tcp81, tcp80), Same: true},
		{Name: "a port repeated in a sidecar", A: podWithPorts("p", tcp80), B: sidecarPorts(podWithPorts("p", tcp80), true, tcp80), Same: true},
		{Name: "container ports only", A: podWithPorts("p"), B: podWithPorts("p", containerOnly), Same: true},
		// As upstream, only the port numbers are signed, not protocols or host IPs.
		{Name: "the port over UDP", A: podWithPorts("p", tcp80), B: podWithPorts("p", port("", v1.ProtocolUDP, 80)), Same: true},
		{Name: "the port on one host IP", A: podWithPorts("p", tcp80), B: podWithPorts("p", port("10.0.0.1", v1.ProtocolTCP, 80)), Same: true},
		{Name: "another port", A: podWithPorts("p", tcp80), B: podWithPorts("p", tcp81), Same: false},
		{Name: "one more port", A: podWithPorts("p", tcp80), B: podWithPorts("p", tcp80, tcp81), Same: false},
		{Name: "a port in an init container", A: podWithPorts("p"), B: sidecarPorts(podWithPorts("p"), false, tcp80), Same: false},
	})
}
