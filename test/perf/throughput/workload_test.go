package throughput

import (
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
