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
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-io/berth/api/v1alpha1"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// pluginCase is a cluster in which one plugin alone decides where a pod
// goes: onto exactly wantNode, or nowhere with wantMessage as the condition.
type pluginCase struct {
	// nodes are the cluster's nodes, named by the case.
	nodes func(prefix string) []*st.NodeBuilder
	// setup creates what the pod meets besides nodes: bound pods, volumes.
	setup func(ctx context.Context, ns, prefix string)
	// profile replaces the default profile when set.
	profile *v1alpha1.SchedulingProfileSpec
	// pod is the pod under test.
	pod func(ns, prefix string) *st.PodBuilder
	// wantNode is the suffix of the one node the pod must be bound to.
	wantNode string
	// wantMessage is the PodScheduled message of a pod that fits nowhere.
	wantMessage string
}

// threeNodes returns nodes <prefix>-a, -b and -c, each shaped by its function.
func threeNodes(a, b, c func(*st.NodeBuilder) *st.NodeBuilder) func(string) []*st.NodeBuilder {
	return func(prefix string) []*st.NodeBuilder {
		return []*st.NodeBuilder{a(newNode(prefix + "-a")), b(newNode(prefix + "-b")), c(newNode(prefix + "-c"))}
	}
}

func plain(b *st.NodeBuilder) *st.NodeBuilder { return b }

func cordoned(b *st.NodeBuilder) *st.NodeBuilder { return b.Unschedulable(true) }

func tainted(key, value string) func(*st.NodeBuilder) *st.NodeBuilder {
	return func(b *st.NodeBuilder) *st.NodeBuilder { return b.Taint(key, value, corev1.TaintEffectNoSchedule) }
}

func zoned(z string) func(*st.NodeBuilder) *st.NodeBuilder {
	return func(b *st.NodeBuilder) *st.NodeBuilder { return b.Zone(z) }
}

// boundPods creates one running pod per listed node suffix.
func boundPods(build func(ns, name string) *st.PodBuilder, nodes ...string) func(context.Context, string, string) {
	return func(ctx context.Context, ns, prefix string) {
		for i, n := range nodes {
			createPod(ctx, build(ns, fmt.Sprintf("existing-%d", i)).NodeName(prefix+"-"+n).Obj())
		}
	}
}

// onlyScoring enables a single Score plugin, so it alone ranks the nodes.
func onlyScoring(plugin string) *v1alpha1.SchedulingProfileSpec {
	return &v1alpha1.SchedulingProfileSpec{Plugins: &v1alpha1.Plugins{Score: &v1alpha1.PluginSet{
		Disabled: []v1alpha1.Plugin{{Name: "*"}},
		Enabled:  []v1alpha1.Plugin{{Name: plugin}},
	}}}
}

const (
	testCSIDriver     = "csi.test.berth.io"
	restartAllFeature = "RestartAllContainersOnContainerExits"
)

