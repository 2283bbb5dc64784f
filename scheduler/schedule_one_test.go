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
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/decisions"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins"
	"github.com/berth-io/berth/scheduler/framework/plugins/names"
	"github.com/berth-io/berth/scheduler/framework/runtime"
	"github.com/berth-io/berth/scheduler/profile"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// inTree gives New the in-tree plugins, as Berth's binaries do.
func inTree() Option { return WithRegistry(runtime.Registry(plugins.NewInTreeRegistry())) }

// faultsPluginName is the test plugin the cycle tests configure.
const faultsPluginName = "Faults"

// faultsPlugin is a Reserve, Permit, PreBind and Bind plugin that answers
// each extension point as its test says; nil answers Success (Skip at Bind,
// so the default binder binds).
type faultsPlugin struct {
	reserve, permit, preBind, bind *framework.Status
	// permitWait, when set, holds the pod at Permit that long.
	permitWait time.Duration
	// preBindWaits says PreBind has work that may wait, so the pod's
	// nominated node is published first.
	preBindWaits bool
	unreserved   atomic.Int32
}

func (p *faultsPlugin) Name() string { return faultsPluginName }

func (p *faultsPlugin) Reserve(context.Context, *framework.CycleState, *v1.Pod, string) *framework.Status {
	return p.reserve
}

func (p *faultsPlugin) Unreserve(context.Context, *framework.CycleState, *v1.Pod, string) {
	p.unreserved.Add(1)
}

func (p *faultsPlugin) Permit(context.Context, *framework.CycleState, *v1.Pod, string) (*framework.Status, time.Duration) {
	if p.permitWait > 0 {
		return framework.NewStatus(framework.Wait), p.permitWait
	}
	return p.permit, 0
}

func (p *faultsPlugin) PreBind(context.Context, *framework.CycleState, *v1.Pod, string) *framework.Status {
	return p.preBind
}

func (p *faultsPlugin) PreBindPreFlight(context.Context, *framework.CycleState, *v1.Pod, string) *framework.Status {
	if p.preBindWaits {
		return nil
	}
	return framework.NewStatus(framework.Skip)
}

func (p *faultsPlugin) Bind(context.Context, *framework.CycleState, *v1.Pod, string) *framework.Status {
	if p.bind == nil {
		return framework.NewStatus(framework.Skip)
	}
	return p.bind
}

// cycleOutcome is what one scheduling attempt left behind.
type cycleOutcome struct {
	// binds counts the bindings sent to the API.
	binds int
	// assumed says whether the cache still holds the pod as assumed.
	assumed bool
	// reason and message are the pod's PodScheduled condition ("" for none).
	reason, message string
	// nominated is the pod's status.nominatedNodeName in the API.
	nominated string
	// nominations counts the status patches that named a nominated node.
	nominations int
	// unreserved counts the Unreserve calls.
	unreserved int32
	// queued says where the pod waits: "active", "backoff",
	// "unschedulable", "parked" or "" (not queued).
	queued string
}

// cycleTest is one pod scheduled once by a Scheduler over a fake clientset
// holding one node of 4 CPUs, with the Faults plugin in profile "test".
type cycleTest struct {
	plugin *faultsPlugin
	pod    *v1.Pod
	// informerPod is the informer's copy when the cycle ends; nil means the
	// pod itself, absent means deleted.
	informerPod *v1.Pod
	absent      bool
	// bindErr is the API's answer to the binding.
	bindErr error
}

