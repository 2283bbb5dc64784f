package framework

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// portsPod builds a pod whose containers ask for host ports.
type portsPod struct{ pod *v1.Pod }

func newPortsPod(name string) *portsPod {
	return &portsPod{pod: &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name)}}}
}

func (b *portsPod) container(port int32) *portsPod {
	b.pod.Spec.Containers = append(b.pod.Spec.Containers, v1.Container{Ports: []v1.ContainerPort{{HostPort: port, ContainerPort: port, Protocol: v1.ProtocolTCP}}})
	return b
}

func (b *portsPod) sidecar(port int32) *portsPod {
	always := v1.ContainerRestartPolicyAlways
	b.pod.Spec.InitContainers = append(b.pod.Spec.InitContainers, v1.Container{RestartPolicy: &always,
		Ports: []v1.ContainerPort{{HostPort: port, ContainerPort: port, Protocol: v1.ProtocolTCP}}})
	return b
}

func (b *portsPod) initContainer(port int32) *portsPod {
	b.pod.Spec.InitContainers = append(b.pod.Spec.InitContainers, v1.Container{
		Ports: []v1.ContainerPort{{HostPort: port, ContainerPort: port, Protocol: v1.ProtocolTCP}}})
	return b
}

func TestNodeInfoUsedPorts(t *testing.T) {
	tests := []struct {
		name     string
		pod      *v1.Pod
		wantUsed []int32
		wantFree []int32
	}{
		{name: "app container ports", pod: newPortsPod("a").container(80).container(443).pod, wantUsed: []int32{80, 443}},
		{name: "sidecar ports are held", pod: newPortsPod("b").container(80).sidecar(9090).pod, wantUsed: []int32{80, 9090}},
		{name: "run-to-completion init container ports are not held", pod: newPortsPod("c").initContainer(8080).container(80).pod,
			wantUsed: []int32{80}, wantFree: []int32{8080}},
		{name: "no host port", pod: newPortsPod("d").container(0).pod, wantFree: []int32{80}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pi, err := NewPodInfo(tc.pod)
			if err != nil {
				t.Fatal(err)
			}
			ni := NewNodeInfo(pi)
			for _, p := range tc.wantUsed {
				if !ni.UsedPorts.CheckConflict("", "TCP", p) {
					t.Errorf("port %d is not recorded as used", p)
				}
			}
			for _, p := range tc.wantFree {
				if ni.UsedPorts.CheckConflict("", "TCP", p) {
					t.Errorf("port %d is recorded as used", p)
				}
			}
			if err := ni.RemovePod(tc.pod); err != nil {
				t.Fatal(err)
			}
			if n := ni.UsedPorts.Len(); n != 0 {
				t.Errorf("after removing the pod %d ports are still used", n)
			}
		})
	}
}

func TestNodeInfoSnapshotIndex(t *testing.T) {
	tests := []struct {
		name string
		set  []int
		want int
	}{
		{name: "never placed", want: -1},
		{name: "placed first", set: []int{0}, want: 0},
		{name: "placed again", set: []int{3, 4999}, want: 4999},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ni := NewNodeInfo()
			for _, i := range tt.set {
				ni.SetSnapshotIndex(i)
			}
			if got := ni.SnapshotIndex(); got != tt.want {
				t.Errorf("SnapshotIndex() = %d, want %d", got, tt.want)
			}
			// A clone is a NodeInfo no snapshot has placed.
			if got := ni.Clone().SnapshotIndex(); got != -1 {
				t.Errorf("the clone's SnapshotIndex() = %d, want -1", got)
			}
		})
	}
}
