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
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins"
	schedruntime "github.com/berth-io/berth/scheduler/framework/runtime"
	"github.com/berth-io/berth/test/envsuite"
)

// startScheduler runs a scheduler with the given profiles (scheduler name →
// spec) until the spec ends.
func startScheduler(ctx context.Context, profiles map[string]*v1alpha1.SchedulingProfileSpec, opts ...scheduler.Option) *scheduler.Scheduler {
	GinkgoHelper()
	s, _ := startStoppableScheduler(ctx, profiles, opts...)
	return s
}

// startStoppableScheduler is startScheduler that also returns a function
// which stops the scheduler and waits until Start has returned.
func startStoppableScheduler(ctx context.Context, profiles map[string]*v1alpha1.SchedulingProfileSpec, opts ...scheduler.Option) (*scheduler.Scheduler, func()) {
	GinkgoHelper()
	runCtx, cancel := context.WithCancel(klog.NewContext(context.WithoutCancel(ctx), envsuite.Logger()))
	// The in-tree plugins, unless opts name another registry.
	s, err := scheduler.New(runCtx, clientset, append([]scheduler.Option{scheduler.WithRegistry(schedruntime.Registry(plugins.NewInTreeRegistry()))}, opts...)...)
	Expect(err).NotTo(HaveOccurred())
	for name, spec := range profiles {
		Expect(s.SetProfile(runCtx, name, name, 1, spec)).To(Succeed(), "installing profile %s", name)
	}
	done := make(chan error, 1)
	go func() { done <- s.Start(runCtx) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			Eventually(done).WithTimeout(30 * time.Second).Should(Receive(BeNil()))
		})
	}
	DeferCleanup(stop)
	Expect(s.WaitForCacheSync(ctx)).To(BeTrue())
	return s, stop
}

// defaultProfile is upstream's default profile.
func defaultProfile() *v1alpha1.SchedulingProfileSpec { return &v1alpha1.SchedulingProfileSpec{} }

// binPackingProfile scores nodes by NodeResourcesFit's MostAllocated strategy.
func binPackingProfile() *v1alpha1.SchedulingProfileSpec {
	return &v1alpha1.SchedulingProfileSpec{
		PluginConfig: []v1alpha1.PluginConfig{{
			Name: "NodeResourcesFit",
			Args: runtime.RawExtension{Raw: []byte(`{"scoringStrategy":{"type":"MostAllocated","resources":[{"name":"cpu","weight":1},{"name":"memory","weight":1}]}}`)},
		}},
	}
}

// withPermitAndPreBind enables the hold plugin of h at Permit and PreBind.
func withPermitAndPreBind(spec *v1alpha1.SchedulingProfileSpec) *v1alpha1.SchedulingProfileSpec {
	spec.Plugins = &v1alpha1.Plugins{
		Permit:  &v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{{Name: holdPluginName}}},
		PreBind: &v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{{Name: holdPluginName}}},
	}
	return spec
}

const (
	holdPluginName = "HoldAtPermit"
	// holdLabel marks the pods the hold plugin keeps waiting at Permit.
	holdLabel = "test.berth.io/hold"
)

// holdPlugin keeps pods labelled holdLabel waiting at Permit until a test
// allows them, and records the pods that reach PreBind.
type holdPlugin struct {
	mu       sync.Mutex
	handle   framework.Handle
	preBound sets.Set[types.UID]
}

func (p *holdPlugin) Name() string { return holdPluginName }

func (p *holdPlugin) Permit(_ context.Context, _ *framework.CycleState, pod *corev1.Pod, _ string) (*framework.Status, time.Duration) {
	if _, ok := pod.Labels[holdLabel]; ok {
		return framework.NewStatus(framework.Wait), time.Minute
	}
	return nil, 0
}

func (p *holdPlugin) PreBind(_ context.Context, _ *framework.CycleState, pod *corev1.Pod, _ string) *framework.Status {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.preBound.Insert(pod.UID)
	return nil
}

// reachedPreBind reports whether the pod got past Permit.
func (p *holdPlugin) reachedPreBind(uid types.UID) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.preBound.Has(uid)
}

// waiting returns the pod held at Permit, or nil.
func (p *holdPlugin) waiting(uid types.UID) framework.WaitingPod {
	p.mu.Lock()
	h := p.handle
	p.mu.Unlock()
	if h == nil {
		return nil
	}
	return h.GetWaitingPod(uid)
}

// registryWithHold returns the in-tree registry plus the hold plugin.
func registryWithHold(p *holdPlugin) schedruntime.Registry {
	r := schedruntime.Registry(plugins.NewInTreeRegistry())
	Expect(r.Register(holdPluginName, func(_ context.Context, _ []byte, h framework.Handle) (framework.Plugin, error) {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.handle = h
		return p, nil
	})).To(Succeed())
	return r
}

func newHoldPlugin() *holdPlugin { return &holdPlugin{preBound: sets.New[types.UID]()} }

// podScheduledCondition returns the pod's PodScheduled condition, if any.
func podScheduledCondition(pod *corev1.Pod) *corev1.PodCondition {
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == corev1.PodScheduled {
			return &pod.Status.Conditions[i]
		}
	}
	return nil
}

// getPod reads a pod from the apiserver.
func getPod(ctx context.Context, namespace, name string) (*corev1.Pod, error) {
	return clientset.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
}

// eventsFor lists the events.k8s.io events about a pod, by reason.
func eventsFor(ctx context.Context, pod *corev1.Pod, reason string) ([]string, error) {
	list, err := clientset.EventsV1().Events(pod.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing events: %w", err)
	}
	var notes []string
	for _, e := range list.Items {
		if e.Regarding.Name == pod.Name && e.Reason == reason {
			notes = append(notes, e.Note)
		}
	}
	return notes, nil
}

// requestedOn sums the CPU and memory requests of the listed pods per node.
func requestedOn(pods []corev1.Pod) map[string]corev1.ResourceList {
	out := map[string]corev1.ResourceList{}
	for _, pod := range pods {
		if pod.Spec.NodeName == "" {
			continue
		}
		sum := out[pod.Spec.NodeName]
		if sum == nil {
			sum = corev1.ResourceList{}
			out[pod.Spec.NodeName] = sum
		}
		for _, c := range pod.Spec.Containers {
			for name, q := range c.Resources.Requests {
				total := sum[name]
				total.Add(q)
				sum[name] = total
			}
		}
	}
	return out
}
