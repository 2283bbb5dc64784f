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

package faults_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
)

// newNamespace creates a namespace for one spec and deletes it afterwards,
// with its pods, so that the next spec finds the nodes empty.
func newNamespace(ctx context.Context, prefix string) string {
	GinkgoHelper()
	ns, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() {
		// Pods on kwok nodes go at once with a zero grace period; waiting
		// for them keeps the next spec's nodes free.
		_ = client.CoreV1().Pods(ns.Name).DeleteCollection(background(), *metav1.NewDeleteOptions(0), metav1.ListOptions{})
		_ = client.CoreV1().Namespaces().Delete(background(), ns.Name, metav1.DeleteOptions{})
		Eventually(func() int {
			pods, err := client.CoreV1().Pods(ns.Name).List(background(), metav1.ListOptions{})
			if err != nil {
				return -1
			}
			return len(pods.Items)
		}).WithTimeout(3 * time.Minute).WithPolling(time.Second).Should(BeZero())
	})
	Eventually(ctx, func() error {
		_, err := client.CoreV1().ServiceAccounts(ns.Name).Get(ctx, "default", metav1.GetOptions{})
		return err
	}).Should(Succeed())
	return ns.Name
}

// podSpec is a pod of the suite's profile requesting cpu and memory.
func podSpec(ns, name, cpu, memory string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"faults": "yes"}},
		Spec: corev1.PodSpec{
			SchedulerName:                 schedulerName,
			AutomountServiceAccountToken:  ptr.To(false),
			TerminationGracePeriodSeconds: ptr.To[int64](0),
			Containers: []corev1.Container{{
				Name: "app", Image: "registry.k8s.io/pause:3.10",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory),
				}},
			}},
		},
	}
}

// createPods creates the pods from 16 goroutines and returns when each
// create returned.
func createPods(ctx context.Context, pods []*corev1.Pod) map[string]time.Time {
	GinkgoHelper()
	var (
		mu      sync.Mutex
		created = make(map[string]time.Time, len(pods))
		errs    []error
		wg      sync.WaitGroup
		next    = make(chan *corev1.Pod)
	)
	for range 16 {
		wg.Go(func() {
			for p := range next {
				_, err := client.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{})
				mu.Lock()
				if err != nil {
					errs = append(errs, fmt.Errorf("creating pod %s: %w", p.Name, err))
				} else {
					created[p.Name] = time.Now()
				}
				mu.Unlock()
			}
		})
	}
	for _, p := range pods {
		next <- p
	}
	close(next)
	wg.Wait()
	Expect(errs).To(BeEmpty())
	return created
}

// bindings watches a namespace's pods and records when each was first seen
// bound, to which node, and any later change of node (a second binding).
type bindings struct {
	ns      string
	mu      sync.Mutex
	boundAt map[string]time.Time
	node    map[string]string
	rebound []string
}

// watchBindings starts recording the namespace's bindings; call it before
// creating the pods. It uses an informer, not a bare watch: under a burst
// the apiserver closes a watch that falls behind, and the informer resumes.
func watchBindings(ctx context.Context, ns string) *bindings {
	GinkgoHelper()
	b := &bindings{ns: ns, boundAt: map[string]time.Time{}, node: map[string]string{}}
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(ns))
	record := func(obj any) {
		pod, ok := obj.(*corev1.Pod)
		if !ok || pod.Spec.NodeName == "" {
			return
		}
		b.mu.Lock()
		defer b.mu.Unlock()
		switch prev, seen := b.node[pod.Name]; {
		case !seen:
			b.node[pod.Name] = pod.Spec.NodeName
			b.boundAt[pod.Name] = time.Now()
		case prev != pod.Spec.NodeName:
			b.rebound = append(b.rebound, fmt.Sprintf("%s: %s then %s", pod.Name, prev, pod.Spec.NodeName))
		}
	}
	_, err := factory.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    record,
		UpdateFunc: func(_, obj any) { record(obj) },
	})
	Expect(err).NotTo(HaveOccurred())
	stop := make(chan struct{})
	DeferCleanup(func() { close(stop); factory.Shutdown() })
	factory.Start(stop)
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		Expect(ok).To(BeTrue(), "informer %v did not sync", typ)
	}
	return b
}

// count returns how many pods were seen bound.
func (b *bindings) count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.boundAt)
}

