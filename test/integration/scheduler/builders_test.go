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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	st "github.com/berth-io/berth/scheduler/schedtest"
)

// newNode is a Ready node with 4 CPUs, 16Gi of memory and room for 110
// pods; the apiserver assigns its UID.
func newNode(name string) *st.NodeBuilder {
	return st.Node(name).UID("").Hostname().Alloc("cpu", "4", "memory", "16Gi", "pods", "110").Ready()
}

// createNode creates the node (status included) and deletes it when the spec ends.
func createNode(ctx context.Context, node *corev1.Node) {
	GinkgoHelper()
	nodes := clientset.CoreV1().Nodes()
	created, err := nodes.Create(ctx, node, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred(), "creating node %s", node.Name)
	// The apiserver's TaintNodesByCondition admission taints a new node
	// not-ready; with no node lifecycle controller here, the test lifts it as
	// that controller would for a Ready node.
	if len(created.Spec.Taints) > 0 {
		created.Spec.Taints = node.Spec.Taints
		created, err = nodes.Update(ctx, created, metav1.UpdateOptions{})
		Expect(err).NotTo(HaveOccurred(), "lifting the not-ready taint of node %s", node.Name)
	}
	created.Status = node.Status
	created, err = nodes.UpdateStatus(ctx, created, metav1.UpdateOptions{})
	Expect(err).NotTo(HaveOccurred(), "setting the status of node %s", node.Name)
	DeferCleanup(func(ctx SpecContext) {
		Expect(client.IgnoreNotFound(nodes.Delete(ctx, created.Name, metav1.DeleteOptions{}))).To(Succeed())
	})
}

// newPod is a pending pod for the default scheduler with one pause
// container, "app", requesting 100m CPU and 128Mi; the apiserver assigns
// its UID.
func newPod(namespace, name string) *st.PodBuilder {
	return st.Pod(name).UID("").Namespace(namespace).SchedulerName(corev1.DefaultSchedulerName).
		ContainerName("app").Image("registry.k8s.io/pause:3.10").Req("cpu", "100m", "memory", "128Mi")
}

// createPod creates the pod.
func createPod(ctx context.Context, pod *corev1.Pod) *corev1.Pod {
	GinkgoHelper()
	created, err := clientset.CoreV1().Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred(), "creating pod %s/%s", pod.Namespace, pod.Name)
	return created
}

// gcePD is an in-tree GCE persistent disk, read-write.
func gcePD(disk string) corev1.VolumeSource {
	return corev1.VolumeSource{GCEPersistentDisk: &corev1.GCEPersistentDiskVolumeSource{PDName: disk}}
}

// restartAllOn42 restarts all containers when the container exits with 42,
// which needs nodes declaring RestartAllContainersOnContainerExits.
var restartAllOn42 = corev1.ContainerRestartRule{
	Action:    corev1.ContainerRestartRuleActionRestartAllContainers,
	ExitCodes: &corev1.ContainerRestartRuleOnExitCodes{Operator: corev1.ContainerRestartRuleOnExitCodesOpIn, Values: []int32{42}},
}