func (tt cycleTest) run(t *testing.T) cycleOutcome {
	t.Helper()
	logger := logr.Discard()
	registry := runtime.Registry(plugins.NewInTreeRegistry())
	if err := registry.Register(faultsPluginName, func(context.Context, []byte, framework.Handle) (framework.Plugin, error) {
		return tt.plugin, nil
	}); err != nil {
		t.Fatal(err)
	}
	faults := &v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{{Name: faultsPluginName}}}
	// Faults binds (or skips) before the default binder.
	bind := &v1alpha1.PluginSet{
		Enabled:  []v1alpha1.Plugin{{Name: faultsPluginName}, {Name: names.DefaultBinder}},
		Disabled: []v1alpha1.Plugin{{Name: names.DefaultBinder}},
	}
	spec := &v1alpha1.SchedulingProfileSpec{Plugins: &v1alpha1.Plugins{Reserve: faults, Permit: faults, PreBind: faults, Bind: bind}}
	h := newHarness(t, withObjects(tt.pod), withOptions(WithRegistry(registry)), withProfile("test", "test", spec))
	ctx, s, client := h.ctx, h.s, h.client
	var binds, nominations atomic.Int32
	client.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, k8sruntime.Object, error) {
		if a.GetSubresource() != "binding" {
			return false, nil, nil
		}
		binds.Add(1)
		return true, nil, tt.bindErr
	})
	client.PrependReactor("patch", "pods", func(a k8stesting.Action) (bool, k8sruntime.Object, error) {
		if a.GetSubresource() == "status" && strings.Contains(string(a.(k8stesting.PatchAction).GetPatch()), `"nominatedNodeName":"node"`) {
			nominations.Add(1)
		}
		return false, nil, nil
	})
	s.cache.AddNode(logger, st.Node("node").Alloc("cpu", "4", "memory", "8Gi", "pods", "110").Obj())
	if !tt.absent {
		inInformer := tt.pod
		if tt.informerPod != nil {
			inInformer = tt.informerPod
		}
		if err := s.informerFactory.Core().V1().Pods().Informer().GetStore().Add(inInformer); err != nil {
			t.Fatal(err)
		}
	}
	s.queue.Add(logger, tt.pod)

	s.scheduleOne(ctx)
	s.bindings.Wait()

	out := cycleOutcome{binds: int(binds.Load()), nominations: int(nominations.Load()), unreserved: tt.plugin.unreserved.Load()}
	out.assumed, _ = s.cache.IsAssumedPod(tt.pod)
	got, err := client.CoreV1().Pods(tt.pod.Namespace).Get(ctx, tt.pod.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out.nominated = got.Status.NominatedNodeName
	for _, c := range got.Status.Conditions {
		if c.Type == v1.PodScheduled {
			out.reason, out.message = c.Reason, c.Message
		}
	}
	switch status := s.queue.Stats(); {
	case status.InFlight != 0:
		t.Errorf("%d pods still in flight after the attempt", status.InFlight)
	case status.Active == 1:
		out.queued = "active"
	case status.Backoff == 1:
		out.queued = "backoff"
	case status.Unschedulable == 1:
		out.queued = "unschedulable"
	case s.ParkedPods() == 1:
		out.queued = "parked"
	}
	return out
}

