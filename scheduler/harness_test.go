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

package scheduler

import (
	"context"
	"testing"
	"time"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/workload"
)

// harness is a Scheduler on a fake client whose cycles the test drives:
// the one way the loop's tests build a scheduler.
type harness struct {
	t      testing.TB
	ctx    context.Context
	s      *Scheduler
	client *fake.Clientset
	// clock is the scheduler's clock, with withFakeClock; nil otherwise.
	clock *testingclock.FakeClock
}

// harnessConfig is what newHarness builds.
type harnessConfig struct {
	objs      []runtime.Object
	opts      []Option
	resources []*metav1.APIResourceList
	// profiles are installed in order; none installs the default profile
	// under default-scheduler.
	profiles  []harnessProfile
	noProfile bool
	nodes     []*v1.Node
	bound     []*v1.Pod
	fakeClock bool
}

type harnessProfile struct {
	schedulerName, source string
	spec                  *v1alpha1.SchedulingProfileSpec
}

// harnessOption configures newHarness.
type harnessOption func(*harnessConfig)

// withObjects puts objects in the fake client.
func withObjects(objs ...runtime.Object) harnessOption {
	return func(c *harnessConfig) { c.objs = append(c.objs, objs...) }
}

// withOptions adds scheduler options to the harness's own (a seed, the
// in-tree registry, a fake clock).
func withOptions(opts ...Option) harnessOption {
	return func(c *harnessConfig) { c.opts = append(c.opts, opts...) }
}

// servingPodGroups makes the fake apiserver serve scheduling.k8s.io
// PodGroups and, with composite, CompositePodGroups, which the scheduler
// then follows.
func servingPodGroups(composite bool) harnessOption {
	return func(c *harnessConfig) {
		c.resources = append(c.resources, &metav1.APIResourceList{
			GroupVersion: workload.GroupVersion.String(),
			APIResources: []metav1.APIResource{{Name: "podgroups", Kind: "PodGroup", Namespaced: true}},
		})
		if composite {
			c.resources = append(c.resources, &metav1.APIResourceList{
				GroupVersion: workload.CompositeGroupVersion.String(),
				APIResources: []metav1.APIResource{{Name: "compositepodgroups", Kind: "CompositePodGroup", Namespaced: true}},
			})
			c.opts = append(c.opts, WithCompositePodGroups(true))
		}
	}
}

// withProfile installs spec as the live profile of schedulerName, compiled
// from the SchedulingProfile source at generation 1.
func withProfile(schedulerName, source string, spec *v1alpha1.SchedulingProfileSpec) harnessOption {
	return func(c *harnessConfig) {
		c.profiles = append(c.profiles, harnessProfile{schedulerName: schedulerName, source: source, spec: spec})
	}
}

// withFakeClock gives the scheduler a fake clock, in harness.clock.
func withFakeClock() harnessOption { return func(c *harnessConfig) { c.fakeClock = true } }

// withoutProfile installs no profile.
func withoutProfile() harnessOption { return func(c *harnessConfig) { c.noProfile = true } }

// withNodes puts nodes in the cache.
func withNodes(nodes ...*v1.Node) harnessOption {
	return func(c *harnessConfig) { c.nodes = append(c.nodes, nodes...) }
}

// withBound puts bound pods in the cache.
func withBound(pods ...*v1.Pod) harnessOption {
	return func(c *harnessConfig) { c.bound = append(c.bound, pods...) }
}

