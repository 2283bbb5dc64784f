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

package e2e_test

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/internal/localcluster"
)

const (
	// draDriver is the DRA driver whose devices the spec publishes.
	draDriver = "gpu.example.com"
	// draDevicesPerNode is how many devices each node with a ResourceSlice offers.
	draDevicesPerNode = 8
)

// publishDevices publishes draDevicesPerNode devices of draDriver on the
// node in a ResourceSlice, as the driver's kubelet plugin would, and deletes
// the slice when the spec ends.
func publishDevices(ctx context.Context, node string) {
	GinkgoHelper()
	s := &resourcev1.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: node + "-" + draDriver},
		Spec: resourcev1.ResourceSliceSpec{
			Driver:   draDriver,
			NodeName: ptr.To(node),
			Pool:     resourcev1.ResourcePool{Name: node, Generation: 1, ResourceSliceCount: 1},
		},
	}
	for i := range draDevicesPerNode {
		s.Spec.Devices = append(s.Spec.Devices, resourcev1.Device{Name: fmt.Sprintf("gpu-%d", i)})
	}
	slices := cluster.Clientset.ResourceV1().ResourceSlices()
	_, err := slices.Create(ctx, s, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred(), "publishing the devices of %s", node)
	DeferCleanup(func() { _ = slices.Delete(background(), s.Name, metav1.DeleteOptions{}) })
}

// createGPUClass creates a DeviceClass selecting draDriver's devices and
// deletes it when the spec ends.
func createGPUClass(ctx context.Context, name string) {
	GinkgoHelper()
	classes := cluster.Clientset.ResourceV1().DeviceClasses()
	_, err := classes.Create(ctx, &resourcev1.DeviceClass{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: resourcev1.DeviceClassSpec{Selectors: []resourcev1.DeviceSelector{{
			CEL: &resourcev1.CELDeviceSelector{Expression: `device.driver == "` + draDriver + `"`},
		}}},
	}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred(), "creating DeviceClass %s", name)
	DeferCleanup(func() { _ = classes.Delete(background(), name, metav1.DeleteOptions{}) })
}

// gpuPod is a pause pod for scheduler whose claim "gpu" the resourceclaim
// controller creates from the template.
func gpuPod(ns, name, scheduler, template string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.PodSpec{
			SchedulerName:                scheduler,
			AutomountServiceAccountToken: ptr.To(false),
			Containers: []corev1.Container{{
				Name: "app", Image: "registry.k8s.io/pause:3.10",
				Resources: corev1.ResourceRequirements{Claims: []corev1.ResourceClaim{{Name: "gpu"}}},
			}},
			ResourceClaims: []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: ptr.To(template)}},
		},
	}
}

// expectOwnDevice checks that the claim is reserved for the pod and
// allocated one device of draDriver on the pod's node that no pod in
// devices (node/device → pod) has, and records it there.
func expectOwnDevice(devices map[string]string, p *corev1.Pod, claim *resourcev1.ResourceClaim) {
	GinkgoHelper()
	Expect(claim.Status.ReservedFor).To(ConsistOf(HaveField("UID", p.UID)), "claim %s", claim.Name)
	Expect(claim.Status.Allocation).NotTo(BeNil(), "claim %s of pod %s", claim.Name, p.Name)
	Expect(claim.Status.Allocation.Devices.Results).To(HaveLen(1))
	r := claim.Status.Allocation.Devices.Results[0]
	Expect(r.Driver).To(Equal(draDriver))
	Expect(r.Pool).To(Equal(p.Spec.NodeName), "pod %s got a device of another node", p.Name)
	key := r.Pool + "/" + r.Device
	Expect(devices).NotTo(HaveKey(key), "pods %s and %s share %s", devices[key], p.Name, key)
	devices[key] = p.Name
}

// deletePodsAndWaitForClaims deletes the namespace's pods and waits until
// kube-controller-manager has released and deleted their claims.
func deletePodsAndWaitForClaims(ctx context.Context, ns string) {
	GinkgoHelper()
	Expect(cluster.Clientset.CoreV1().Pods(ns).DeleteCollection(ctx, *metav1.NewDeleteOptions(0), metav1.ListOptions{})).To(Succeed())
	Eventually(ctx, func() (int, error) {
		claims, err := cluster.Clientset.ResourceV1().ResourceClaims(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return -1, err
		}
		return len(claims.Items), nil
	}).WithTimeout(30 * time.Second).Should(BeZero())
}

