package scheduler_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/berth-io/berth/api/v1alpha1"
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

// createResourceClaim creates a claim for count devices of the class.
func createResourceClaim(ctx context.Context, ns, name, class string, count int64) {
	GinkgoHelper()
	_, err := clientset.ResourceV1().ResourceClaims(ns).Create(ctx, &resourcev1.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{
			Name:    "gpu",
			Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: class, AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: count},
		}}}},
	}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred(), "creating ResourceClaim %s", name)
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
	It("binds a pod with a claim to the node offering the device and writes the allocation", func(ctx SpecContext) {
		prefix := "dra-bind"
		ns := createNamespace(ctx, prefix)
		for _, n := range []string{"a", "b", "c"} {
			newNode(prefix + "-" + n).create(ctx)
		}
		draSetup(1)(ctx, ns, prefix)
		createResourceClaim(ctx, ns, "second", prefix+"-gpu", 1)
		startScheduler(ctx, map[string]*v1alpha1.SchedulingProfileSpec{corev1.DefaultSchedulerName: defaultProfile()})

		pod := newPod(ns, "p").resourceClaim("gpu").create(ctx)
		Eventually(func() (string, error) {
			got, err := getPod(ctx, ns, pod.Name)
			if err != nil {
				return "", err
			}
			return got.Spec.NodeName, nil
		}).WithContext(ctx).WithTimeout(20 * time.Second).Should(Equal(prefix + "-c"))

		claim, err := clientset.ResourceV1().ResourceClaims(ns).Get(ctx, "gpu", metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(claim.Status.Allocation).NotTo(BeNil())
		Expect(claim.Status.Allocation.Devices.Results).To(ConsistOf(And(
			HaveField("Driver", testDRADriver), HaveField("Pool", prefix+"-c"), HaveField("Device", "gpu-0"), HaveField("Request", "gpu"))))
		Expect(claim.Status.ReservedFor).To(ConsistOf(HaveField("UID", pod.UID)))
		Expect(claim.Finalizers).To(ContainElement(resourcev1.Finalizer))

		// The only device is taken: a second pod waits with upstream's reason.
		second := newPod(ns, "q").resourceClaim("second").create(ctx)
		Eventually(func(g Gomega) {
			got, err := getPod(ctx, ns, second.Name)
			g.Expect(err).NotTo(HaveOccurred())
			cond := podScheduledCondition(got)
			g.Expect(cond).NotTo(BeNil())
			g.Expect(cond.Message).To(HavePrefix("0/3 nodes are available: 3 cannot allocate all claims."))
		}).WithContext(ctx).WithTimeout(20 * time.Second).Should(Succeed())
	}, SpecTimeout(time.Minute))
})
