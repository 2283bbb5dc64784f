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
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/internal/localcluster"
)

// The gates the suite's control plane runs with, so that the Job
// controller gives a Job its Workload and PodGroup and the apiserver serves
// them (scheduling.k8s.io/v1beta1).
const (
	workloadGates   = "GenericWorkload=true,TopologyAwareWorkloadScheduling=true,WorkloadWithJob=true"
	workloadRuntime = "scheduling.k8s.io/v1beta1=true"
	// rackKey is the node label the Jobs' gangs keep to one value of.
	rackKey = "topology.example.com/rack"
	// gangNodeLabel marks the nodes a spec's Job may use.
	gangNodeLabel = "e2e.berth.io/gang"
)

var _ = Describe("Jobs as gangs (WorkloadWithJob)", Ordered, func() {
	var m *manager

	BeforeAll(func(ctx SpecContext) {
		m = startManager("berth-manager-workloads")
		m.waitReady(ctx)
	})

	// Each case takes nodes 1-8 as rack-1 and nodes 9-12 as rack-2; each
	// pod needs a whole node (20 of its 32 CPUs).
	It("binds all 8 pods of a Job's gang together, on one rack", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		waitOtherSpecsGone(ctx, ns)
		labelRacks(ctx, map[string][]int{"rack-1": {1, 2, 3, 4, 5, 6, 7, 8}, "rack-2": {9, 10, 11, 12}})

		job := createGangJob(ctx, ns, "train", 8)
		pg := jobPodGroup(ctx, job)
		Expect(pg.Spec.SchedulingPolicy.Gang).NotTo(BeNil(), "the Job controller's PodGroup is a gang")
		Expect(pg.Spec.SchedulingPolicy.Gang.MinCount).To(BeEquivalentTo(8))

		Eventually(ctx, func() (map[string]int, error) { return racksOf(ctx, ns) }).
			WithTimeout(2*time.Minute).WithPolling(time.Second).
			Should(Equal(map[string]int{"rack-1": 8}), "all 8 pods bound in rack-1")
		_, pods := countPods(ctx, ns)
		expectEachPodBoundOnce(ctx, ns, pods)
		Eventually(ctx, func() (metav1.ConditionStatus, error) {
			return podGroupCondition(ctx, pg)
		}).WithTimeout(time.Minute).Should(Equal(metav1.ConditionTrue), "PodGroupInitiallyScheduled")
		deleteJob(ctx, job)
	}, SpecTimeout(5*time.Minute))

	It("binds none of a Job's 8 pods when a rack holds only 7, and each pod says why", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		waitOtherSpecsGone(ctx, ns)
		labelRacks(ctx, map[string][]int{"rack-1": {1, 2, 3, 4, 5, 6, 7}, "rack-2": {9, 10, 11, 12}})

		job := createGangJob(ctx, ns, "short", 8)
		pg := jobPodGroup(ctx, job)
		Eventually(ctx, func() ([]string, error) {
			return podReasons(ctx, ns)
		}).WithTimeout(2*time.Minute).WithPolling(time.Second).Should(And(HaveLen(8), HaveEach(
			HavePrefix("Unschedulable: "))), "every pod of the Job says it is unschedulable")
		Consistently(ctx, func() (map[string]int, error) { return racksOf(ctx, ns) }).
			WithTimeout(5*time.Second).WithPolling(time.Second).Should(BeEmpty(), "no pod of the gang binds")
		reasons, err := podReasons(ctx, ns)
		Expect(err).NotTo(HaveOccurred())
		Expect(strings.Join(reasons, "\n")).To(ContainSubstring("pod group is unschedulable"))
		Eventually(ctx, func() (metav1.ConditionStatus, error) {
			return podGroupCondition(ctx, pg)
		}).WithTimeout(time.Minute).Should(Equal(metav1.ConditionFalse), "PodGroupInitiallyScheduled")
		deleteJob(ctx, job)
	}, SpecTimeout(5*time.Minute))

	AfterAll(func(ctx SpecContext) { labelRacks(ctx, nil) })
})

// labelRacks gives the numbered fake nodes the rack label and the gang
// label, and takes both off every other node.
func labelRacks(ctx context.Context, racks map[string][]int) {
	GinkgoHelper()
	rackOf := map[string]string{}
	for rack, nodes := range racks {
		for _, i := range nodes {
			rackOf[localcluster.NodeName(i)] = rack
		}
	}
	for i := range nodes {
		name := localcluster.NodeName(i)
		var patch string
		if rack, ok := rackOf[name]; ok {
			patch = fmt.Sprintf(`{"metadata":{"labels":{%q:%q,%q:"true"}}}`, rackKey, rack, gangNodeLabel)
		} else {
			patch = fmt.Sprintf(`{"metadata":{"labels":{%q:null,%q:null}}}`, rackKey, gangNodeLabel)
		}
		_, err := cluster.Clientset.CoreV1().Nodes().Patch(ctx, name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{})
		Expect(err).NotTo(HaveOccurred(), "labelling node %s", name)
	}
}

