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

package scheduler_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// resources turns name/quantity pairs ("cpu", "1", "memory", "1Gi") into a ResourceList.
func resources(pairs ...string) corev1.ResourceList {
	rl := corev1.ResourceList{}
	for i := 0; i+1 < len(pairs); i += 2 {
		rl[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return rl
}

// nodeBuilder builds a Ready node the apiserver accepts.
type nodeBuilder struct{ node *corev1.Node }

// newNode is a Ready node with 4 CPUs, 16Gi of memory and room for 110 pods.
func newNode(name string) *nodeBuilder {
	alloc := resources("cpu", "4", "memory", "16Gi", "pods", "110")
	return &nodeBuilder{node: &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}},
		Status: corev1.NodeStatus{
			Capacity: alloc, Allocatable: alloc,
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
		},
	}}
}

// alloc sets capacity and allocatable.
func (b *nodeBuilder) alloc(pairs ...string) *nodeBuilder {
	b.node.Status.Capacity = resources(pairs...)
	b.node.Status.Allocatable = resources(pairs...)
	return b
}

// label adds a label.
func (b *nodeBuilder) label(k, v string) *nodeBuilder {
	b.node.Labels[k] = v
	return b
}

// create creates the node (status included) and deletes it when the spec ends.
func (b *nodeBuilder) create(ctx context.Context) *corev1.Node {
	GinkgoHelper()
	nodes := clientset.CoreV1().Nodes()
	created, err := nodes.Create(ctx, b.node, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred(), "creating node %s", b.node.Name)
	// The apiserver's TaintNodesByCondition admission taints a new node
	// not-ready; with no node lifecycle controller here, the test lifts it as
	// that controller would for a Ready node.
	if len(created.Spec.Taints) > 0 {
		created.Spec.Taints = b.node.Spec.Taints
		created, err = nodes.Update(ctx, created, metav1.UpdateOptions{})
		Expect(err).NotTo(HaveOccurred(), "lifting the not-ready taint of node %s", b.node.Name)
	}
	created.Status = b.node.Status
	created, err = nodes.UpdateStatus(ctx, created, metav1.UpdateOptions{})
	Expect(err).NotTo(HaveOccurred(), "setting the status of node %s", b.node.Name)
	DeferCleanup(func(ctx SpecContext) {
		Expect(client.IgnoreNotFound(nodes.Delete(ctx, created.Name, metav1.DeleteOptions{}))).To(Succeed())
	})
	return created
}

// podBuilder builds a pending pod the apiserver accepts.
type podBuilder struct{ pod *corev1.Pod }

// newPod is a pod with one container requesting 100m CPU and 128Mi, for the default scheduler.
func newPod(namespace, name string) *podBuilder {
	return &podBuilder{pod: &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: map[string]string{}},
		Spec: corev1.PodSpec{
			SchedulerName: corev1.DefaultSchedulerName,
			Containers: []corev1.Container{{
				Name: "app", Image: "registry.k8s.io/pause:3.10",
				Resources: corev1.ResourceRequirements{Requests: resources("cpu", "100m", "memory", "128Mi")},
			}},
		},
	}}
}

// requests sets the container's requests.
func (b *podBuilder) requests(pairs ...string) *podBuilder {
	b.pod.Spec.Containers[0].Resources.Requests = resources(pairs...)
	return b
}

// scheduler sets spec.schedulerName.
func (b *podBuilder) scheduler(name string) *podBuilder {
	b.pod.Spec.SchedulerName = name
	return b
}

// label adds a label.
func (b *podBuilder) label(k, v string) *podBuilder {
	b.pod.Labels[k] = v
	return b
}

// create creates the pod.
func (b *podBuilder) create(ctx context.Context) *corev1.Pod {
	GinkgoHelper()
	created, err := clientset.CoreV1().Pods(b.pod.Namespace).Create(ctx, b.pod, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred(), "creating pod %s/%s", b.pod.Namespace, b.pod.Name)
	return created
}

// taint adds a NoSchedule taint.
func (b *nodeBuilder) taint(key, value string) *nodeBuilder {
	b.node.Spec.Taints = append(b.node.Spec.Taints, corev1.Taint{Key: key, Value: value, Effect: corev1.TaintEffectNoSchedule})
	return b
}

// unschedulable cordons the node.
func (b *nodeBuilder) unschedulable() *nodeBuilder {
	b.node.Spec.Unschedulable = true
	return b
}

// image reports an image of the given size as present on the node.
func (b *nodeBuilder) image(name string, sizeBytes int64) *nodeBuilder {
	b.node.Status.Images = append(b.node.Status.Images, corev1.ContainerImage{Names: []string{name}, SizeBytes: sizeBytes})
	return b
}

// zone sets the node's topology.kubernetes.io/zone label.
func (b *nodeBuilder) zone(z string) *nodeBuilder { return b.label(corev1.LabelTopologyZone, z) }

// tolerate adds a toleration of key=value for NoSchedule.
func (b *podBuilder) tolerate(key, value string) *podBuilder {
	b.pod.Spec.Tolerations = append(b.pod.Spec.Tolerations, corev1.Toleration{Key: key, Operator: corev1.TolerationOpEqual, Value: value, Effect: corev1.TaintEffectNoSchedule})
	return b
}

// nodeSelector requires a node label.
func (b *podBuilder) nodeSelector(k, v string) *podBuilder {
	if b.pod.Spec.NodeSelector == nil {
		b.pod.Spec.NodeSelector = map[string]string{}
	}
	b.pod.Spec.NodeSelector[k] = v
	return b
}