func TestSchedulingAttempt(t *testing.T) {
	pod := func() *st.PodBuilder { return st.Pod("p").Container("cpu", "1") }
	withScheduler := func(b *st.PodBuilder, name string) *v1.Pod {
		p := b.Obj()
		p.Spec.SchedulerName = name
		return p
	}
	rejected := framework.NewStatus(framework.Unschedulable, "no room for it")
	failed := framework.AsStatus(errors.New("plugin broke"))
	deleting := withScheduler(pod(), "test")
	deleting.DeletionTimestamp = &metav1.Time{Time: time.Unix(1, 0)}
	tests := []struct {
		name string
		tt   cycleTest
		want cycleOutcome
	}{
		{name: "bound",
			tt:   cycleTest{plugin: &faultsPlugin{}, pod: withScheduler(pod(), "test")},
			want: cycleOutcome{binds: 1, assumed: true}},
		{name: "no node fits: unschedulable, waits for an event",
			tt: cycleTest{plugin: &faultsPlugin{}, pod: withScheduler(st.Pod("p").Container("cpu", "8"), "test")},
			want: cycleOutcome{reason: v1.PodReasonUnschedulable,
				message: "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
				queued:  "unschedulable"}},
		{name: "Reserve rejects: unreserved, forgotten, unschedulable",
			tt: cycleTest{plugin: &faultsPlugin{reserve: rejected}, pod: withScheduler(pod(), "test")},
			want: cycleOutcome{unreserved: 1, reason: v1.PodReasonUnschedulable, message: "0/1 nodes are available: 1 no room for it.",
				queued: "unschedulable"}},
		{name: "Reserve fails: unreserved, forgotten, backs off as an error",
			tt:   cycleTest{plugin: &faultsPlugin{reserve: failed}, pod: withScheduler(pod(), "test")},
			want: cycleOutcome{unreserved: 1, reason: v1.PodReasonSchedulerError, message: `running Reserve plugin "Faults": plugin broke`, queued: "backoff"}},
		{name: "Permit rejects: unreserved, forgotten, unschedulable",
			tt: cycleTest{plugin: &faultsPlugin{permit: rejected}, pod: withScheduler(pod(), "test")},
			want: cycleOutcome{unreserved: 1, reason: v1.PodReasonUnschedulable, message: "0/1 nodes are available: 1 no room for it.",
				queued: "unschedulable"}},
		{name: "Permit wait times out: the published nomination is cleared",
			tt: cycleTest{plugin: &faultsPlugin{permitWait: 10 * time.Millisecond}, pod: withScheduler(pod(), "test")},
			want: cycleOutcome{unreserved: 1, nominations: 1, reason: v1.PodReasonUnschedulable,
				message: `0/1 nodes are available: 1 rejected due to timeout after waiting 10ms at plugin Faults.`, queued: "unschedulable"}},
		{name: "a waiting PreBind fails: the nomination published before it is cleared",
			tt: cycleTest{plugin: &faultsPlugin{preBind: failed, preBindWaits: true}, pod: withScheduler(pod(), "test")},
			want: cycleOutcome{unreserved: 1, nominations: 1, reason: v1.PodReasonSchedulerError,
				message: `running PreBind plugin "Faults": plugin broke`, queued: "backoff"}},
		{name: "PreBind rejects: unreserved, forgotten, unschedulable",
			tt: cycleTest{plugin: &faultsPlugin{preBind: rejected}, pod: withScheduler(pod(), "test")},
			want: cycleOutcome{unreserved: 1, reason: v1.PodReasonUnschedulable, message: "0/1 nodes are available: 1 no room for it.",
				queued: "unschedulable"}},
		{name: "Bind plugin fails: unreserved, forgotten",
			tt:   cycleTest{plugin: &faultsPlugin{bind: failed}, pod: withScheduler(pod(), "test")},
			want: cycleOutcome{unreserved: 1, reason: v1.PodReasonSchedulerError, message: `running Bind plugin "Faults": plugin broke`, queued: "backoff"}},
		{name: "the API refuses the binding: unreserved, forgotten, retried",
			tt: cycleTest{plugin: &faultsPlugin{}, pod: withScheduler(pod(), "test"),
				bindErr: apierrors.NewInternalError(errors.New("etcd is away"))},
			want: cycleOutcome{binds: 1, unreserved: 1, reason: v1.PodReasonSchedulerError,
				message: `running Bind plugin "DefaultBinder": binding pod default/p to node node: Internal error occurred: etcd is away`, queued: "backoff"}},
		{name: "deleted while being scheduled: dropped quietly",
			tt:   cycleTest{plugin: &faultsPlugin{reserve: rejected}, pod: withScheduler(pod(), "test"), absent: true},
			want: cycleOutcome{unreserved: 1}},
		{name: "bound by someone else while being scheduled: dropped quietly",
			tt: cycleTest{plugin: &faultsPlugin{reserve: rejected}, pod: withScheduler(pod(), "test"),
				informerPod: withScheduler(pod().NodeName("elsewhere"), "test")},
			want: cycleOutcome{unreserved: 1}},
		{name: "its profile went away after it was queued: parked",
			tt:   cycleTest{plugin: &faultsPlugin{}, pod: withScheduler(pod(), "gone")},
			want: cycleOutcome{queued: "parked"}},
		{name: "being deleted: skipped",
			tt:   cycleTest{plugin: &faultsPlugin{}, pod: deleting},
			want: cycleOutcome{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.tt.run(t), cmp.AllowUnexported(cycleOutcome{})); diff != "" {
				t.Errorf("attempt (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSchedulingRecordsDecisions(t *testing.T) {
	node := func(name, cpu string) *v1.Node {
		return st.Node(name).Alloc("cpu", cpu, "memory", "32Gi", "pods", "110").Obj()
	}
	tests := []struct {
		name    string
		nodes   []*v1.Node
		reserve *framework.Status
		// want are the decision's nodes, chosen first; nil with wantNone.
		wantNodes    []string
		wantFeasible int
		wantNone     bool
	}{{
		name:         "scored: the chosen node first, then the runners-up best first",
		nodes:        []*v1.Node{node("small", "4"), node("big", "32"), node("mid", "16"), node("tiny", "2")},
		wantNodes:    []string{"big", "mid", "small"},
		wantFeasible: 4,
	}, {
		name:         "one feasible node: recorded, nothing scored",
		nodes:        []*v1.Node{node("fits", "4"), node("too-small", "1")},
		wantFeasible: 1,
	}, {
		name:     "rejected at Reserve: not placed, not recorded",
		nodes:    []*v1.Node{node("a", "4"), node("b", "8")},
		reserve:  framework.NewStatus(framework.Unschedulable, "no room for it"),
		wantNone: true,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logger := logr.Discard()
			pod := st.Pod("p").Container("cpu", "2").Obj()
			pod.Spec.SchedulerName = "test"
			registry := runtime.Registry(plugins.NewInTreeRegistry())
			faults := &faultsPlugin{reserve: tt.reserve}
			if err := registry.Register(faultsPluginName, func(context.Context, []byte, framework.Handle) (framework.Plugin, error) {
				return faults, nil
			}); err != nil {
				t.Fatal(err)
			}
			h := newHarness(t, withObjects(pod), withoutProfile(), withOptions(WithRegistry(registry), WithScheduledEvents(false)))
			ctx, s, client := h.ctx, h.s, h.client
			var boundTo atomic.Value
			client.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, k8sruntime.Object, error) {
				if b, ok := a.(k8stesting.CreateAction).GetObject().(*v1.Binding); ok {
					boundTo.Store(b.Target.Name)
				}
				return true, nil, nil
			})
			spec := &v1alpha1.SchedulingProfileSpec{Plugins: &v1alpha1.Plugins{Reserve: &v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{{Name: faultsPluginName}}}}}
			fwk, err := s.CompileProfile(ctx, "test", spec)
			if err != nil {
				t.Fatal(err)
			}
			recorder := decisions.NewRecorder(5)
			s.InstallProfile(ctx, "test", &profile.Profile{Framework: fwk, Source: "recording", Generation: 7, Decisions: recorder})
			for _, n := range tt.nodes {
				s.cache.AddNode(logger, n)
			}
			if err := s.informerFactory.Core().V1().Pods().Informer().GetStore().Add(pod); err != nil {
				t.Fatal(err)
			}
			s.queue.Add(logger, pod)
			s.scheduleOne(ctx)
			s.bindings.Wait()

			got := recorder.Recent()
			if tt.wantNone {
				if len(got) != 0 {
					t.Fatalf("recorded %+v for a pod not placed", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("recorded %d decisions, want 1", len(got))
			}
			d := got[0]
			if d.Node != boundTo.Load() {
				t.Errorf("decision node %q, pod bound to %v", d.Node, boundTo.Load())
			}
			if d.Pod != "default/p" || d.UID != pod.UID || d.Generation != 7 || d.Feasible != tt.wantFeasible || d.Evaluated != len(tt.nodes) {
				t.Errorf("decision = %+v, want pod default/p, its UID, generation 7, %d feasible of %d", d, tt.wantFeasible, len(tt.nodes))
			}
			var scored []string
			for i, n := range d.Nodes {
				scored = append(scored, n.Name)
				if i > 0 && n.TotalScore > d.Nodes[0].TotalScore {
					t.Errorf("runner-up %s totals %d, above the chosen node's %d", n.Name, n.TotalScore, d.Nodes[0].TotalScore)
				}
				if len(n.Scores) == 0 {
					t.Errorf("node %s has no per-plugin scores", n.Name)
				}
			}
			if diff := cmp.Diff(tt.wantNodes, scored); diff != "" {
				t.Errorf("scored nodes (-want +got):\n%s", diff)
			}
			if len(d.Nodes) > 0 && d.Node != d.Nodes[0].Name {
				t.Errorf("decision node %q, scored first %v", d.Node, scored)
			}
		})
	}
}
