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
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework/extender"
)

// extenderServer serves one extender verb at /<verb> until the spec ends.
func extenderServer(verb string, handle func(w http.ResponseWriter, r *http.Request)) string {
	GinkgoHelper()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /"+verb, handle)
	srv := httptest.NewServer(mux)
	DeferCleanup(srv.Close)
	return srv.URL
}

// decodeArgs reads the body of a filter or prioritize call.
func decodeArgs(r *http.Request) extender.Args {
	var args extender.Args
	Expect(json.NewDecoder(r.Body).Decode(&args)).To(Succeed())
	return args
}

// argNodeNames lists the candidate nodes of a call, whichever way they came.
func argNodeNames(args extender.Args) []string {
	if args.NodeNames != nil {
		return *args.NodeNames
	}
	var out []string
	for _, n := range args.Nodes.Items {
		out = append(out, n.Name)
	}
	return out
}

// stallingExtender answers nothing until the caller gives up.
func stallingExtender(verb string) string {
	GinkgoHelper()
	return extenderServer(verb, func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(3 * time.Second):
		}
	})
}

// boundNode waits until the pod is bound and returns its node.
func boundNode(ctx context.Context, ns, name string) string {
	GinkgoHelper()
	var node string
	Eventually(func(g Gomega) {
		p, err := getPod(ctx, ns, name)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(p.Spec.NodeName).NotTo(BeEmpty(), "pod %s not bound yet", name)
		node = p.Spec.NodeName
	}).WithContext(ctx).WithTimeout(30 * time.Second).WithPolling(100 * time.Millisecond).Should(Succeed())
	return node
}

