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
	"slices"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/berth-io/berth/api/v1alpha1"
)

// nominationLog records, per pod of a namespace, each change of
// status.nominatedNodeName that a watch saw, from the pod's creation on.
type nominationLog struct {
	mu    sync.Mutex
	byPod map[string][]string
}

// watchNominations starts recording the namespace's pods' nominations; call
// it before creating the pods.
func watchNominations(ctx context.Context, ns string) *nominationLog {
	GinkgoHelper()
	w, err := clientset.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(w.Stop)
	l := &nominationLog{byPod: map[string][]string{}}
	go func() {
		for ev := range w.ResultChan() {
			pod, ok := ev.Object.(*corev1.Pod)
			if !ok || ev.Type == watch.Deleted {
				continue
			}
			l.mu.Lock()
			seen := l.byPod[pod.Name]
			if len(seen) == 0 || seen[len(seen)-1] != pod.Status.NominatedNodeName {
				l.byPod[pod.Name] = append(seen, pod.Status.NominatedNodeName)
			}
			l.mu.Unlock()
		}
	}()
	return l
}

// of returns the nominations the pod went through, "" for none.
func (l *nominationLog) of(name string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.byPod[name])
}

var _ = Describe("Nominating before a binding waits", func() {
	It("publishes the node of a pod waiting in PreBind for its volume, and no node for a pod bound at once", func(ctx SpecContext) {
		ns := createNamespace(ctx, "nominate-prebind")
		log := watchNominations(ctx, ns)
		createNode(ctx, newNode("nominate-prebind-node").Obj())
		createWaitingClass(ctx, "nominate-never")
		startScheduler(ctx, map[string]*v1alpha1.SchedulingProfileSpec{corev1.DefaultSchedulerName: defaultProfile()})

		createClaim(ctx, ns, "data", "nominate-never")
		createPod(ctx, newPod(ns, "with-volume").PVC("data").Obj())
		createPod(ctx, newPod(ns, "plain").Obj())

		Eventually(func(g Gomega) {
			pod, err := getPod(ctx, ns, "with-volume")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(pod.Spec.NodeName).To(BeEmpty())
			g.Expect(pod.Status.NominatedNodeName).To(Equal("nominate-prebind-node"))
		}).WithContext(ctx).WithTimeout(20 * time.Second).Should(Succeed())
		expectBound(ctx, ns, "plain")
		Expect(log.of("plain")).To(Equal([]string{""}), "a pod that did not wait was nominated")
	}, SpecTimeout(time.Minute))

	It("publishes the node of a gang member waiting at Permit for the rest of its group", func(ctx SpecContext) {
		ns := createNamespace(ctx, "nominate-permit")
		log := watchNominations(ctx, ns)
		createPodGroup(ctx, newPodGroup(ns, "pair", 2).Obj())
		createNode(ctx, newNode("nominate-permit-node").Obj())
		startGangScheduler(ctx)

		// The group cycle assumes the members one after the other: the
		// first waits at Permit, nominated, until the second lets it go.
		createPod(ctx, newPod(ns, "m-0").Group("pair").Obj())
		createPod(ctx, newPod(ns, "m-1").Group("pair").Obj())
		Eventually(func() ([]string, error) { return boundMembers(ctx, ns) }).
			WithContext(ctx).WithTimeout(20 * time.Second).Should(HaveLen(2))
		waited := 0
		for _, m := range []string{"m-0", "m-1"} {
			if slices.Contains(log.of(m), "nominate-permit-node") {
				waited++
			}
		}
		Expect(waited).To(BeNumerically(">=", 1), "no member was nominated while it waited at Permit: %v, %v", log.of("m-0"), log.of("m-1"))
	}, SpecTimeout(time.Minute))
})
