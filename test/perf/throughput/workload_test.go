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