var _ = Describe("HTTP extenders", func() {
	It("places a pod only on a node that a filtering extender passes, and records its reasons", func(ctx SpecContext) {
		ns := createNamespace(ctx, "ext-filter")
		for _, n := range []string{"ext-filter-1", "ext-filter-2", "ext-filter-3"} {
			createNode(ctx, newNode(n).Label("berth-test", "ext-filter").Obj())
		}
		var allow atomic.Value
		allow.Store("ext-filter-2")
		url := extenderServer("filter", func(w http.ResponseWriter, r *http.Request) {
			args := decodeArgs(r)
			res := extender.FilterResult{Nodes: &corev1.NodeList{}, FailedNodes: map[string]string{}}
			for _, n := range args.Nodes.Items {
				if n.Name == allow.Load() {
					res.Nodes.Items = append(res.Nodes.Items, n)
				} else {
					res.FailedNodes[n.Name] = "vetoed by the test extender"
				}
			}
			_ = json.NewEncoder(w).Encode(res)
		})
		startScheduler(ctx, map[string]*v1alpha1.SchedulingProfileSpec{"ext-filter": {
			Extenders: []v1alpha1.Extender{{URLPrefix: url, FilterVerb: "filter"}},
		}})

		for _, name := range []string{"a", "b", "c"} {
			createPod(ctx, newPod(ns, name).SchedulerName("ext-filter").NodeSelector("berth-test", "ext-filter").Obj())
		}
		for _, name := range []string{"a", "b", "c"} {
			Expect(boundNode(ctx, ns, name)).To(Equal("ext-filter-2"))
		}

		// With the only allowed node gone from the extender's list, the pod
		// is unschedulable and the extender's reason is in its condition.
		allow.Store("none")
		createPod(ctx, newPod(ns, "d").SchedulerName("ext-filter").NodeSelector("berth-test", "ext-filter").Obj())
		Eventually(func(g Gomega) {
			p, err := getPod(ctx, ns, "d")
			g.Expect(err).NotTo(HaveOccurred())
			c := podScheduledCondition(p)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Reason).To(Equal(corev1.PodReasonUnschedulable))
			g.Expect(c.Message).To(ContainSubstring("3 vetoed by the test extender"))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
	}, SpecTimeout(2*time.Minute))

	It("skips an ignorable extender that times out, and fails the cycle on a non-ignorable one", func(ctx SpecContext) {
		ns := createNamespace(ctx, "ext-timeout")
		createNode(ctx, newNode("ext-timeout-1").Label("berth-test", "ext-timeout").Obj())
		url := stallingExtender("filter")
		timeout := &metav1.Duration{Duration: 300 * time.Millisecond}
		startScheduler(ctx, map[string]*v1alpha1.SchedulingProfileSpec{
			"ext-ignorable": {Extenders: []v1alpha1.Extender{{URLPrefix: url, FilterVerb: "filter", HTTPTimeout: timeout, Ignorable: true}}},
			"ext-required":  {Extenders: []v1alpha1.Extender{{URLPrefix: url, FilterVerb: "filter", HTTPTimeout: timeout}}},
		})

		createPod(ctx, newPod(ns, "ignored").SchedulerName("ext-ignorable").NodeSelector("berth-test", "ext-timeout").Obj())
		createPod(ctx, newPod(ns, "blocked").SchedulerName("ext-required").NodeSelector("berth-test", "ext-timeout").Obj())
		Expect(boundNode(ctx, ns, "ignored")).To(Equal("ext-timeout-1"))
		Eventually(func(g Gomega) {
			p, err := getPod(ctx, ns, "blocked")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(p.Spec.NodeName).To(BeEmpty())
			c := podScheduledCondition(p)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Status).To(Equal(corev1.ConditionFalse))
			g.Expect(c.Reason).To(Equal(corev1.PodReasonSchedulerError))
			g.Expect(c.Message).To(And(ContainSubstring("extender "+url), ContainSubstring("failed to filter nodes"), ContainSubstring("Timeout")))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
	}, SpecTimeout(2*time.Minute))

	It("moves pods to the node a weighted prioritizing extender prefers", func(ctx SpecContext) {
		ns := createNamespace(ctx, "ext-score")
		// The preferred node is the fuller one, which the default plugins rank lower.
		createNode(ctx, newNode("ext-score-big").Alloc("cpu", "16", "memory", "64Gi", "pods", "110").Label("berth-test", "ext-score").Obj())
		createNode(ctx, newNode("ext-score-small").Alloc("cpu", "4", "memory", "16Gi", "pods", "110").Label("berth-test", "ext-score").Obj())
		sent := make(chan []string, 16)
		url := extenderServer("prioritize", func(w http.ResponseWriter, r *http.Request) {
			args := decodeArgs(r)
			names := argNodeNames(args)
			select {
			case sent <- names:
			default:
			}
			var list extender.HostPriorityList
			for _, n := range names {
				score := int64(0)
				if n == "ext-score-small" {
					score = extender.MaxPriority
				}
				list = append(list, extender.HostPriority{Host: n, Score: score})
			}
			_ = json.NewEncoder(w).Encode(list)
		})
		startScheduler(ctx, map[string]*v1alpha1.SchedulingProfileSpec{"ext-score": {
			Extenders: []v1alpha1.Extender{{URLPrefix: url, PrioritizeVerb: "prioritize", Weight: 5, NodeCacheCapable: true}},
		}})
		for _, name := range []string{"a", "b", "c"} {
			createPod(ctx, newPod(ns, name).SchedulerName("ext-score").NodeSelector("berth-test", "ext-score").Obj())
			Expect(boundNode(ctx, ns, name)).To(Equal("ext-score-small"))
		}
		var first []string
		Expect(sent).To(Receive(&first))
		Expect(slices.Sorted(slices.Values(first))).To(Equal([]string{"ext-score-big", "ext-score-small"}))
	}, SpecTimeout(2*time.Minute))

	DescribeTable("lets a preempting extender spare a victim, so that another node's pod is preempted",
		func(ctx SpecContext, nodeCache bool) {
			prefix := "ext-preempt"
			if nodeCache {
				prefix = "ext-preempt-cache"
			}
			ns := createNamespace(ctx, prefix)
			createPriorityClass(ctx, prefix+"-low", 10)
			createPriorityClass(ctx, prefix+"-mid", 20)
			createPriorityClass(ctx, prefix+"-high", 1000)
			node1, node2 := prefix+"-1", prefix+"-2"
			for _, n := range []string{node1, node2} {
				createNode(ctx, newNode(n).Alloc("cpu", "2", "memory", "16Gi", "pods", "110").Label("berth-test", prefix).Obj())
			}
			// Without the extender the preemptor evicts "protected" on
			// node 1: its priority is the lower of the two candidates'.
			protected := createPod(ctx, newPod(ns, "protected").Requests("cpu", "2", "memory", "128Mi").PriorityClass(prefix+"-low").NodeName(node1).Obj())
			other := createPod(ctx, newPod(ns, "other").Requests("cpu", "2", "memory", "128Mi").PriorityClass(prefix+"-mid").NodeName(node2).Obj())

			// The extender takes "protected" out of the victims and drops
			// the nodes left without any, as an extender guarding pods would.
			sent := make(chan map[string][]string, 8)
			url := extenderServer("preempt", func(w http.ResponseWriter, r *http.Request) {
				var args extender.PreemptionArgs
				Expect(json.NewDecoder(r.Body).Decode(&args)).To(Succeed())
				candidates := map[string][]string{}
				if nodeCache {
					Expect(args.NodeNameToVictims).To(BeNil())
					for node, v := range args.NodeNameToMetaVictims {
						for _, p := range v.Pods {
							candidates[node] = append(candidates[node], p.UID)
						}
					}
				} else {
					Expect(args.NodeNameToMetaVictims).To(BeNil())
					for node, v := range args.NodeNameToVictims {
						for _, p := range v.Pods {
							candidates[node] = append(candidates[node], string(p.UID))
						}
					}
				}
				res := extender.PreemptionResult{NodeNameToMetaVictims: map[string]*extender.MetaVictims{}}
				for node, uids := range candidates {
					kept := &extender.MetaVictims{}
					for _, uid := range uids {
						if uid != string(protected.UID) {
							kept.Pods = append(kept.Pods, &extender.MetaPod{UID: uid})
						}
					}
					if len(kept.Pods) > 0 {
						res.NodeNameToMetaVictims[node] = kept
					}
				}
				select {
				case sent <- candidates:
				default:
				}
				_ = json.NewEncoder(w).Encode(res)
			})
			startScheduler(ctx, map[string]*v1alpha1.SchedulingProfileSpec{prefix: {
				Extenders: []v1alpha1.Extender{{URLPrefix: url, PreemptVerb: "preempt", NodeCacheCapable: nodeCache}},
			}})

			pod := createPod(ctx, newPod(ns, "urgent").SchedulerName(prefix).Requests("cpu", "2", "memory", "128Mi").
				PriorityClass(prefix+"-high").NodeSelector("berth-test", prefix).Obj())
			// The extender was offered both candidates, the one the
			// scheduler would have chosen included.
			var got map[string][]string
			Eventually(sent).WithTimeout(20 * time.Second).Should(Receive(&got))
			Expect(got).To(Equal(map[string][]string{node1: {string(protected.UID)}, node2: {string(other.UID)}}))

			Eventually(func() ([]string, error) { return terminatingPods(ctx, ns) }).
				WithContext(ctx).WithTimeout(20 * time.Second).Should(ConsistOf("other"))
			Eventually(func(g Gomega) {
				p, err := getPod(ctx, ns, pod.Name)
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(p.Status.NominatedNodeName).To(Equal(node2))
			}).WithContext(ctx).WithTimeout(10 * time.Second).Should(Succeed())
			finishTermination(ctx, ns)
			Expect(boundNode(ctx, ns, pod.Name)).To(Equal(node2))
			p, err := getPod(ctx, ns, protected.Name)
			Expect(err).NotTo(HaveOccurred())
			Expect(p.DeletionTimestamp).To(BeNil())
			Expect(p.Spec.NodeName).To(Equal(node1))
		},
		Entry("with full pods", SpecTimeout(2*time.Minute), false),
		Entry("with UIDs, for an extender that caches nodes", SpecTimeout(2*time.Minute), true))

	It("lets a binding extender bind the pods it manages", func(ctx SpecContext) {
		ns := createNamespace(ctx, "ext-bind")
		createNode(ctx, newNode("ext-bind-1").Alloc("cpu", "4", "memory", "16Gi", "pods", "110", "example.com/gpu", "2").Label("berth-test", "ext-bind").Obj())
		calls := make(chan extender.BindingArgs, 4)
		url := extenderServer("bind", func(w http.ResponseWriter, r *http.Request) {
			var args extender.BindingArgs
			Expect(json.NewDecoder(r.Body).Decode(&args)).To(Succeed())
			err := clientset.CoreV1().Pods(args.PodNamespace).Bind(r.Context(), &corev1.Binding{
				ObjectMeta: metav1.ObjectMeta{Namespace: args.PodNamespace, Name: args.PodName, UID: args.PodUID},
				Target:     corev1.ObjectReference{Kind: "Node", Name: args.Node},
			}, metav1.CreateOptions{})
			res := extender.BindingResult{}
			if err != nil {
				res.Error = err.Error()
			}
			calls <- args
			_ = json.NewEncoder(w).Encode(res)
		})
		startScheduler(ctx, map[string]*v1alpha1.SchedulingProfileSpec{"ext-bind": {
			Extenders: []v1alpha1.Extender{{URLPrefix: url, BindVerb: "bind",
				ManagedResources: []v1alpha1.ExtenderManagedResource{{Name: "example.com/gpu"}}}},
		}})

		createPod(ctx, newPod(ns, "gpu").SchedulerName("ext-bind").Requests("cpu", "100m", "example.com/gpu", "1").Limit("example.com/gpu", "1").NodeSelector("berth-test", "ext-bind").Obj())
		Expect(boundNode(ctx, ns, "gpu")).To(Equal("ext-bind-1"))
		var got extender.BindingArgs
		Eventually(calls).Should(Receive(&got))
		Expect(got.PodName).To(Equal("gpu"))
		Expect(got.PodNamespace).To(Equal(ns))
		Expect(got.Node).To(Equal("ext-bind-1"))

		// A pod without the managed resource is bound by DefaultBinder.
		createPod(ctx, newPod(ns, "plain").SchedulerName("ext-bind").NodeSelector("berth-test", "ext-bind").Obj())
		Expect(boundNode(ctx, ns, "plain")).To(Equal("ext-bind-1"))
		Consistently(calls).WithTimeout(time.Second).ShouldNot(Receive())
	}, SpecTimeout(2*time.Minute))
})
