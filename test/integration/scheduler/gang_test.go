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
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler"
	st "github.com/berth-io/berth/scheduler/schedtest"
	"github.com/berth-io/berth/scheduler/workload"
)

// These specs run what only Berth's own PodGroups (scheduling.berth.io)
// have, or what no recorded scenario covers. The workloads suite plays
// every recorded kube-scheduler scenario (a gang that fits, one short of
// room until a node is added, one kept in one rack, two competing, members
// before their group, a basic group short of room, ...) through both
// front doors, Kubernetes' PodGroups and Berth's, and compares them field
// by field.
var _ = Describe("Gang scheduling with Berth's PodGroups", func() {
	It("reads the deprecated minMember as minCount: members wait until the gang has its pods", func(ctx SpecContext) {
		ns := createNamespace(ctx, "gang-few")
		createPodGroup(ctx, newPodGroup(ns, "trio", 0).MinMember(3).Obj())
		createNode(ctx, newNode("gang-few-1").Obj())
		startGangScheduler(ctx)

		for i := range 2 {
			createPod(ctx, newPod(ns, fmt.Sprintf("m-%d", i)).Group("trio").Obj())
		}
		// As kube-scheduler, nothing is written to a member held back
		// before its group's cycle (berth explain says why it waits).
		Consistently(func() ([]string, error) { return boundMembers(ctx, ns) }).
			WithContext(ctx).WithTimeout(3 * time.Second).Should(BeEmpty())

		createPod(ctx, newPod(ns, "m-2").Group("trio").Obj())
		Eventually(func() ([]string, error) { return boundMembers(ctx, ns) }).
			WithContext(ctx).WithTimeout(30 * time.Second).Should(HaveLen(3))
	})

	It("binds a gang larger than the binding concurrency", func(ctx SpecContext) {
		ns := createNamespace(ctx, "gang-wide")
		createPodGroup(ctx, newPodGroup(ns, "wide", 6).Obj())
		createNode(ctx, newNode("gang-wide-1").Obj())
		// Members waiting at Permit must not hold the two binding slots.
		startGangScheduler(ctx, scheduler.WithBindingConcurrency(2))

		for i := range 6 {
			createPod(ctx, newPod(ns, fmt.Sprintf("w-%d", i)).Group("wide").Obj())
		}
		Eventually(func() ([]string, error) { return boundMembers(ctx, ns) }).
			WithContext(ctx).WithTimeout(30 * time.Second).Should(HaveLen(6))
	})
})

// startGangScheduler runs a scheduler with the default profile that watches Berth's PodGroups.
func startGangScheduler(ctx context.Context, opts ...scheduler.Option) {
	GinkgoHelper()
	c, err := workload.NewBerthClient(cfg)
	Expect(err).NotTo(HaveOccurred())
	startScheduler(ctx, map[string]*v1alpha1.SchedulingProfileSpec{corev1.DefaultSchedulerName: defaultProfile()},
		append([]scheduler.Option{scheduler.WithPodGroupClient(c)}, opts...)...)
}

// berthClient is a client for Berth's kinds.
func berthClient() (client.Client, error) {
	scheme := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	return client.New(cfg, client.Options{Scheme: scheme})
}

// newPodGroup is a PodGroup without the UID and generation the apiserver assigns.
func newPodGroup(namespace, name string, minCount int32) *st.PodGroupBuilder {
	return st.PodGroup(name, minCount).UID("").Generation(0).Namespace(namespace)
}

// createPodGroup creates a copy of the PodGroup; its namespace's deletion removes it.
func createPodGroup(ctx context.Context, pg *v1alpha1.PodGroup) {
	GinkgoHelper()
	c, err := berthClient()
	Expect(err).NotTo(HaveOccurred())
	pg = pg.DeepCopy()
	Expect(c.Create(ctx, pg)).To(Succeed(), "creating PodGroup %s/%s", pg.Namespace, pg.Name)
}

// boundMembers lists the names of the namespace's pods that have a node.
func boundMembers(ctx context.Context, ns string) ([]string, error) {
	pods, err := clientset.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var bound []string
	for _, p := range pods.Items {
		if p.Spec.NodeName != "" {
			bound = append(bound, p.Name)
		}
	}
	return bound, nil
}

// schedulingMessages returns the PodScheduled=False messages of the
// namespace's pods; every pod must have one.
func schedulingMessages(ctx context.Context, g Gomega, ns string) []string {
	pods, err := clientset.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	var msgs []string
	for _, p := range pods.Items {
		cond := podScheduledCondition(&p)
		g.Expect(cond).NotTo(BeNil(), "pod %s has no PodScheduled condition", p.Name)
		if cond.Status == corev1.ConditionFalse {
			msgs = append(msgs, p.Name+": "+cond.Message)
		}
	}
	GinkgoWriter.Println(strings.Join(msgs, "\n"))
	return msgs
}