var _ = Describe("DRA", func() {
	It("binds pods whose claims come from a ResourceClaimTemplate to nodes offering devices, each with its own device", func(ctx SpecContext) {
		const gpuNodes, pods = 3, 20
		m := startManager("berth-manager-dra")
		ns := newNamespace(ctx)
		class := "e2e-gpu-" + ns
		createGPUClass(ctx, class)
		offering := map[string]bool{}
		for i := range gpuNodes {
			publishDevices(ctx, localcluster.NodeName(i))
			offering[localcluster.NodeName(i)] = true
		}
		_, err := cluster.Clientset.ResourceV1().ResourceClaimTemplates(ns).Create(ctx, &resourcev1.ResourceClaimTemplate{
			ObjectMeta: metav1.ObjectMeta{Name: "one-gpu"},
			Spec: resourcev1.ResourceClaimTemplateSpec{Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{
				Requests: []resourcev1.DeviceRequest{{Name: "gpu", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: class}}},
			}}},
		}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		m.waitReady(ctx)

		start := time.Now()
		for i := range pods {
			_, err := cluster.Clientset.CoreV1().Pods(ns).Create(ctx, gpuPod(ns, fmt.Sprintf("gpu-%d", i), sampleScheduler, "one-gpu"), metav1.CreateOptions{})
			Expect(err).NotTo(HaveOccurred())
		}
		// kube-controller-manager's resourceclaim controller creates each
		// pod's claim and names it in the pod's status; Berth then allocates it.
		var counts podCounts
		Eventually(ctx, func() int {
			counts, _ = countPods(ctx, ns)
			return counts.bound
		}).WithTimeout(45*time.Second).WithPolling(250*time.Millisecond).Should(Equal(pods), func() string {
			return "pods: " + spew(counts)
		})
		GinkgoWriter.Printf("%d pods with a template claim bound %v after their creation\n", pods, time.Since(start).Round(time.Millisecond))

		_, list := countPods(ctx, ns)
		devices := map[string]string{} // node/device → pod
		for _, p := range list {
			Expect(offering).To(HaveKey(p.Spec.NodeName), "pod %s is on %s, which offers no device", p.Name, p.Spec.NodeName)
			Expect(p.Status.ResourceClaimStatuses).To(HaveLen(1), "pod %s", p.Name)
			claimName := p.Status.ResourceClaimStatuses[0].ResourceClaimName
			Expect(claimName).NotTo(BeNil(), "pod %s has no claim", p.Name)
			claim, err := cluster.Clientset.ResourceV1().ResourceClaims(ns).Get(ctx, *claimName, metav1.GetOptions{})
			Expect(err).NotTo(HaveOccurred())
			expectOwnDevice(devices, &p, claim)
		}
		expectEachPodBoundOnce(ctx, ns, list)

		// Pods deleted, the controller deletes their claims: nothing of the
		// spec is left for the next one.
		deletePodsAndWaitForClaims(ctx, ns)
	}, SpecTimeout(2*time.Minute))

	It("binds pods asking for an extended resource a DeviceClass serves, each with a claim Berth creates, which the controller deletes with the pod", func(ctx SpecContext) {
		const gpuNodes, pods = 2, 12
		m := startManager("berth-manager-dra-extended")
		ns := newNamespace(ctx)
		class := "e2e-ext-gpu-" + ns
		resourceName := corev1.ResourceName("example.com/" + class)
		createGPUClass(ctx, class)
		classes := cluster.Clientset.ResourceV1().DeviceClasses()
		c, err := classes.Get(ctx, class, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		c.Spec.ExtendedResourceName = ptr.To(string(resourceName))
		_, err = classes.Update(ctx, c, metav1.UpdateOptions{})
		Expect(err).NotTo(HaveOccurred())
		offering := map[string]bool{}
		for i := range gpuNodes {
			publishDevices(ctx, localcluster.NodeName(i))
			offering[localcluster.NodeName(i)] = true
		}
		m.waitReady(ctx)

		one := corev1.ResourceList{resourceName: resource.MustParse("1")}
		for i := range pods {
			p := gpuPod(ns, fmt.Sprintf("ext-%d", i), sampleScheduler, "")
			p.Spec.ResourceClaims = nil
			p.Spec.Containers[0].Resources = corev1.ResourceRequirements{Requests: one, Limits: one}
			_, err := cluster.Clientset.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
			Expect(err).NotTo(HaveOccurred())
		}
		var counts podCounts
		Eventually(ctx, func() int {
			counts, _ = countPods(ctx, ns)
			return counts.bound
		}).WithTimeout(45*time.Second).WithPolling(250*time.Millisecond).Should(Equal(pods), func() string {
			return "pods: " + spew(counts)
		})

		_, list := countPods(ctx, ns)
		devices := map[string]string{} // node/device → pod
		for _, p := range list {
			Expect(offering).To(HaveKey(p.Spec.NodeName), "pod %s is on %s, which offers no device", p.Name, p.Spec.NodeName)
			st := p.Status.ExtendedResourceClaimStatus
			Expect(st).NotTo(BeNil(), "pod %s has no extendedResourceClaimStatus", p.Name)
			Expect(st.RequestMappings).To(ConsistOf(HaveField("ResourceName", string(resourceName))), "pod %s", p.Name)
			claim, err := cluster.Clientset.ResourceV1().ResourceClaims(ns).Get(ctx, st.ResourceClaimName, metav1.GetOptions{})
			Expect(err).NotTo(HaveOccurred())
			Expect(claim.Annotations).To(HaveKeyWithValue(resourcev1.ExtendedResourceClaimAnnotation, "true"))
			expectOwnDevice(devices, &p, claim)
		}
		expectEachPodBoundOnce(ctx, ns, list)

		// Pods deleted, kube-controller-manager's resourceclaim controller
		// releases their claims and the garbage collector deletes them.
		deletePodsAndWaitForClaims(ctx, ns)
	}, SpecTimeout(2*time.Minute))
})
