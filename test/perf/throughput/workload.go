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
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

const (
	// Namespace holds the benchmark's pods.
	Namespace = metav1.NamespaceDefault
	// SchedulerName is the spec.schedulerName of the benchmark's pods.
	SchedulerName = corev1.DefaultSchedulerName
	// Zones is how many zones the nodes are spread over.
	Zones = 3
	// WorkloadLabel marks the benchmark's pods.
	WorkloadLabel = "berth.io/bench"
)

// Workload is a batch of pending pods to place on a set of nodes.
type Workload struct {
	// Name names the workload in reports (upstream scheduler_perf's test case).
	Name string
	// Nodes is how many nodes the cluster has.
	Nodes int
	// Pods is how many pods are created: all before the scheduler starts,
	// or, with ArrivalRate, at that rate once the scheduler has bound a first pod.
	Pods int
	// ArrivalRate, when positive, is how many pods per second are created
	// while the scheduler runs (steady arrival); Run then measures latency.
	ArrivalRate int `json:"arrivalRate,omitempty"`
	// DevicesPerNode, when positive, is how many devices each node offers
	// in a ResourceSlice; each pod then claims one (DynamicResources).
	DevicesPerNode int `json:"devicesPerNode,omitempty"`
	// GangSize, when positive, puts the pods in gangs of that many (Gangs).
	GangSize int `json:"gangSize,omitempty"`
	// BigGang, when positive, is the size of one more gang the first pods form.
	BigGang int `json:"bigGang,omitempty"`
}

// SchedulingBasic returns upstream scheduler_perf's SchedulingBasic shape:
// plain pods (100m CPU, 500Mi) on identical nodes, without any init pods.
func SchedulingBasic(nodes, pods int) Workload {
	return Workload{Name: "SchedulingBasic", Nodes: nodes, Pods: pods}
}

// TopologySpreading returns upstream scheduler_perf's TopologySpreading
// measured pods: the default pod with a hard zone spread (maxSkew 5,
// DoNotSchedule) over the pods of its own label, without any init pods.
func TopologySpreading(nodes, pods int) Workload {
	return Workload{Name: "TopologySpreading", Nodes: nodes, Pods: pods}
}

// PodAntiAffinity returns upstream scheduler_perf's SchedulingPodAntiAffinity
// measured pods: the default pod with required hostname anti-affinity to the
// pods of its own label, so at most one lands on a node; without init pods.
func PodAntiAffinity(nodes, pods int) Workload {
	return Workload{Name: "PodAntiAffinity", Nodes: nodes, Pods: pods}
}

// SteadyArrival returns a steady-arrival workload: SchedulingBasic's pods
// created at rate per second for d once the scheduler is up, measured for
// creation-to-bind latency.
func SteadyArrival(nodes, rate int, d time.Duration) Workload {
	return Workload{Name: "SteadyArrival", Nodes: nodes, Pods: int(int64(rate) * int64(d) / int64(time.Second)), ArrivalRate: rate}
}

// DefaultDevicesPerNode is how many devices a node offers in the
// DynamicResources workload unless told otherwise.
const DefaultDevicesPerNode = 8

// DynamicResources returns a workload of dynamic resource allocation: every
// node publishes devicesPerNode devices of one driver in its ResourceSlice, a
// DeviceClass selects them, and each pod (SchedulingBasic's, otherwise)
// names its own ResourceClaim for one device of the class. The claims are
// created with the nodes, so no resourceclaim controller is needed; the
// scheduler allocates each and writes its status.
func DynamicResources(nodes, pods, devicesPerNode int) Workload {
	return Workload{Name: "DynamicResources", Nodes: nodes, Pods: pods, DevicesPerNode: devicesPerNode}
}

// WorkloadNamed returns the workload called name with the given size.
func WorkloadNamed(name string, nodes, pods int) (Workload, error) {
	dra := func(nodes, pods int) Workload { return DynamicResources(nodes, pods, DefaultDevicesPerNode) }
	gangs := func(nodes, pods int) Workload { return Gangs(nodes, pods, DefaultGangSize, 0) }
	for _, newWorkload := range []func(int, int) Workload{SchedulingBasic, TopologySpreading, PodAntiAffinity, dra, gangs} {
		if w := newWorkload(nodes, pods); w.Name == name {
			return w, nil
		}
	}
	return Workload{}, fmt.Errorf("unknown workload %q (want SchedulingBasic, TopologySpreading, PodAntiAffinity, DynamicResources or Gangs)", name)
}