// pluginCases names, per plugin, a case where the pod fits exactly one node
// because of it and a case where it fits none, with upstream's reason.
var pluginCases = map[string][]pluginCase{
	"NodeResourcesFit": {{
		nodes:    threeNodes(func(b *st.NodeBuilder) *st.NodeBuilder { return b.Alloc("cpu", "1", "memory", "4Gi", "pods", "110") }, func(b *st.NodeBuilder) *st.NodeBuilder { return b.Alloc("cpu", "1", "memory", "4Gi", "pods", "110") }, plain),
		pod:      func(ns, _ string) *st.PodBuilder { return newPod(ns, "p").Requests("cpu", "2") },
		wantNode: "c",
	}, {
		nodes:       threeNodes(plain, plain, plain),
		pod:         func(ns, _ string) *st.PodBuilder { return newPod(ns, "p").Requests("cpu", "8", "memory", "64Gi") },
		wantMessage: "0/3 nodes are available: 3 Insufficient cpu, 3 Insufficient memory.",
	}},
	"NodeUnschedulable": {{
		nodes:    threeNodes(cordoned, cordoned, plain),
		pod:      func(ns, _ string) *st.PodBuilder { return newPod(ns, "p") },
		wantNode: "c",
	}, {
		nodes:       threeNodes(cordoned, cordoned, cordoned),
		pod:         func(ns, _ string) *st.PodBuilder { return newPod(ns, "p") },
		wantMessage: "0/3 nodes are available: 3 node(s) were unschedulable.",
	}},
	"TaintToleration": {{
		nodes: threeNodes(tainted("team", "a"), tainted("team", "b"), tainted("team", "c")),
		pod: func(ns, _ string) *st.PodBuilder {
			return newPod(ns, "p").TolerateTaint("team", "c", corev1.TaintEffectNoSchedule)
		},
		wantNode: "c",
	}, {
		nodes: threeNodes(tainted("team", "a"), tainted("team", "b"), tainted("team", "c")),
		pod: func(ns, _ string) *st.PodBuilder {
			return newPod(ns, "p").TolerateTaint("team", "d", corev1.TaintEffectNoSchedule)
		},
		wantMessage: "0/3 nodes are available: 3 node(s) had untolerated taint(s).",
	}},
	"NodeAffinity": {{
		nodes:    threeNodes(plain, plain, func(b *st.NodeBuilder) *st.NodeBuilder { return b.Label("disk", "ssd") }),
		pod:      func(ns, _ string) *st.PodBuilder { return newPod(ns, "p").NodeSelector("disk", "ssd") },
		wantNode: "c",
	}, {
		nodes:       threeNodes(plain, plain, func(b *st.NodeBuilder) *st.NodeBuilder { return b.Label("disk", "ssd") }),
		pod:         func(ns, _ string) *st.PodBuilder { return newPod(ns, "p").NodeSelector("disk", "nvme") },
		wantMessage: "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.",
	}},
	"NodePorts": {{
		nodes:    threeNodes(plain, plain, plain),
		setup:    boundPods(func(ns, name string) *st.PodBuilder { return newPod(ns, name).HostPort(8080) }, "a", "b"),
		pod:      func(ns, _ string) *st.PodBuilder { return newPod(ns, "p").HostPort(8080) },
		wantNode: "c",
	}, {
		nodes:       threeNodes(plain, plain, plain),
		setup:       boundPods(func(ns, name string) *st.PodBuilder { return newPod(ns, name).HostPort(8080) }, "a", "b", "c"),
		pod:         func(ns, _ string) *st.PodBuilder { return newPod(ns, "p").HostPort(8080) },
		wantMessage: "0/3 nodes are available: 3 node(s) didn't have free ports for the requested pod ports.",
	}},
	"ImageLocality": {{
		nodes:    threeNodes(plain, plain, func(b *st.NodeBuilder) *st.NodeBuilder { return b.Image(900<<20, "registry.example/big:1") }),
		pod:      func(ns, _ string) *st.PodBuilder { return newPod(ns, "p").Image("registry.example/big:1") },
		wantNode: "c",
	}},
	"NodeResourcesBalancedAllocation": {{
		// A 1 CPU / 1Gi pod uses a quarter of both on c only.
		nodes: threeNodes(
			func(b *st.NodeBuilder) *st.NodeBuilder { return b.Alloc("cpu", "4", "memory", "16Gi", "pods", "110") },
			func(b *st.NodeBuilder) *st.NodeBuilder { return b.Alloc("cpu", "4", "memory", "8Gi", "pods", "110") },
			func(b *st.NodeBuilder) *st.NodeBuilder { return b.Alloc("cpu", "4", "memory", "4Gi", "pods", "110") }),
		profile:  onlyScoring("NodeResourcesBalancedAllocation"),
		pod:      func(ns, _ string) *st.PodBuilder { return newPod(ns, "p").Requests("cpu", "1", "memory", "1Gi") },
		wantNode: "c",
	}},
	"DynamicResources": {{
		nodes:    threeNodes(plain, plain, plain),
		setup:    draSetup(1),
		pod:      func(ns, _ string) *st.PodBuilder { return newPod(ns, "p").ResourceClaims("gpu") },
		wantNode: "c",
	}, {
		nodes:       threeNodes(plain, plain, plain),
		setup:       draSetup(2),
		pod:         func(ns, _ string) *st.PodBuilder { return newPod(ns, "p").ResourceClaims("gpu") },
		wantMessage: "0/3 nodes are available: 3 cannot allocate all claims.",
	}},
	"NodeDeclaredFeatures": {{
		nodes: threeNodes(plain, func(b *st.NodeBuilder) *st.NodeBuilder { return b.DeclaredFeatures("Other") }, func(b *st.NodeBuilder) *st.NodeBuilder { return b.DeclaredFeatures(restartAllFeature) }),
		pod: func(ns, _ string) *st.PodBuilder {
			return newPod(ns, "p").ContainerRestart(corev1.ContainerRestartPolicyNever, restartAllOn42)
		},
		wantNode: "c",
	}, {
		nodes: threeNodes(plain, plain, func(b *st.NodeBuilder) *st.NodeBuilder { return b.DeclaredFeatures("Other") }),
		pod: func(ns, _ string) *st.PodBuilder {
			return newPod(ns, "p").ContainerRestart(corev1.ContainerRestartPolicyNever, restartAllOn42)
		},
		wantMessage: "0/3 nodes are available: 3 node(s) didn't match Pod's required features.",
	}},
	"InterPodAffinity": {{
		nodes: threeNodes(plain, plain, plain),
		setup: boundPods(func(ns, name string) *st.PodBuilder { return newPod(ns, name).Label("app", "db") }, "c"),
		pod: func(ns, _ string) *st.PodBuilder {
			return newPod(ns, "p").PodAffinity(st.Term(corev1.LabelHostname, "app", "db"))
		},
		wantNode: "c",
	}, {
		nodes: threeNodes(plain, plain, plain),
		setup: boundPods(func(ns, name string) *st.PodBuilder { return newPod(ns, name).Label("app", "web") }, "a", "b"),
		pod: func(ns, _ string) *st.PodBuilder {
			return newPod(ns, "p").PodAntiAffinity(st.Term(corev1.LabelHostname, "app", "web"))
		},
		wantNode: "c",
	}, {
		// The matching pod lives in another namespace, found by its labels.
		nodes: threeNodes(plain, plain, plain),
		setup: func(ctx context.Context, _, prefix string) {
			other := createLabelledNamespace(ctx, prefix+"-db", "team", prefix)
			createPod(ctx, newPod(other, "db").Label("app", "db").NodeName(prefix+"-c").Obj())
		},
		pod: func(ns, prefix string) *st.PodBuilder {
			return newPod(ns, "p").PodAffinity(st.Term(corev1.LabelHostname, "app", "db").NamespaceSelector("team", prefix))
		},
		wantNode: "c",
	}, {
		nodes: threeNodes(plain, plain, plain),
		pod: func(ns, _ string) *st.PodBuilder {
			return newPod(ns, "p").PodAffinity(st.Term(corev1.LabelHostname, "app", "db"))
		},
		wantMessage: "0/3 nodes are available: 3 node(s) didn't match pod affinity rules.",
	}, {
		nodes: threeNodes(zoned("z1"), zoned("z1"), zoned("z1")),
		setup: boundPods(func(ns, name string) *st.PodBuilder {
			return newPod(ns, name).Label("app", "db").PodAntiAffinity(st.Term(corev1.LabelTopologyZone, "app", "web"))
		}, "a"),
		pod:         func(ns, _ string) *st.PodBuilder { return newPod(ns, "p").Label("app", "web") },
		wantMessage: "0/3 nodes are available: 3 node(s) didn't satisfy existing pods anti-affinity rules.",
	}},
	"PodTopologySpread": {{
		nodes: threeNodes(zoned("z1"), zoned("z1"), zoned("z2")),
		setup: boundPods(func(ns, name string) *st.PodBuilder { return newPod(ns, name).Label("app", "web") }, "a"),
		pod: func(ns, _ string) *st.PodBuilder {
			return newPod(ns, "p").Label("app", "web").Spread(1, corev1.LabelTopologyZone, corev1.DoNotSchedule, st.Selector("app", "web"))
		},
		wantNode: "c",
	}, {
		nodes: threeNodes(plain, plain, plain),
		pod: func(ns, _ string) *st.PodBuilder {
			return newPod(ns, "p").Label("app", "web").Spread(1, corev1.LabelTopologyZone, corev1.DoNotSchedule, st.Selector("app", "web"))
		},
		wantMessage: "0/3 nodes are available: 3 node(s) didn't match pod topology spread constraints (missing required label).",
	}},
	"VolumeRestrictions": {{
		nodes:    threeNodes(plain, plain, plain),
		setup:    boundPods(func(ns, name string) *st.PodBuilder { return newPod(ns, name).Volume("disk-1", gcePD("disk-1")) }, "a", "b"),
		pod:      func(ns, _ string) *st.PodBuilder { return newPod(ns, "p").Volume("disk-1", gcePD("disk-1")) },
		wantNode: "c",
	}, {
		nodes:       threeNodes(plain, plain, plain),
		setup:       boundPods(func(ns, name string) *st.PodBuilder { return newPod(ns, name).Volume("disk-1", gcePD("disk-1")) }, "a", "b", "c"),
		pod:         func(ns, _ string) *st.PodBuilder { return newPod(ns, "p").Volume("disk-1", gcePD("disk-1")) },
		wantMessage: "0/3 nodes are available: 3 node(s) had no available disk.",
	}},
	"VolumeZone": {{
		nodes: threeNodes(zoned("z1"), zoned("z1"), zoned("z2")),
		setup: func(ctx context.Context, ns, prefix string) {
			newPV(prefix+"-pv").zone("z2").boundTo(ctx, ns, "data")
		},
		pod:      func(ns, _ string) *st.PodBuilder { return newPod(ns, "p").PVC("data") },
		wantNode: "c",
	}, {
		nodes: threeNodes(zoned("z1"), zoned("z1"), zoned("z2")),
		setup: func(ctx context.Context, ns, prefix string) {
			newPV(prefix+"-pv").zone("z3").boundTo(ctx, ns, "data")
		},
		pod:         func(ns, _ string) *st.PodBuilder { return newPod(ns, "p").PVC("data") },
		wantMessage: "0/3 nodes are available: 3 node(s) had no available volume zone.",
	}},
	"VolumeBinding": {{
		nodes: threeNodes(plain, plain, plain),
		setup: func(ctx context.Context, ns, prefix string) {
			newPV(prefix+"-pv").onlyOn(prefix+"-c").boundTo(ctx, ns, "data")
		},
		pod:      func(ns, _ string) *st.PodBuilder { return newPod(ns, "p").PVC("data") },
		wantNode: "c",
	}, {
		nodes: threeNodes(plain, plain, plain),
		setup: func(ctx context.Context, ns, prefix string) {
			newPV(prefix+"-pv").onlyOn(prefix+"-gone").boundTo(ctx, ns, "data")
		},
		pod:         func(ns, _ string) *st.PodBuilder { return newPod(ns, "p").PVC("data") },
		wantMessage: "0/3 nodes are available: 3 node(s) didn't match PersistentVolume's node affinity.",
	}},
	"NodeVolumeLimits": {{
		nodes: threeNodes(plain, plain, plain),
		setup: func(ctx context.Context, ns, prefix string) {
			for _, n := range []string{"a", "b", "c"} {
				createCSINode(ctx, prefix+"-"+n, testCSIDriver, 1)
			}
			for _, n := range []string{"a", "b"} {
				newPV(prefix+"-used-"+n).csi(testCSIDriver).boundTo(ctx, ns, "used-"+n)
				createPod(ctx, newPod(ns, "existing-"+n).PVC("used-"+n).NodeName(prefix+"-"+n).Obj())
			}
			newPV(prefix+"-pv").csi(testCSIDriver).boundTo(ctx, ns, "data")
		},
		pod:      func(ns, _ string) *st.PodBuilder { return newPod(ns, "p").PVC("data") },
		wantNode: "c",
	}, {
		nodes: threeNodes(plain, plain, plain),
		setup: func(ctx context.Context, ns, prefix string) {
			for _, n := range []string{"a", "b", "c"} {
				createCSINode(ctx, prefix+"-"+n, testCSIDriver, 0)
			}
			newPV(prefix+"-pv").csi(testCSIDriver).boundTo(ctx, ns, "data")
		},
		pod:         func(ns, _ string) *st.PodBuilder { return newPod(ns, "p").PVC("data") },
		wantMessage: "0/3 nodes are available: 3 node(s) exceed max volume count.",
	}},
}

