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

package rebalance_test

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/berth-io/berth/api/v1alpha1"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// rebalanceDRADriver is the driver of the spec's devices.
const rebalanceDRADriver = "gpu.rebalance.berth.io"

// createGPUClass creates a DeviceClass selecting the driver's devices.
func createGPUClass(ctx context.Context, name string) {
	GinkgoHelper()
	classes := clientset.ResourceV1().DeviceClasses()
	_, err := classes.Create(ctx, &resourcev1.DeviceClass{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: resourcev1.DeviceClassSpec{Selectors: []resourcev1.DeviceSelector{{
			CEL: &resourcev1.CELDeviceSelector{Expression: `device.driver == "` + rebalanceDRADriver + `"`},
		}}},
	}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func(ctx SpecContext) {
		Expect(client.IgnoreNotFound(classes.Delete(ctx, name, metav1.DeleteOptions{}))).To(Succeed())
	})
}

// createGPUSlice publishes devices gpu-0 .. gpu-<n-1> of the driver on a node.
func createGPUSlice(ctx context.Context, node string, n int) {
	GinkgoHelper()
	s := &resourcev1.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: node + "-gpus"},
		Spec: resourcev1.ResourceSliceSpec{
			Driver: rebalanceDRADriver, NodeName: ptr.To(node),
			Pool: resourcev1.ResourcePool{Name: node, Generation: 1, ResourceSliceCount: 1},
		},
	}
	for i := range n {
		s.Spec.Devices = append(s.Spec.Devices, resourcev1.Device{Name: fmt.Sprintf("gpu-%d", i)})
	}
	slices := clientset.ResourceV1().ResourceSlices()
	_, err := slices.Create(ctx, s, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func(ctx SpecContext) {
		Expect(client.IgnoreNotFound(slices.Delete(ctx, s.Name, metav1.DeleteOptions{}))).To(Succeed())
	})
}

// createAllocatedClaim creates a claim for len(devices) devices of the
// class, allocated those devices of the node and reserved for the running
// pod, as the scheduler would have left it.
func createAllocatedClaim(ctx context.Context, ns, name, class, node, pod string, devices ...string) {
	GinkgoHelper()
	claims := clientset.ResourceV1().ResourceClaims(ns)
	claim, err := claims.Create(ctx, &resourcev1.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{
			Name: "gpu",
			Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: class,
				AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: int64(len(devices))},
		}}}},
	}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	owner, err := clientset.CoreV1().Pods(ns).Get(ctx, pod, metav1.GetOptions{})
	Expect(err).NotTo(HaveOccurred())
	allocation := &resourcev1.AllocationResult{NodeSelector: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
		MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{node}}},
	}}}}
	for _, d := range devices {
		allocation.Devices.Results = append(allocation.Devices.Results, resourcev1.DeviceRequestAllocationResult{
			Request: "gpu", Driver: rebalanceDRADriver, Pool: node, Device: d,
		})
	}
	claim.Status.Allocation = allocation
	claim.Status.ReservedFor = []resourcev1.ResourceClaimConsumerReference{{Resource: "pods", Name: owner.Name, UID: owner.UID}}
	_, err = claims.UpdateStatus(ctx, claim, metav1.UpdateOptions{})
	Expect(err).NotTo(HaveOccurred())
	// nodeFit reads the scheduler's claim informer.
	Eventually(func(g Gomega) {
		seen, err := claimLister.ResourceClaims(ns).Get(name)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(seen.Status.Allocation).NotTo(BeNil())
	}).WithTimeout(10 * time.Second).Should(Succeed())
}

var _ = Describe("RebalancePolicy with DynamicResources", func() {
	It("keeps a pod whose claim no other node can allocate, with nodeFit on, and plans one whose claim another node can", func(ctx SpecContext) {
		ns := createNamespace(ctx, "drafit")
		createNode(ctx, st.Node("drafit-tainted").Hostname().Label("rebalance.test/pool", "drafit").Taint("rebalance.test/drafit", "", corev1.TaintEffectNoSchedule).Obj())
		createNode(ctx, st.Node("drafit-other").Hostname().Label("rebalance.test/pool", "drafit").Obj())
		createGPUClass(ctx, "drafit-gpu")
		// Three devices where both pods run; one on the only other node.
		createGPUSlice(ctx, "drafit-tainted", 3)
		createGPUSlice(ctx, "drafit-other", 1)
		profile := &v1alpha1.SchedulingProfile{ObjectMeta: metav1.ObjectMeta{Name: "drafit-profile"}}
		Expect(k8sClient.Create(ctx, profile)).To(Succeed())
		DeferCleanup(func(ctx SpecContext) { Expect(k8sClient.Delete(ctx, profile)).To(Succeed()) })
		createPod(ctx, replicaPod(ns, "stays", "drafit-tainted").NodeSelector("rebalance.test/pool", "drafit").ResourceClaims("two-gpus").Obj())
		createPod(ctx, replicaPod(ns, "moves", "drafit-tainted").NodeSelector("rebalance.test/pool", "drafit").ResourceClaims("one-gpu").Obj())
		waitForPods(ns, 2)
		// "stays" holds two devices and the other node has one: its claim,
		// allocated afresh, fits nowhere else. "moves" holds one.
		createAllocatedClaim(ctx, ns, "two-gpus", "drafit-gpu", "drafit-tainted", "stays", "gpu-0", "gpu-1")
		createAllocatedClaim(ctx, ns, "one-gpu", "drafit-gpu", "drafit-tainted", "moves", "gpu-2")

		p := taintPolicy("drafit", ns, "rebalance.test/drafit", true)
		p.Spec.ProfileRef = &v1alpha1.ProfileReference{Name: "drafit-profile"}
		p.Spec.Evictor = &v1alpha1.EvictorOptions{NodeFit: true}
		createPolicy(ctx, p)
		status := lastRun(ctx, "drafit")
		Expect(status.LastRun.Planned).To(BeEquivalentTo(1))
		Expect(plan(status)).To(Equal(map[string]v1alpha1.EvictionResult{"moves": v1alpha1.EvictionPlanned}))
	})
})