// check reports a workload whose pods cannot all be bound.
func (w Workload) check() error {
	if w.DevicesPerNode > 0 && w.Pods > w.Nodes*w.DevicesPerNode {
		return fmt.Errorf("workload %s: %d pods claim a device each but %d nodes offer only %d devices", w.Name, w.Pods, w.Nodes, w.Nodes*w.DevicesPerNode)
	}
	if w.gangs() {
		if w.ArrivalRate > 0 || w.DevicesPerNode > 0 {
			return fmt.Errorf("workload %s: gangs take neither steady arrival nor devices", w.Name)
		}
		// A rack holds RackSize nodes of 40 default pods each (4 CPUs, 100m a pod).
		if perRack := min(RackSize, w.Nodes) * 40; max(w.GangSize, w.BigGang) > perRack {
			return fmt.Errorf("workload %s: a gang of %d pods does not fit in a rack of %d nodes (%d pods)", w.Name, max(w.GangSize, w.BigGang), min(RackSize, w.Nodes), perRack)
		}
	}
	return nil
}

// pod returns the workload's i-th pending pod.
func (w Workload) pod(i int) *corev1.Pod {
	p := makePod(i)
	switch w.Name {
	case "TopologySpreading":
		p.Labels["color"] = "blue"
		p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
			MaxSkew:           5,
			TopologyKey:       corev1.LabelTopologyZone,
			WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector:     &metav1.LabelSelector{MatchLabels: map[string]string{"color": "blue"}},
		}}
	case "PodAntiAffinity":
		p.Labels["color"] = "green"
		p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"color": "green"}},
				TopologyKey:   corev1.LabelHostname,
			}},
		}}
	}
	if w.gangs() {
		w.joinGang(p, i)
	}
	if w.DevicesPerNode > 0 {
		p.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimName: ptr.To(claimName(i))}}
		p.Spec.Containers[0].Resources.Claims = []corev1.ResourceClaim{{Name: "gpu"}}
	}
	return p
}

// nodeName returns the name of the i-th node.
func nodeName(i int) string { return fmt.Sprintf("bench-node-%d", i) }

// podName returns the name of the i-th pod.
func podName(i int) string { return fmt.Sprintf("bench-pod-%d", i) }

// node returns the workload's i-th node: makeNode's, in a rack for gangs.
func (w Workload) node(i int) *corev1.Node {
	n := makeNode(i)
	if w.gangs() {
		n.Labels[RackKey] = rackOf(i)
	}
	return n
}

// makeNode returns the i-th node: upstream scheduler_perf's default node
// (4 CPU, 32Gi, 110 pods) with hostname and zone labels and a Ready status,
// which the apiserver keeps on create.
func makeNode(i int) *corev1.Node {
	name := nodeName(i)
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("4"),
		corev1.ResourceMemory: resource.MustParse("32Gi"),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			corev1.LabelHostname:       name,
			corev1.LabelTopologyZone:   fmt.Sprintf("zone-%d", i%Zones),
			corev1.LabelTopologyRegion: "region-0",
		}},
		Status: corev1.NodeStatus{
			Capacity:    capacity,
			Allocatable: capacity,
			Phase:       corev1.NodeRunning,
			Conditions: []corev1.NodeCondition{{
				Type: corev1.NodeReady, Status: corev1.ConditionTrue,
				LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now(),
			}},
		},
	}
}

// makePod returns the i-th pending pod: upstream scheduler_perf's default
// pod, one pause container requesting and limited to 100m CPU and 500Mi.
func makePod(i int) *corev1.Pod {
	res := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("100m"),
		corev1.ResourceMemory: resource.MustParse("500Mi"),
	}
	automount := false
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: podName(i), Namespace: Namespace, Labels: map[string]string{WorkloadLabel: "true"}},
		Spec: corev1.PodSpec{
			SchedulerName:                SchedulerName,
			AutomountServiceAccountToken: &automount,
			Containers: []corev1.Container{{
				Name:      "pause",
				Image:     "registry.k8s.io/pause:3.10.2",
				Ports:     []corev1.ContainerPort{{ContainerPort: 80}},
				Resources: corev1.ResourceRequirements{Requests: res, Limits: res},
			}},
		},
	}
}