var _ = Describe("each in-tree plugin deciding the outcome", func() {
	for plugin, cases := range pluginCases {
		for i, c := range cases {
			name := fmt.Sprintf("%s #%d: the pod fits exactly one node", plugin, i+1)
			if c.wantMessage != "" {
				name = fmt.Sprintf("%s #%d: the pod fits nowhere, with upstream's reason", plugin, i+1)
			}
			It(name, func(ctx SpecContext) {
				runPluginCase(ctx, fmt.Sprintf("%s-%d", lowerName(plugin), i+1), c)
			}, SpecTimeout(time.Minute))
		}
	}
})

// runPluginCase builds the case's cluster, starts a scheduler and checks where the pod went.
func runPluginCase(ctx context.Context, prefix string, c pluginCase) {
	GinkgoHelper()
	ns := createNamespace(ctx, prefix)
	for _, n := range c.nodes(prefix) {
		createNode(ctx, n.Obj())
	}
	if c.setup != nil {
		c.setup(ctx, ns, prefix)
	}
	profile := c.profile
	if profile == nil {
		profile = defaultProfile()
	}
	startScheduler(ctx, map[string]*v1alpha1.SchedulingProfileSpec{corev1.DefaultSchedulerName: profile})
	pod := createPod(ctx, c.pod(ns, prefix).Obj())

	if c.wantMessage != "" {
		Eventually(func(g Gomega) {
			got, err := getPod(ctx, ns, pod.Name)
			g.Expect(err).NotTo(HaveOccurred())
			cond := podScheduledCondition(got)
			g.Expect(cond).NotTo(BeNil())
			g.Expect(cond.Reason).To(Equal(corev1.PodReasonUnschedulable))
			g.Expect(cond.Message).To(HavePrefix(c.wantMessage))
		}).WithContext(ctx).WithTimeout(20 * time.Second).Should(Succeed())
		Consistently(func() string {
			got, err := getPod(ctx, ns, pod.Name)
			Expect(err).NotTo(HaveOccurred())
			return got.Spec.NodeName
		}).WithContext(ctx).WithTimeout(time.Second).Should(BeEmpty())
		return
	}
	Eventually(func() (string, error) {
		got, err := getPod(ctx, ns, pod.Name)
		if err != nil {
			return "", err
		}
		return got.Spec.NodeName, nil
	}).WithContext(ctx).WithTimeout(20 * time.Second).Should(Equal(prefix + "-" + c.wantNode))
}