// rate returns the pods bound per second from the first bind seen to the
// last: the scheduler's steady rate, without the time its trigger (a
// profile applied, nodes labelled) took to reach the first pod.
func (b *bindings) rate() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	var first, last time.Time
	for _, at := range b.boundAt {
		if first.IsZero() || at.Before(first) {
			first = at
		}
		if at.After(last) {
			last = at
		}
	}
	if len(b.boundAt) < 2 || !last.After(first) {
		return 0
	}
	return float64(len(b.boundAt)-1) / last.Sub(first).Seconds()
}

// listAll lists every object.
var listAll = metav1.ListOptions{}

// deleteNow deletes at once.
var deleteNow = metav1.DeleteOptions{GracePeriodSeconds: new(int64)}

// latencies returns, for the named pods that were bound, the time from
// their creation to their binding, sorted.
func (b *bindings) latencies(created map[string]time.Time) []time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []time.Duration
	for name, c := range created {
		if at, ok := b.boundAt[name]; ok {
			out = append(out, at.Sub(c))
		}
	}
	slices.Sort(out)
	return out
}

// percentile returns the p-th percentile (0-100) of sorted durations.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted)-1) * p / 100)
	return sorted[i]
}

// boundAtOf returns when the named pod was first seen bound; zero if never.
func (b *bindings) boundAtOf(name string) time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.boundAt[name]
}

// waitBound waits until n pods of the namespace were seen bound; on
// failure it says why the others wait.
func (b *bindings) waitBound(ctx context.Context, n int, timeout time.Duration) {
	GinkgoHelper()
	Eventually(ctx, b.count).WithTimeout(timeout).WithPolling(250*time.Millisecond).
		Should(BeNumerically(">=", n), func() string { return "pods seen bound; " + b.pending(ctx) })
}

// lastBound returns when the apiserver bound the last of pods: the latest
// PodScheduled transition among them (which the binding sets), rounded up
// to the second it is stored with. Unlike the times the watch saw, it does
// not depend on how soon the test's own watch reconnects after an
// apiserver restart, whose client-go backoff can add tens of seconds.
func lastBound(ctx context.Context, ns string, pods []*corev1.Pod) time.Time {
	GinkgoHelper()
	want := make(map[string]bool, len(pods))
	for _, p := range pods {
		want[p.Name] = true
	}
	list, err := client.CoreV1().Pods(ns).List(ctx, listAll)
	Expect(err).NotTo(HaveOccurred())
	var last time.Time
	for _, p := range list.Items {
		if !want[p.Name] {
			continue
		}
		delete(want, p.Name)
		var at time.Time
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionTrue {
				at = c.LastTransitionTime.Add(time.Second)
			}
		}
		Expect(at.IsZero()).To(BeFalse(), "pod %s/%s has no PodScheduled=True condition", ns, p.Name)
		if at.After(last) {
			last = at
		}
	}
	Expect(want).To(BeEmpty(), "pods not found")
	return last
}

// waitBoundBy is waitBound while m is the only manager left to bind the
// pods: it stops at once, saying so, if m exits first.
func (b *bindings) waitBoundBy(ctx context.Context, m *manager, n int, timeout time.Duration) {
	GinkgoHelper()
	Eventually(ctx, func() int {
		if m.Exited() {
			StopTrying(fmt.Sprintf("%s exited (%v) with %d of %d pods bound; %s", m.Name, m.Err(), b.count(), n, b.pending(ctx))).Now()
		}
		return b.count()
	}).WithTimeout(timeout).WithPolling(250*time.Millisecond).
		Should(BeNumerically(">=", n), func() string { return "pods seen bound; " + b.pending(ctx) })
}

// pending describes the namespace's unbound pods: how many, and the
// PodScheduled messages of a few.
func (b *bindings) pending(ctx context.Context) string {
	pods, err := client.CoreV1().Pods(b.ns).List(context.WithoutCancel(ctx), listAll)
	if err != nil {
		return fmt.Sprintf("listing the pending pods: %v", err)
	}
	var unbound int
	reasons := map[string]int{}
	for _, p := range pods.Items {
		if p.Spec.NodeName != "" {
			continue
		}
		unbound++
		why := "no PodScheduled condition"
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled {
				why = fmt.Sprintf("%s: %.200s", c.Reason, c.Message)
			}
		}
		reasons[why]++
	}
	return fmt.Sprintf("%d pods unbound in %s, by condition: %v", unbound, b.ns, reasons)
}

// auditEvent is the part of an apiserver audit event the suite reads.
type auditEvent struct {
	Verb      string `json:"verb"`
	Stage     string `json:"stage"`
	ObjectRef struct {
		Resource, Namespace, Name, Subresource string
	} `json:"objectRef"`
	ResponseStatus struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
}

