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
	"fmt"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler"
)

const testDRADriver = "gpu.test.berth.io"

// createDeviceClass creates a DeviceClass selecting the test driver's devices.
func createDeviceClass(ctx context.Context, name string) {
	GinkgoHelper()
	classes := clientset.ResourceV1().DeviceClasses()
	_, err := classes.Create(ctx, &resourcev1.DeviceClass{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: resourcev1.DeviceClassSpec{Selectors: []resourcev1.DeviceSelector{{
			CEL: &resourcev1.CELDeviceSelector{Expression: `device.driver == "` + testDRADriver + `"`},
		}}},
	}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred(), "creating DeviceClass %s", name)
	DeferCleanup(func(ctx SpecContext) {
		Expect(client.IgnoreNotFound(classes.Delete(ctx, name, metav1.DeleteOptions{}))).To(Succeed())
	})
}

// createNodeSlice publishes the named devices of the test driver on a node,
// as a DRA driver's kubelet plugin would.
func createNodeSlice(ctx context.Context, node string, devices ...string) {
	GinkgoHelper()
	s := &resourcev1.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: node + "-gpus"},
		Spec: resourcev1.ResourceSliceSpec{
			Driver:   testDRADriver,
			NodeName: ptr.To(node),
			Pool:     resourcev1.ResourcePool{Name: node, Generation: 1, ResourceSliceCount: 1},
		},
	}
	for _, d := range devices {
		s.Spec.Devices = append(s.Spec.Devices, resourcev1.Device{Name: d})
	}
	slices := clientset.ResourceV1().ResourceSlices()
	_, err := slices.Create(ctx, s, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred(), "creating ResourceSlice of %s", node)
	DeferCleanup(func(ctx SpecContext) {
		Expect(client.IgnoreNotFound(slices.Delete(ctx, s.Name, metav1.DeleteOptions{}))).To(Succeed())
	})
}

// claimSpec asks for count devices of the class in one request "gpu".
func claimSpec(class string, count int64) resourcev1.ResourceClaimSpec {
	return resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{
		Name:    "gpu",
		Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: class, AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: count},
	}}}}
}

// createResourceClaim creates a claim for count devices of the class.
func createResourceClaim(ctx context.Context, ns, name, class string, count int64) {
	GinkgoHelper()
	_, err := clientset.ResourceV1().ResourceClaims(ns).Create(ctx, &resourcev1.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       claimSpec(class, count),
	}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred(), "creating ResourceClaim %s", name)
}

// createClaimTemplate creates a ResourceClaimTemplate for one device of the class.
func createClaimTemplate(ctx context.Context, ns, name, class string) *resourcev1.ResourceClaimTemplate {
	GinkgoHelper()
	t, err := clientset.ResourceV1().ResourceClaimTemplates(ns).Create(ctx, &resourcev1.ResourceClaimTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       resourcev1.ResourceClaimTemplateSpec{Spec: claimSpec(class, 1)},
	}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred(), "creating ResourceClaimTemplate %s", name)
	return t
}

// createClaimForPod plays kube-controller-manager's resourceclaim controller,
// which envtest does not run, for one of a pod's template claims: it creates
// the claim from the template, owned by the pod and annotated with the pod's
// claim name as that controller does, then records it in the pod's
// status.resourceClaimStatuses. It returns the claim's generated name.
func createClaimForPod(ctx context.Context, pod *corev1.Pod, podClaimName string, tmpl *resourcev1.ResourceClaimTemplate) string {
	GinkgoHelper()
	claim, err := clientset.ResourceV1().ResourceClaims(pod.Namespace).Create(ctx, &resourcev1.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: pod.Name + "-" + podClaimName + "-",
			Annotations:  map[string]string{"resource.kubernetes.io/pod-claim-name": podClaimName},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID,
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
			}},
		},
		Spec: tmpl.Spec.Spec,
	}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred(), "creating the claim of pod %s from template %s", pod.Name, tmpl.Name)
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		current, err := getPod(ctx, pod.Namespace, pod.Name)
		if err != nil {
			return err
		}
		current.Status.ResourceClaimStatuses = append(current.Status.ResourceClaimStatuses,
			corev1.PodResourceClaimStatus{Name: podClaimName, ResourceClaimName: &claim.Name})
		_, err = clientset.CoreV1().Pods(pod.Namespace).UpdateStatus(ctx, current, metav1.UpdateOptions{})
		return err
	})).To(Succeed(), "naming claim %s in the status of pod %s", claim.Name, pod.Name)
	return claim.Name
}

