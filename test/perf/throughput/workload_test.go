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
	"maps"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestMakeNodeSpreadsZones(t *testing.T) {
	zones := map[string]int{}
	for i := range 6 {
		n := makeNode(i)
		zones[n.Labels[corev1.LabelTopologyZone]]++
		if n.Labels[corev1.LabelHostname] != n.Name {
			t.Errorf("node %s has hostname label %q", n.Name, n.Labels[corev1.LabelHostname])
		}
		if got := n.Status.Allocatable.Cpu().String(); got != "4" {
			t.Errorf("node %s allocatable CPU = %s, want 4", n.Name, got)
		}
		if len(n.Spec.Taints) != 0 {
			t.Errorf("node %s has taints %v", n.Name, n.Spec.Taints)
		}
	}
	if len(zones) != Zones || zones["zone-0"] != 2 {
		t.Errorf("zones = %v, want %d zones of 2 nodes", zones, Zones)
	}
}

func TestMakePodIsUpstreamDefault(t *testing.T) {
	p := makePod(7)
	req := p.Spec.Containers[0].Resources.Requests
	if p.Name != "bench-pod-7" || p.Spec.SchedulerName != SchedulerName || p.Spec.NodeName != "" {
		t.Errorf("pod = %s scheduler %q node %q", p.Name, p.Spec.SchedulerName, p.Spec.NodeName)
	}
	if req.Cpu().String() != "100m" || req.Memory().String() != "500Mi" {
		t.Errorf("requests = %v, want 100m and 500Mi", req)
	}
}

func TestWorkloadPods(t *testing.T) {
	tests := []struct {
		workload       string
		wantSpread     bool
		wantAntiAffine bool
	}{
		{workload: "SchedulingBasic"},
		{workload: "TopologySpreading", wantSpread: true},
		{workload: "PodAntiAffinity", wantAntiAffine: true},
		{workload: "DynamicResources"},
	}
	for _, tt := range tests {
		t.Run(tt.workload, func(t *testing.T) {
			w, err := WorkloadNamed(tt.workload, 3, 6)
			if err != nil {
				t.Fatal(err)
			}
			p := w.pod(1)
			if got := len(p.Spec.TopologySpreadConstraints) == 1; got != tt.wantSpread {
				t.Errorf("spread constraint = %v, want %v", got, tt.wantSpread)
			}
			if tt.wantSpread && p.Spec.TopologySpreadConstraints[0].LabelSelector.MatchLabels["color"] != p.Labels["color"] {
				t.Errorf("the spread does not select the pod's own label %v", p.Labels)
			}
			anti := p.Spec.Affinity != nil && len(p.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) == 1
			if anti != tt.wantAntiAffine {
				t.Errorf("anti-affinity = %v, want %v", anti, tt.wantAntiAffine)
			}
			if tt.wantAntiAffine && p.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0].TopologyKey != corev1.LabelHostname {
				t.Errorf("anti-affinity is not per host")
			}
		})
	}
	if _, err := WorkloadNamed("Nope", 1, 1); err == nil {
		t.Error("WorkloadNamed(Nope) succeeded")
	}
}

func TestDynamicResourcesObjects(t *testing.T) {
	w := DynamicResources(3, 24, 8)
	p := w.pod(5)
	if len(p.Spec.ResourceClaims) != 1 || p.Spec.ResourceClaims[0].ResourceClaimName == nil || *p.Spec.ResourceClaims[0].ResourceClaimName != claimName(5) {
		t.Errorf("pod 5 claims %+v, want %s by name", p.Spec.ResourceClaims, claimName(5))
	}
	if c := p.Spec.Containers[0].Resources.Claims; len(c) != 1 || c[0].Name != p.Spec.ResourceClaims[0].Name {
		t.Errorf("the container uses claims %+v", c)
	}
	if c := makeClaim(5); c.Name != claimName(5) || c.Namespace != p.Namespace || c.Spec.Devices.Requests[0].Exactly.DeviceClassName != DeviceClassName {
		t.Errorf("claim 5 = %s/%s for %+v", c.Namespace, c.Name, c.Spec.Devices.Requests)
	}
	s := makeSlice(2, 8)
	if *s.Spec.NodeName != nodeName(2) || s.Spec.Pool.Name != nodeName(2) || len(s.Spec.Devices) != 8 || s.Spec.Driver != DRADriver {
		t.Errorf("slice of node 2: node %s, pool %s, %d devices of %s", *s.Spec.NodeName, s.Spec.Pool.Name, len(s.Spec.Devices), s.Spec.Driver)
	}
	if plain := SchedulingBasic(3, 24).pod(5); len(plain.Spec.ResourceClaims) != 0 {
		t.Errorf("a SchedulingBasic pod claims %+v", plain.Spec.ResourceClaims)
	}
}

func TestWorkloadCheck(t *testing.T) {
	tests := []struct {
		name    string
		w       Workload
		wantErr bool
	}{
		{name: "plain pods need no devices", w: SchedulingBasic(1, 100)},
		{name: "one device per pod exactly", w: DynamicResources(500, 4000, 8)},
		{name: "more pods than devices", w: DynamicResources(500, 4001, 8), wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.w.check(); (err != nil) != tc.wantErr {
				t.Errorf("check() = %v, want error %v", err, tc.wantErr)
			}
		})
	}
}

func TestGangsWorkload(t *testing.T) {
	w := Gangs(200, 21, 8, 5)
	if err := w.check(); err != nil {
		t.Fatal(err)
	}
	want := map[string]int32{"big": 5, "gang-0": 8, "gang-1": 8}
	if got := w.groups(); !maps.Equal(got, want) {
		t.Errorf("groups %v, want %v", got, want)
	}
	for i, group := range map[int]string{0: "big", 4: "big", 5: "gang-0", 12: "gang-0", 13: "gang-1", 20: "gang-1"} {
		p := w.pod(i)
		if sg := p.Spec.SchedulingGroup; sg == nil || *sg.PodGroupName != group {
			t.Errorf("pod %d joins %v, want %s", i, sg, group)
		}
	}
	if got := w.node(0).Labels[RackKey]; got != "rack-0" {
		t.Errorf("node 0 in rack %q, want rack-0", got)
	}
	if got := w.node(RackSize).Labels[RackKey]; got != "rack-1" {
		t.Errorf("node %d in rack %q, want rack-1", RackSize, got)
	}
	if _, ok := SchedulingBasic(10, 10).node(0).Labels[RackKey]; ok {
		t.Error("SchedulingBasic's nodes have a rack")
	}
	if err := Gangs(100, 3000, 8, 2500).check(); err == nil {
		t.Error("a gang of 2500 in racks of 2000 pods: want an error")
	}
}