// auditedBinds counts, per pod of ns, the bindings the apiserver accepted,
// from its audit log: the record of what happened, whoever sent them and
// whether or not their sender lived to read the reply.
func auditedBinds(ns string) map[string]int { return audited("create", ns, "binding") }

// auditedEvictions counts the evictions of ns the apiserver accepted, per pod.
func auditedEvictions(ns string) map[string]int { return audited("create", ns, "eviction") }

// audited counts, per pod of ns, the requests of verb on the pod
// subresource ("" for the pod itself) that the apiserver's audit log shows
// accepted.
func audited(verb, ns, subresource string) map[string]int {
	GinkgoHelper()
	f, err := os.Open(cluster.AuditLogPath())
	Expect(err).NotTo(HaveOccurred())
	defer f.Close()
	out := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		var ev auditEvent
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Stage != "ResponseComplete" || ev.Verb != verb || ev.ObjectRef.Resource != "pods" ||
			ev.ObjectRef.Subresource != subresource || ev.ObjectRef.Namespace != ns {
			continue
		}
		if ev.ResponseStatus.Code >= 200 && ev.ResponseStatus.Code < 300 {
			out[ev.ObjectRef.Name]++
		}
	}
	Expect(sc.Err()).NotTo(HaveOccurred())
	return out
}

// expectBoundOnce checks that each of the named pods was bound by exactly
// one binding the apiserver accepted (its audit log says so) and never
// moved (a watch says so), and reports the figure.
func expectBoundOnce(scenario, ns string, b *bindings, names []string) {
	GinkgoHelper()
	var wrong []string
	// The audit log is written in batches, a second apart.
	Eventually(func() []string {
		binds := auditedBinds(ns)
		wrong = wrong[:0]
		for _, name := range names {
			// A bind whose sender was killed mid-request may be audited
			// without its response: such a pod is bound (the watch saw it)
			// with no accepted bind recorded. Two accepted binds are wrong.
			b.mu.Lock()
			_, seen := b.node[name]
			b.mu.Unlock()
			if binds[name] > 1 || (binds[name] == 0 && !seen) {
				wrong = append(wrong, fmt.Sprintf("%s bound %d times", name, binds[name]))
			}
		}
		return wrong
	}).WithTimeout(10 * time.Second).WithPolling(time.Second).Should(BeEmpty())
	b.mu.Lock()
	rebound := slices.Clone(b.rebound)
	b.mu.Unlock()
	figure(scenario+"/pods-not-bound-exactly-once", len(wrong)+len(rebound))
	Expect(wrong).To(BeEmpty())
	Expect(rebound).To(BeEmpty())
}

// expectNoOvercommit checks that no node holds more pods, CPU or memory
// than it can allocate, and reports the figure.
func expectNoOvercommit(ctx context.Context, scenario string) {
	GinkgoHelper()
	nodeList, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	Expect(err).NotTo(HaveOccurred())
	pods, err := client.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName!="})
	Expect(err).NotTo(HaveOccurred())
	type use struct {
		pods     int64
		cpu, mem resource.Quantity
	}
	used := map[string]*use{}
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		u := used[p.Spec.NodeName]
		if u == nil {
			u = &use{}
			used[p.Spec.NodeName] = u
		}
		u.pods++
		for _, c := range p.Spec.Containers {
			u.cpu.Add(*c.Resources.Requests.Cpu())
			u.mem.Add(*c.Resources.Requests.Memory())
		}
	}
	var over []string
	for _, n := range nodeList.Items {
		u := used[n.Name]
		if u == nil {
			continue
		}
		a := n.Status.Allocatable
		if u.pods > a.Pods().Value() || u.cpu.Cmp(*a.Cpu()) > 0 || u.mem.Cmp(*a.Memory()) > 0 {
			over = append(over, fmt.Sprintf("%s: %d pods, %s cpu, %s memory", n.Name, u.pods, u.cpu.String(), u.mem.String()))
		}
	}
	figure(scenario+"/nodes-over-allocatable", len(over))
	Expect(over).To(BeEmpty())
}

// podNames returns the pods' names.
func podNames(pods []*corev1.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Name
	}
	return out
}

// manyPods returns n pods named prefix-0... of the suite's profile.
func manyPods(ns, prefix string, n int, cpu, memory string) []*corev1.Pod {
	out := make([]*corev1.Pod, n)
	for i := range n {
		out[i] = podSpec(ns, fmt.Sprintf("%s-%d", prefix, i), cpu, memory)
	}
	return out
}