// hostPort exposes a TCP host port.
func (b *podBuilder) hostPort(port int32) *podBuilder {
	b.pod.Spec.Containers[0].Ports = append(b.pod.Spec.Containers[0].Ports, corev1.ContainerPort{ContainerPort: port, HostPort: port, Protocol: corev1.ProtocolTCP})
	return b
}

// image sets the container image.
func (b *podBuilder) image(name string) *podBuilder {
	b.pod.Spec.Containers[0].Image = name
	return b
}

// gate adds a scheduling gate.
func (b *podBuilder) gate(name string) *podBuilder {
	b.pod.Spec.SchedulingGates = append(b.pod.Spec.SchedulingGates, corev1.PodSchedulingGate{Name: name})
	return b
}

// priorityClass sets spec.priorityClassName; admission fills in the priority.
func (b *podBuilder) priorityClass(name string) *podBuilder {
	b.pod.Spec.PriorityClassName = name
	return b
}

// resourceClaim makes the pod use a DRA resource claim.
func (b *podBuilder) resourceClaim(claim string) *podBuilder {
	b.pod.Spec.ResourceClaims = append(b.pod.Spec.ResourceClaims, corev1.PodResourceClaim{Name: claim, ResourceClaimName: &claim})
	return b
}

// resourceClaimTemplate makes the pod use a claim, named podClaim in the
// pod, that the resourceclaim controller creates from a ResourceClaimTemplate.
func (b *podBuilder) resourceClaimTemplate(podClaim, template string) *podBuilder {
	b.pod.Spec.ResourceClaims = append(b.pod.Spec.ResourceClaims, corev1.PodResourceClaim{Name: podClaim, ResourceClaimTemplateName: &template})
	return b
}

// onNode creates the pod already bound to a node, as a running workload.
func (b *podBuilder) onNode(node string) *podBuilder {
	b.pod.Spec.NodeName = node
	return b
}

// podAffinity adds a required pod-affinity term; anti selects anti-affinity.
func (b *podBuilder) podAffinity(anti bool, topologyKey, k, v string) *podBuilder {
	if b.pod.Spec.Affinity == nil {
		b.pod.Spec.Affinity = &corev1.Affinity{}
	}
	term := corev1.PodAffinityTerm{
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{k: v}},
		TopologyKey:   topologyKey,
	}
	if anti {
		if b.pod.Spec.Affinity.PodAntiAffinity == nil {
			b.pod.Spec.Affinity.PodAntiAffinity = &corev1.PodAntiAffinity{}
		}
		aa := b.pod.Spec.Affinity.PodAntiAffinity
		aa.RequiredDuringSchedulingIgnoredDuringExecution = append(aa.RequiredDuringSchedulingIgnoredDuringExecution, term)
		return b
	}
	if b.pod.Spec.Affinity.PodAffinity == nil {
		b.pod.Spec.Affinity.PodAffinity = &corev1.PodAffinity{}
	}
	a := b.pod.Spec.Affinity.PodAffinity
	a.RequiredDuringSchedulingIgnoredDuringExecution = append(a.RequiredDuringSchedulingIgnoredDuringExecution, term)
	return b
}

// spread adds a DoNotSchedule topology spread constraint over pods with label k=v.
func (b *podBuilder) spread(maxSkew int32, topologyKey, k, v string) *podBuilder {
	b.pod.Spec.TopologySpreadConstraints = append(b.pod.Spec.TopologySpreadConstraints, corev1.TopologySpreadConstraint{
		MaxSkew: maxSkew, TopologyKey: topologyKey, WhenUnsatisfiable: corev1.DoNotSchedule,
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{k: v}},
	})
	return b
}

// claim mounts a PersistentVolumeClaim.
func (b *podBuilder) claim(name string) *podBuilder {
	b.pod.Spec.Volumes = append(b.pod.Spec.Volumes, corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name},
	}})
	return b
}

// gcePD mounts an in-tree GCE persistent disk, read-write.
func (b *podBuilder) gcePD(disk string) *podBuilder {
	b.pod.Spec.Volumes = append(b.pod.Spec.Volumes, corev1.Volume{Name: disk, VolumeSource: corev1.VolumeSource{
		GCEPersistentDisk: &corev1.GCEPersistentDiskVolumeSource{PDName: disk},
	}})
	return b
}

// declare sets the node's status.declaredFeatures.
func (b *nodeBuilder) declare(features ...string) *nodeBuilder {
	b.node.Status.DeclaredFeatures = features
	return b
}

// restartAllOnExit asks for all containers to restart when the container
// exits with 42, which needs nodes declaring RestartAllContainersOnContainerExits.
func (b *podBuilder) restartAllOnExit() *podBuilder {
	c := &b.pod.Spec.Containers[0]
	c.RestartPolicy = ptr.To(corev1.ContainerRestartPolicyNever)
	c.RestartPolicyRules = []corev1.ContainerRestartRule{{
		Action:    corev1.ContainerRestartRuleActionRestartAllContainers,
		ExitCodes: &corev1.ContainerRestartRuleOnExitCodes{Operator: corev1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{42}},
	}}
	return b
}

// inNamespacesLabelled makes the pod's pod-affinity terms select pods in the
// namespaces with label k=v instead of its own namespace.
func (b *podBuilder) inNamespacesLabelled(k, v string) *podBuilder {
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{k: v}}
	if a := b.pod.Spec.Affinity; a != nil && a.PodAffinity != nil {
		for i := range a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
			a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution[i].NamespaceSelector = sel
		}
	}
	return b
}