// createPriorityClass creates a PriorityClass for the spec.
func createPriorityClass(ctx context.Context, name string, value int32) {
	GinkgoHelper()
	classes := clientset.SchedulingV1().PriorityClasses()
	_, err := classes.Create(ctx, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred(), "creating PriorityClass %s", name)
	DeferCleanup(func(ctx SpecContext) {
		Expect(classes.Delete(ctx, name, metav1.DeleteOptions{})).To(Succeed())
	})
}

// lowerName turns a plugin name into a prefix fit for object names.
func lowerName(plugin string) string {
	out := make([]rune, 0, len(plugin))
	for _, r := range plugin {
		if r >= 'A' && r <= 'Z' {
			r += 'a' - 'A'
		}
		out = append(out, r)
	}
	return string(out)
}

var _ = Describe("plugins that decide when, not where", func() {
	It("SchedulingGates: a gated pod waits while a node fits, and binds once its gate is removed", func(ctx SpecContext) {
		ns := createNamespace(ctx, "schedulinggates")
		createNode(ctx, newNode("schedulinggates-a").Obj())
		startScheduler(ctx, map[string]*v1alpha1.SchedulingProfileSpec{corev1.DefaultSchedulerName: defaultProfile()})
		pod := createPod(ctx, newPod(ns, "gated").Gates("example.com/quota").Obj())

		Consistently(func() string {
			got, err := getPod(ctx, ns, pod.Name)
			Expect(err).NotTo(HaveOccurred())
			return got.Spec.NodeName
		}).WithContext(ctx).WithTimeout(2 * time.Second).Should(BeEmpty())
		got, err := getPod(ctx, ns, pod.Name)
		Expect(err).NotTo(HaveOccurred())
		Expect(podScheduledCondition(got)).To(HaveField("Reason", corev1.PodReasonSchedulingGated))

		got.Spec.SchedulingGates = nil
		_, err = clientset.CoreV1().Pods(ns).Update(ctx, got, metav1.UpdateOptions{})
		Expect(err).NotTo(HaveOccurred())
		Eventually(func() (string, error) {
			got, err := getPod(ctx, ns, pod.Name)
			if err != nil {
				return "", err
			}
			return got.Spec.NodeName, nil
		}).WithContext(ctx).WithTimeout(10 * time.Second).Should(Equal("schedulinggates-a"))
	}, SpecTimeout(time.Minute))

	It("PrioritySort: of two pending pods that want the last slot, the higher priority one gets it", func(ctx SpecContext) {
		ns := createNamespace(ctx, "prioritysort")
		createNode(ctx, newNode("prioritysort-a").Alloc("cpu", "1", "memory", "4Gi", "pods", "110").Obj())
		createPriorityClass(ctx, "prioritysort-low", 10)
		createPriorityClass(ctx, "prioritysort-high", 1000)
		low := createPod(ctx, newPod(ns, "low").PriorityClass("prioritysort-low").Requests("cpu", "1").Obj())
		high := createPod(ctx, newPod(ns, "high").PriorityClass("prioritysort-high").Requests("cpu", "1").Obj())
		// Both are queued before the first cycle runs.
		startScheduler(ctx, map[string]*v1alpha1.SchedulingProfileSpec{corev1.DefaultSchedulerName: defaultProfile()})

		Eventually(func() (string, error) {
			got, err := getPod(ctx, ns, high.Name)
			if err != nil {
				return "", err
			}
			return got.Spec.NodeName, nil
		}).WithContext(ctx).WithTimeout(10 * time.Second).Should(Equal("prioritysort-a"))
		got, err := getPod(ctx, ns, low.Name)
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Spec.NodeName).To(BeEmpty())
	}, SpecTimeout(time.Minute))
})