// releaseClaim plays the resourceclaim controller, which envtest does not
// run, once a pod using the claim is gone: it removes the pod from
// status.reservedFor and, when no consumer is left, deallocates the claim
// (clears status.allocation) and then drops the delete-protection finalizer,
// the two writes that controller makes.
func releaseClaim(ctx context.Context, ns, name string, pod types.UID) {
	GinkgoHelper()
	claims := clientset.ResourceV1().ResourceClaims(ns)
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		claim, err := claims.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		claim.Status.ReservedFor = slices.DeleteFunc(claim.Status.ReservedFor, func(r resourcev1.ResourceClaimConsumerReference) bool {
			return r.UID == pod
		})
		if len(claim.Status.ReservedFor) == 0 {
			claim.Status.Allocation = nil
		}
		claim, err = claims.UpdateStatus(ctx, claim, metav1.UpdateOptions{})
		if err != nil || claim.Status.Allocation != nil {
			return err
		}
		claim.Finalizers = slices.DeleteFunc(claim.Finalizers, func(f string) bool { return f == resourcev1.Finalizer })
		_, err = claims.Update(ctx, claim, metav1.UpdateOptions{})
		return err
	})).To(Succeed(), "releasing ResourceClaim %s/%s", ns, name)
}

// allocatedDevices returns the devices allocated to the named claims, as
// pool/device, failing for a claim without an allocation.
func allocatedDevices(ctx context.Context, ns string, names ...string) []string {
	GinkgoHelper()
	var devices []string
	for _, name := range names {
		claim, err := clientset.ResourceV1().ResourceClaims(ns).Get(ctx, name, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(claim.Status.Allocation).NotTo(BeNil(), "claim %s is not allocated", name)
		for _, r := range claim.Status.Allocation.Devices.Results {
			devices = append(devices, r.Pool+"/"+r.Device)
		}
	}
	return devices
}

// unallocatedClaims returns the names of the namespace's claims that have
// neither an allocation nor a reservation.
func unallocatedClaims(ctx context.Context, ns string) ([]string, error) {
	list, err := clientset.ResourceV1().ResourceClaims(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var names []string
	for _, c := range list.Items {
		if c.Status.Allocation == nil && len(c.Status.ReservedFor) == 0 {
			names = append(names, c.Name)
		}
	}
	return names, nil
}

// draSetup creates a device class named after the case, one device on node
// c only, and a claim "gpu" asking for count devices of the class.
func draSetup(count int64) func(context.Context, string, string) {
	return func(ctx context.Context, ns, prefix string) {
		createDeviceClass(ctx, prefix+"-gpu")
		createNodeSlice(ctx, prefix+"-c", "gpu-0")
		createResourceClaim(ctx, ns, "gpu", prefix+"-gpu", count)
	}
}

var _ = Describe("DynamicResources", func() {
	It("binds a pod with a claim to the node offering the device; a second pod waits for the device and binds once the first is gone and its claim released", func(ctx SpecContext) {
		prefix := "dra-bind"
		ns := createNamespace(ctx, prefix)
		for _, n := range []string{"a", "b", "c"} {
			createNode(ctx, newNode(prefix+"-"+n).Obj())
		}
		draSetup(1)(ctx, ns, prefix)
		createResourceClaim(ctx, ns, "second", prefix+"-gpu", 1)
		startScheduler(ctx, map[string]*v1alpha1.SchedulingProfileSpec{corev1.DefaultSchedulerName: defaultProfile()})

		pod := createPod(ctx, newPod(ns, "p").ResourceClaims("gpu").Obj())
		Expect(boundNode(ctx, ns, pod.Name)).To(Equal(prefix + "-c"))

		claim, err := clientset.ResourceV1().ResourceClaims(ns).Get(ctx, "gpu", metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(claim.Status.Allocation).NotTo(BeNil())
		Expect(claim.Status.Allocation.Devices.Results).To(ConsistOf(And(
			HaveField("Driver", testDRADriver), HaveField("Pool", prefix+"-c"), HaveField("Device", "gpu-0"), HaveField("Request", "gpu"))))
		Expect(claim.Status.ReservedFor).To(ConsistOf(HaveField("UID", pod.UID)))
		Expect(claim.Finalizers).To(ContainElement(resourcev1.Finalizer))

		// The only device is taken: a second pod waits with upstream's reason.
		second := createPod(ctx, newPod(ns, "q").ResourceClaims("second").Obj())
		Eventually(func(g Gomega) {
			got, err := getPod(ctx, ns, second.Name)
			g.Expect(err).NotTo(HaveOccurred())
			cond := podScheduledCondition(got)
			g.Expect(cond).NotTo(BeNil())
			g.Expect(cond.Message).To(HavePrefix("0/3 nodes are available: 3 cannot allocate all claims."))
		}).WithContext(ctx).WithTimeout(20 * time.Second).Should(Succeed())
		expectUnbound(ctx, ns, second.Name)

		// The first pod goes away. Its claim keeps the device until
		// kube-controller-manager's resourceclaim controller, which envtest
		// does not run, removes the pod from reservedFor and, the claim
		// having no consumer left, deallocates it: the test does both, and
		// the claim's status change retries the second pod.
		Expect(clientset.CoreV1().Pods(ns).Delete(ctx, pod.Name, *metav1.NewDeleteOptions(0))).To(Succeed())
		expectUnbound(ctx, ns, second.Name)
		releaseClaim(ctx, ns, "gpu", pod.UID)
		Expect(boundNode(ctx, ns, second.Name)).To(Equal(prefix + "-c"))
		Expect(allocatedDevices(ctx, ns, "second")).To(ConsistOf(prefix + "-c/gpu-0"))
	}, SpecTimeout(time.Minute))

	It("serves an extended resource from a DeviceClass's devices where no device plugin offers it, through a claim it creates for the pod, as kube-scheduler v1.37 does", func(ctx SpecContext) {
		prefix := "dra-ext"
		ns := createNamespace(ctx, prefix)
		gpu := "example.com/" + prefix + "-gpu"
		createNode(ctx, newNode(prefix+"-a").Obj())
		createNode(ctx, newNode(prefix+"-b").Alloc("cpu", "4", "memory", "16Gi", "pods", "110", gpu, "1").Obj())
		createNode(ctx, newNode(prefix+"-c").Obj())
		createDeviceClass(ctx, prefix+"-gpu")
		Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
			class, err := clientset.ResourceV1().DeviceClasses().Get(ctx, prefix+"-gpu", metav1.GetOptions{})
			if err != nil {
				return err
			}
			class.Spec.ExtendedResourceName = ptr.To(gpu)
			_, err = clientset.ResourceV1().DeviceClasses().Update(ctx, class, metav1.UpdateOptions{})
			return err
		})).To(Succeed())
		createNodeSlice(ctx, prefix+"-c", "gpu-0", "gpu-1")
		startScheduler(ctx, map[string]*v1alpha1.SchedulingProfileSpec{corev1.DefaultSchedulerName: defaultProfile()})
		wantsGPUs := func(name, n string) *corev1.Pod {
			return newPod(ns, name).Req(gpu, n).Limit(gpu, n).Obj()
		}

		By("placing a pod asking for two on the node whose slice has two, through a claim made for it")
		p := createPod(ctx, wantsGPUs("p", "2"))
		Expect(boundNode(ctx, ns, p.Name)).To(Equal(prefix + "-c"))
		got, err := getPod(ctx, ns, p.Name)
		Expect(err).NotTo(HaveOccurred())
		status := got.Status.ExtendedResourceClaimStatus
		Expect(status).NotTo(BeNil(), "status.extendedResourceClaimStatus")
		// The request is named after the container's index and the
		// resource's among its sorted requests (cpu, the GPU, memory).
		Expect(status.RequestMappings).To(ConsistOf(corev1.ContainerExtendedResourceRequest{
			ContainerName: "app", ResourceName: gpu, RequestName: "container-0-request-1"}))
		claim, err := clientset.ResourceV1().ResourceClaims(ns).Get(ctx, status.ResourceClaimName, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(claim.Name).To(HavePrefix("p-extended-resources-"))
		Expect(claim.Annotations).To(HaveKeyWithValue(resourcev1.ExtendedResourceClaimAnnotation, "true"))
		Expect(claim.OwnerReferences).To(ConsistOf(And(HaveField("UID", p.UID), HaveField("Controller", ptr.To(true)))))
		Expect(claim.Spec.Devices.Requests).To(ConsistOf(And(HaveField("Name", "container-0-request-1"),
			HaveField("Exactly.DeviceClassName", prefix+"-gpu"), HaveField("Exactly.Count", int64(2)))))
		Expect(allocatedDevices(ctx, ns, claim.Name)).To(ConsistOf(prefix+"-c/gpu-0", prefix+"-c/gpu-1"))
		Expect(claim.Status.ReservedFor).To(ConsistOf(HaveField("UID", p.UID)))
		Expect(claim.Finalizers).To(ContainElement(resourcev1.Finalizer))

		By("placing a pod asking for one on the device plugin's node, without a claim")
		q := createPod(ctx, wantsGPUs("q", "1"))
		Expect(boundNode(ctx, ns, q.Name)).To(Equal(prefix + "-b"))
		got, err = getPod(ctx, ns, q.Name)
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Status.ExtendedResourceClaimStatus).To(BeNil())

		By("keeping a third pod waiting while both are taken, and binding it once the first pod's devices are released")
		r := createPod(ctx, wantsGPUs("r", "1"))
		Eventually(func(g Gomega) {
			got, err := getPod(ctx, ns, r.Name)
			g.Expect(err).NotTo(HaveOccurred())
			cond := podScheduledCondition(got)
			g.Expect(cond).NotTo(BeNil())
			g.Expect(cond.Message).To(And(HavePrefix("0/3 nodes are available: "), ContainSubstring("2 cannot allocate all claims"), ContainSubstring("1 Insufficient "+gpu)))
		}).WithContext(ctx).WithTimeout(20 * time.Second).Should(Succeed())
		expectUnbound(ctx, ns, r.Name)
		Expect(clientset.CoreV1().Pods(ns).Delete(ctx, p.Name, *metav1.NewDeleteOptions(0))).To(Succeed())
		releaseClaim(ctx, ns, claim.Name, p.UID)
		Expect(boundNode(ctx, ns, r.Name)).To(Equal(prefix + "-c"))
		got, err = getPod(ctx, ns, r.Name)
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Status.ExtendedResourceClaimStatus).NotTo(BeNil())
		Expect(allocatedDevices(ctx, ns, got.Status.ExtendedResourceClaimStatus.ResourceClaimName)).To(HaveLen(1))
	}, SpecTimeout(time.Minute))

	It("keeps a pod off the devices a DeviceTaintRule taints, and binds it once the rule is deleted", func(ctx SpecContext) {
		prefix := "dra-taint-rule"
		ns := createNamespace(ctx, prefix)
		for _, n := range []string{"a", "b"} {
			createNode(ctx, newNode(prefix+"-"+n).Obj())
		}
		createDeviceClass(ctx, prefix+"-gpu")
		createNodeSlice(ctx, prefix+"-a", "gpu-0")
		createNodeSlice(ctx, prefix+"-b", "gpu-0")
		createResourceClaim(ctx, ns, "gpu", prefix+"-gpu", 1)
		rules := clientset.ResourceV1().DeviceTaintRules()
		tainted := func(name, pool string) {
			_, err := rules.Create(ctx, &resourcev1.DeviceTaintRule{
				ObjectMeta: metav1.ObjectMeta{Name: name},
				Spec: resourcev1.DeviceTaintRuleSpec{
					DeviceSelector: &resourcev1.DeviceTaintSelector{Driver: ptr.To(testDRADriver), Pool: ptr.To(pool)},
					Taint:          resourcev1.DeviceTaint{Key: "example.com/broken", Effect: resourcev1.DeviceTaintEffectNoSchedule},
				},
			}, metav1.CreateOptions{})
			Expect(err).NotTo(HaveOccurred(), "creating DeviceTaintRule %s", name)
			DeferCleanup(func(ctx SpecContext) {
				Expect(client.IgnoreNotFound(rules.Delete(ctx, name, metav1.DeleteOptions{}))).To(Succeed())
			})
		}
		tainted(prefix+"-a", prefix+"-a")
		tainted(prefix+"-b", prefix+"-b")
		startScheduler(ctx, map[string]*v1alpha1.SchedulingProfileSpec{corev1.DefaultSchedulerName: defaultProfile()},
			scheduler.WithDeviceTaintRules(true))

		pod := createPod(ctx, newPod(ns, "p").ResourceClaims("gpu").Obj())
		Eventually(func(g Gomega) {
			got, err := getPod(ctx, ns, pod.Name)
			g.Expect(err).NotTo(HaveOccurred())
			cond := podScheduledCondition(got)
			g.Expect(cond).NotTo(BeNil())
			g.Expect(cond.Message).To(HavePrefix("0/2 nodes are available: 2 cannot allocate all claims."))
		}).WithContext(ctx).WithTimeout(20 * time.Second).Should(Succeed())

		// Deleting node b's rule is an update of node b's slice as the
		// scheduler sees it: the pod is retried and binds there.
		Expect(rules.Delete(ctx, prefix+"-b", metav1.DeleteOptions{})).To(Succeed())
		Expect(boundNode(ctx, ns, pod.Name)).To(Equal(prefix + "-b"))
		Expect(allocatedDevices(ctx, ns, "gpu")).To(ConsistOf(prefix + "-b/gpu-0"))
	}, SpecTimeout(time.Minute))

	It("does not preempt a lower-priority pod for the device it holds, as kube-scheduler v1.37; the higher-priority pod binds once the device is released", func(ctx SpecContext) {
		prefix := "dra-preempt"
		ns := createNamespace(ctx, prefix)
		createPriorityClass(ctx, prefix+"-low", 10)
		createPriorityClass(ctx, prefix+"-high", 1000)
		for _, n := range []string{"a", "b", "c"} {
			createNode(ctx, newNode(prefix+"-"+n).Obj())
		}
		draSetup(1)(ctx, ns, prefix)
		createResourceClaim(ctx, ns, "urgent", prefix+"-gpu", 1)
		startScheduler(ctx, map[string]*v1alpha1.SchedulingProfileSpec{corev1.DefaultSchedulerName: defaultProfile()})

		low := createPod(ctx, newPod(ns, "low").PriorityClass(prefix+"-low").ResourceClaims("gpu").Obj())
		Expect(boundNode(ctx, ns, low.Name)).To(Equal(prefix + "-c"))

		// DynamicResources rejects every node as unresolvable and has no
		// PreFilterExtensions: preemption does not try to free the device.
		urgent := createPod(ctx, newPod(ns, "urgent").PriorityClass(prefix+"-high").ResourceClaims("urgent").Obj())
		Eventually(func(g Gomega) {
			got, err := getPod(ctx, ns, urgent.Name)
			g.Expect(err).NotTo(HaveOccurred())
			cond := podScheduledCondition(got)
			g.Expect(cond).NotTo(BeNil())
			g.Expect(cond.Message).To(Equal("0/3 nodes are available: 3 cannot allocate all claims. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."))
			g.Expect(got.Status.NominatedNodeName).To(BeEmpty())
		}).WithContext(ctx).WithTimeout(20 * time.Second).Should(Succeed())
		Consistently(func(g Gomega) {
			got, err := getPod(ctx, ns, low.Name)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(got.DeletionTimestamp).To(BeNil())
			g.Expect(got.Status.Conditions).NotTo(ContainElement(HaveField("Type", corev1.DisruptionTarget)))
		}).WithContext(ctx).WithTimeout(3 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())
		expectUnbound(ctx, ns, urgent.Name)

		// The low-priority pod goes for another reason; the test plays the
		// resourceclaim controller releasing its claim, and the device goes
		// to the higher-priority pod.
		Expect(clientset.CoreV1().Pods(ns).Delete(ctx, low.Name, *metav1.NewDeleteOptions(0))).To(Succeed())
		releaseClaim(ctx, ns, "gpu", low.UID)
		Expect(boundNode(ctx, ns, urgent.Name)).To(Equal(prefix + "-c"))
		Expect(allocatedDevices(ctx, ns, "urgent")).To(ConsistOf(prefix + "-c/gpu-0"))
	}, SpecTimeout(time.Minute))

	It("binds a pod whose claim comes from a ResourceClaimTemplate once its claim is created", func(ctx SpecContext) {
		prefix := "dra-template"
		ns := createNamespace(ctx, prefix)
		for _, n := range []string{"a", "b", "c"} {
			createNode(ctx, newNode(prefix+"-"+n).Obj())
		}
		createDeviceClass(ctx, prefix+"-gpu")
		createNodeSlice(ctx, prefix+"-b", "gpu-0")
		tmpl := createClaimTemplate(ctx, ns, "one-gpu", prefix+"-gpu")
		startScheduler(ctx, map[string]*v1alpha1.SchedulingProfileSpec{corev1.DefaultSchedulerName: defaultProfile()})

		// Until its claim exists the pod waits at PreEnqueue.
		pod := createPod(ctx, newPod(ns, "p").ResourceClaimTemplate("gpu", tmpl.Name).Obj())
		expectUnbound(ctx, ns, pod.Name)

		claimName := createClaimForPod(ctx, pod, "gpu", tmpl)
		Expect(boundNode(ctx, ns, pod.Name)).To(Equal(prefix + "-b"))
		Expect(allocatedDevices(ctx, ns, claimName)).To(ConsistOf(prefix + "-b/gpu-0"))
		claim, err := clientset.ResourceV1().ResourceClaims(ns).Get(ctx, claimName, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(claim.Status.ReservedFor).To(ConsistOf(HaveField("UID", pod.UID)))
	}, SpecTimeout(time.Minute))

	It("binds a gang whose members each claim a device all or none", func(ctx SpecContext) {
		prefix := "dra-gang"
		ns := createNamespace(ctx, prefix)
		createPodGroup(ctx, newPodGroup(ns, "train", 3).Obj())
		createNode(ctx, newNode(prefix+"-a").Obj())
		createNode(ctx, newNode(prefix+"-b").Obj())
		createDeviceClass(ctx, prefix+"-gpu")
		createNodeSlice(ctx, prefix+"-a", "gpu-0", "gpu-1")
		var claims []string
		for i := range 3 {
			claims = append(claims, fmt.Sprintf("gpu-%d", i))
			createResourceClaim(ctx, ns, claims[i], prefix+"-gpu", 1)
		}
		startGangScheduler(ctx)

		for i := range 3 {
			createPod(ctx, newPod(ns, fmt.Sprintf("worker-%d", i)).Group("train").ResourceClaims(claims[i]).Obj())
		}
		// Two devices for three members: the group cycle places two, the
		// third cannot allocate its claim, so the cycle places none. Nobody
		// binds and no claim is written.
		Eventually(func(g Gomega) {
			g.Expect(schedulingMessages(ctx, g, ns)).To(ContainElement(ContainSubstring("cannot allocate all claims")))
		}).WithContext(ctx).WithTimeout(20 * time.Second).Should(Succeed())
		Consistently(func(g Gomega) {
			g.Expect(boundMembers(ctx, ns)).To(BeEmpty())
			g.Expect(unallocatedClaims(ctx, ns)).To(ConsistOf(claims))
		}).WithContext(ctx).WithTimeout(5 * time.Second).WithPolling(100 * time.Millisecond).Should(Succeed())

		// A device on the other node makes room for the whole gang.
		createNodeSlice(ctx, prefix+"-b", "gpu-0")
		Eventually(func() ([]string, error) { return boundMembers(ctx, ns) }).
			WithContext(ctx).WithTimeout(60 * time.Second).Should(HaveLen(3))
		devices := allocatedDevices(ctx, ns, claims...)
		Expect(devices).To(ConsistOf(prefix+"-a/gpu-0", prefix+"-a/gpu-1", prefix+"-b/gpu-0"))
	}, SpecTimeout(2*time.Minute))

	It("binds a pod with claims ignoring them when the profile disables DynamicResources, as kube-scheduler does", func(ctx SpecContext) {
		prefix := "dra-disabled"
		ns := createNamespace(ctx, prefix)
		createNode(ctx, newNode(prefix+"-a").Obj())
		// No ResourceSlice offers a device of the class, and the template
		// claim is never created: the default profile would keep the pod
		// pending.
		createDeviceClass(ctx, prefix+"-gpu")
		createResourceClaim(ctx, ns, "gpu", prefix+"-gpu", 1)
		tmpl := createClaimTemplate(ctx, ns, "one-gpu", prefix+"-gpu")
		startScheduler(ctx, map[string]*v1alpha1.SchedulingProfileSpec{corev1.DefaultSchedulerName: {
			Plugins: &v1alpha1.Plugins{MultiPoint: &v1alpha1.PluginSet{Disabled: []v1alpha1.Plugin{{Name: "DynamicResources"}}}},
		}})

		pod := createPod(ctx, newPod(ns, "p").ResourceClaims("gpu").ResourceClaimTemplate("scratch", tmpl.Name).Obj())
		Expect(boundNode(ctx, ns, pod.Name)).To(Equal(prefix + "-a"))
		// Nothing was allocated or reserved: the kubelet would not start the pod.
		Expect(unallocatedClaims(ctx, ns)).To(ConsistOf("gpu"))
	}, SpecTimeout(time.Minute))
})