// createGangJob creates a Job of n pods, each needing a whole gang node,
// whose spec.scheduling asks for a gang of n in one rack.
func createGangJob(ctx context.Context, ns, name string, n int32) *batchv1.Job {
	GinkgoHelper()
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: batchv1.JobSpec{
			Parallelism: ptr.To(n),
			Completions: ptr.To(n),
			Scheduling: &batchv1.JobSchedulingConfiguration{
				SchedulingPolicy: &schedulingv1alpha3.WorkloadPodGroupSchedulingPolicy{
					Gang: &schedulingv1alpha3.WorkloadPodGroupGangSchedulingPolicy{MinCount: ptr.To(n)},
				},
				SchedulingConstraints: &schedulingv1alpha3.WorkloadPodGroupSchedulingConstraints{
					Topology: []schedulingv1alpha3.TopologyConstraint{{Key: rackKey}},
				},
			},
			Template: corev1.PodTemplateSpec{
				Spec: corev1.PodSpec{
					SchedulerName: sampleScheduler,
					RestartPolicy: corev1.RestartPolicyNever,
					NodeSelector:  map[string]string{gangNodeLabel: "true"},
					Tolerations:   []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
					Containers: []corev1.Container{{
						Name: "train", Image: "registry.example/train:1",
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
							corev1.ResourceCPU: resource.MustParse("20"), corev1.ResourceMemory: resource.MustParse("1Gi"),
						}},
					}},
				},
			},
		},
	}
	created, err := cluster.Clientset.BatchV1().Jobs(ns).Create(ctx, job, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	Expect(created.Spec.Scheduling).NotTo(BeNil(), "the apiserver kept spec.scheduling: is WorkloadWithJob on?")
	return created
}

// jobPodGroup waits for the PodGroup the Job controller makes for the Job.
func jobPodGroup(ctx context.Context, job *batchv1.Job) *schedulingv1beta1.PodGroup {
	GinkgoHelper()
	var found *schedulingv1beta1.PodGroup
	Eventually(ctx, func() error {
		pods, err := cluster.Clientset.CoreV1().Pods(job.Namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		for _, p := range pods.Items {
			if sg := p.Spec.SchedulingGroup; sg != nil && sg.PodGroupName != nil {
				pg, err := cluster.Clientset.SchedulingV1beta1().PodGroups(job.Namespace).Get(ctx, *sg.PodGroupName, metav1.GetOptions{})
				if err != nil {
					return err
				}
				found = pg
				return nil
			}
		}
		return fmt.Errorf("no pod of the Job names a PodGroup yet (%d pods)", len(pods.Items))
	}).WithTimeout(time.Minute).WithPolling(time.Second).Should(Succeed())
	wls, err := cluster.Clientset.SchedulingV1beta1().Workloads(job.Namespace).List(ctx, metav1.ListOptions{})
	Expect(err).NotTo(HaveOccurred())
	Expect(wls.Items).NotTo(BeEmpty(), "the Job controller made a Workload")
	return found
}

// racksOf counts the namespace's bound pods per rack.
func racksOf(ctx context.Context, ns string) (map[string]int, error) {
	pods, err := cluster.Clientset.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, p := range pods.Items {
		if p.Spec.NodeName == "" {
			continue
		}
		node, err := cluster.Clientset.CoreV1().Nodes().Get(ctx, p.Spec.NodeName, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		out[node.Labels[rackKey]]++
	}
	return out, nil
}

// podReasons lists each pending pod's PodScheduled reason and message.
func podReasons(ctx context.Context, ns string) ([]string, error) {
	pods, err := cluster.Clientset.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range pods.Items {
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
				out = append(out, c.Reason+": "+c.Message)
			}
		}
	}
	return out, nil
}

// podGroupCondition reads the PodGroup's PodGroupInitiallyScheduled status.
func podGroupCondition(ctx context.Context, pg *schedulingv1beta1.PodGroup) (metav1.ConditionStatus, error) {
	fresh, err := cluster.Clientset.SchedulingV1beta1().PodGroups(pg.Namespace).Get(ctx, pg.Name, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	for _, c := range fresh.Status.Conditions {
		if c.Type == schedulingv1beta1.PodGroupInitiallyScheduled {
			return c.Status, nil
		}
	}
	return "", nil
}

// deleteJob deletes the Job and its pods at once.
func deleteJob(ctx context.Context, job *batchv1.Job) {
	GinkgoHelper()
	err := cluster.Clientset.BatchV1().Jobs(job.Namespace).Delete(ctx, job.Name, metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)})
	Expect(err).NotTo(HaveOccurred())
	Expect(cluster.Clientset.CoreV1().Pods(job.Namespace).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}, metav1.ListOptions{})).To(Succeed())
}