// newHarness builds a scheduler with seed 1, the in-tree plugins and,
// unless told otherwise, the default profile under default-scheduler.
func newHarness(t testing.TB, opts ...harnessOption) *harness {
	t.Helper()
	var c harnessConfig
	for _, o := range opts {
		o(&c)
	}
	ctx := klog.NewContext(context.Background(), logr.Discard())
	client := fake.NewClientset(c.objs...)
	client.Resources = c.resources
	own := []Option{WithSeed(1), inTree()}
	var clk *testingclock.FakeClock
	if c.fakeClock {
		clk = testingclock.NewFakeClock(time.Date(2026, 11, 28, 8, 0, 0, 0, time.UTC))
		own = append(own, WithClock(clk))
	}
	s, err := New(ctx, client, append(own, c.opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.profiles) == 0 && !c.noProfile {
		c.profiles = []harnessProfile{{schedulerName: v1.DefaultSchedulerName, source: "default", spec: &v1alpha1.SchedulingProfileSpec{}}}
	}
	for _, p := range c.profiles {
		if err := s.SetProfile(ctx, p.schedulerName, p.source, 1, p.spec); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range c.nodes {
		s.cache.AddNode(logr.Discard(), n)
	}
	for _, p := range c.bound {
		if err := s.cache.AddPod(logr.Discard(), p); err != nil {
			t.Fatal(err)
		}
	}
	return &harness{t: t, ctx: ctx, s: s, client: client, clock: clk}
}

// run puts the groups and pods in the informers and the API, queues every
// pod, pops one and runs its cycle, and waits for the bindings it started.
func (h *harness) run(cpgs []*schedulingv1alpha3.CompositePodGroup, pgs []*schedulingv1beta1.PodGroup, pods []*v1.Pod) {
	h.t.Helper()
	h.add(cpgs, pgs, pods)
	for _, p := range pods {
		h.s.queue.Add(logr.Discard(), p)
	}
	h.client.ClearActions()
	h.cycle()
}

// add puts the groups and pods in the informers and the API.
func (h *harness) add(cpgs []*schedulingv1alpha3.CompositePodGroup, pgs []*schedulingv1beta1.PodGroup, pods []*v1.Pod) {
	h.t.Helper()
	groups := h.s.workloads
	for _, cpg := range cpgs {
		if err := groups.CompositeInformer().GetStore().Add(cpg); err != nil {
			h.t.Fatal(err)
		}
	}
	for _, pg := range pgs {
		if err := groups.Informer().GetStore().Add(pg); err != nil {
			h.t.Fatal(err)
		}
		if _, err := h.client.SchedulingV1beta1().PodGroups(pg.Namespace).Create(h.ctx, pg, metav1.CreateOptions{}); err != nil {
			h.t.Fatal(err)
		}
	}
	h.addPods(pods...)
}

// addPods puts pods in the pod informer and the API.
func (h *harness) addPods(pods ...*v1.Pod) {
	h.t.Helper()
	for _, p := range pods {
		if err := h.s.informerFactory.Core().V1().Pods().Informer().GetIndexer().Add(p); err != nil {
			h.t.Fatal(err)
		}
		if _, err := h.client.CoreV1().Pods(p.Namespace).Create(h.ctx, p, metav1.CreateOptions{}); err != nil {
			h.t.Fatal(err)
		}
	}
}

// cycle pops a member of a group and runs its group's cycle.
func (h *harness) cycle() {
	h.t.Helper()
	h.startCycle()
	h.s.bindings.Wait()
}

// startCycle pops a member of a group and runs its group's cycle, leaving
// the bindings and writes it started under way.
func (h *harness) startCycle() {
	h.t.Helper()
	qpi, err := h.s.queue.Pop(logr.Discard())
	if err != nil {
		h.t.Fatal(err)
	}
	ref, _ := framework.GroupRefOf(qpi.Pod)
	h.s.scheduleGroup(h.ctx, h.s.profiles.Get(v1.DefaultSchedulerName), qpi, ref, h.s.queue.SchedulingCycle())
}

// scheduleOne queues the pod and runs the loop's next cycle, and waits for
// the bindings it started.
func (h *harness) scheduleOne(pod *v1.Pod) {
	h.t.Helper()
	h.s.queue.Add(logr.Discard(), pod)
	h.s.scheduleOne(h.ctx)
	h.s.bindings.Wait()
}

// bound returns the pods bound since the client's actions were cleared,
// with their nodes.
func (h *harness) bound() map[string]string {
	out := map[string]string{}
	for _, a := range h.client.Actions() {
		if c, ok := a.(clienttesting.CreateAction); ok && a.GetSubresource() == "binding" {
			b := c.GetObject().(*v1.Binding)
			out[b.Name] = b.Target.Name
		}
	}
	return out
}

// groupCondition returns the PodGroup's PodGroupInitiallyScheduled condition.
func (h *harness) groupCondition(name string) *metav1.Condition {
	h.t.Helper()
	pg, err := h.client.SchedulingV1beta1().PodGroups("default").Get(h.ctx, name, metav1.GetOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	return apimeta.FindStatusCondition(pg.Status.Conditions, schedulingv1beta1.PodGroupInitiallyScheduled)
}

// podMessage returns the message of the pod's PodScheduled condition.
func (h *harness) podMessage(name string) string {
	h.t.Helper()
	p, err := h.client.CoreV1().Pods("default").Get(h.ctx, name, metav1.GetOptions{})
	if err != nil {
		h.t.Fatal(err)
	}
	if c := podScheduledCondition(p); c != nil {
		return c.Message
	}
	return ""
}

// wantCondition checks a PodGroup's condition's status, reason and message.
func (h *harness) wantCondition(name string, status metav1.ConditionStatus, reason, message string) {
	h.t.Helper()
	c := h.groupCondition(name)
	if c == nil {
		h.t.Fatalf("PodGroup %s has no PodGroupInitiallyScheduled condition", name)
	}
	if c.Status != status || c.Reason != reason || c.Message != message {
		h.t.Errorf("PodGroup %s: condition %s/%s %q, want %s/%s %q", name, c.Status, c.Reason, c.Message, status, reason, message)
	}
}
