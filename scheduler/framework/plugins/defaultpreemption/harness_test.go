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

package defaultpreemption

import (
	"context"
	"sort"
	"sync"
	"testing"

	v1 "k8s.io/api/core/v1"
	policy "k8s.io/api/policy/v1"
	resourceapi "k8s.io/api/resource/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/cache"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/defaultbinder"
	"github.com/berth-io/berth/scheduler/framework/plugins/dynamicresources"
	"github.com/berth-io/berth/scheduler/framework/plugins/names"
	"github.com/berth-io/berth/scheduler/framework/plugins/noderesources"
	"github.com/berth-io/berth/scheduler/framework/plugins/nodeunschedulable"
	"github.com/berth-io/berth/scheduler/framework/plugins/queuesort"
	fwkruntime "github.com/berth-io/berth/scheduler/framework/runtime"
	"github.com/berth-io/berth/scheduler/metrics"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// fakeNominator is a PodNominator over a map.
type fakeNominator struct {
	mu     sync.Mutex
	byNode map[string][]*framework.PodInfo
}

func (n *fakeNominator) AddNominatedPod(pi *framework.PodInfo, ni *framework.NominatingInfo) {
	n.mu.Lock()
	defer n.mu.Unlock()
	node := pi.Pod.Status.NominatedNodeName
	if ni.Mode() == framework.ModeOverride {
		node = ni.NominatedNodeName
	}
	if node != "" {
		n.byNode[node] = append(n.byNode[node], pi)
	}
}
func (n *fakeNominator) DeleteNominatedPodIfExists(*v1.Pod)             {}
func (n *fakeNominator) UpdateNominatedPod(*v1.Pod, *framework.PodInfo) {}
func (n *fakeNominator) NominatedPodsForNode(node string) []*framework.PodInfo {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.byNode[node]
}

// cluster is what one test case starts from.
type cluster struct {
	nodes     []*v1.Node
	pods      []*v1.Pod // pods with spec.nodeName run there; others are pending
	pdbs      []*policy.PodDisruptionBudget
	nominated []*v1.Pod // pods the nominator has on their status.nominatedNodeName
	args      string
	offset    int  // the dry run's random offset
	sync      bool // evict within the cycle rather than in the background
	// preemptions, when set, is the record of background preemptions the
	// framework shares, as the scheduler's frameworks do.
	preemptions *framework.PreemptionsInFlight
	// dra, when set, are DeviceClasses, ResourceSlices and ResourceClaims;
	// the profile then has DynamicResources too, after DefaultPreemption
	// as upstream orders their PostFilters.
	dra []runtime.Object
	// extenders are the profile's HTTP extenders.
	extenders []v1alpha1.Extender
	// groups are scheduling.k8s.io PodGroups; pods join them through
	// spec.schedulingGroup.
	groups []*schedulingv1beta1.PodGroup
	// metrics, when set, records the framework's metrics.
	metrics *metrics.Metrics
}

// env is a compiled profile (NodeUnschedulable, NodeResourcesFit,
// DefaultPreemption) over a cluster, with a fake client recording the
// preemption's API calls.
type env struct {
	fwk      *fwkruntime.Framework
	plugin   *DefaultPreemption
	client   *fake.Clientset
	snapshot *cache.Snapshot
}

func newEnv(t testing.TB, c cluster) *env {
	t.Helper()
	objs := make([]runtime.Object, 0, len(c.pods)+len(c.pdbs)+len(c.dra))
	var running []*v1.Pod
	for _, p := range c.pods {
		objs = append(objs, p)
		if p.Spec.NodeName != "" {
			running = append(running, p)
		}
	}
	for _, pdb := range c.pdbs {
		objs = append(objs, pdb)
	}
	objs = append(objs, c.dra...)
	client := fake.NewClientset(objs...)
	factory := informers.NewSharedInformerFactory(client, 0)
	for _, p := range c.pods {
		if err := factory.Core().V1().Pods().Informer().GetIndexer().Add(p); err != nil {
			t.Fatal(err)
		}
	}
	for _, pdb := range c.pdbs {
		if err := factory.Policy().V1().PodDisruptionBudgets().Informer().GetIndexer().Add(pdb); err != nil {
			t.Fatal(err)
		}
	}
	addDRAObjects(t, factory, c.dra)
	nominator := &fakeNominator{byNode: map[string][]*framework.PodInfo{}}
	for _, p := range c.nominated {
		pi, _ := framework.NewPodInfo(p)
		nominator.AddNominatedPod(pi, nil)
	}
	offset := c.offset
	e := &env{client: client}
	snapshot := cache.NewSnapshot(running, c.nodes)
	e.snapshot = snapshot
	newPlugin := NewFactory(WithRand(func(n int) int { return offset % n }), WithClock(testingclock.NewFakePassiveClock(t0)), WithAsyncPreemption(!c.sync))
	registry := fwkruntime.Registry{
		names.PrioritySort:      queuesort.New,
		names.DefaultBinder:     defaultbinder.New,
		names.NodeUnschedulable: nodeunschedulable.New,
		names.NodeResourcesFit:  noderesources.NewFit,
		names.DefaultPreemption: func(ctx context.Context, raw []byte, h framework.Handle) (framework.Plugin, error) {
			pl, err := newPlugin(ctx, raw, h)
			if err == nil {
				e.plugin = pl.(*DefaultPreemption)
			}
			return pl, err
		},
	}
	spec := &v1alpha1.SchedulingProfileSpec{Extenders: c.extenders}
	if c.args != "" {
		spec.PluginConfig = []v1alpha1.PluginConfig{{Name: Name, Args: runtime.RawExtension{Raw: []byte(c.args)}}}
	}
	enabled := []v1alpha1.Plugin{
		{Name: names.PrioritySort}, {Name: names.NodeUnschedulable}, {Name: names.NodeResourcesFit},
		{Name: names.DefaultPreemption}, {Name: names.DefaultBinder},
	}
	if len(c.dra) > 0 {
		registry[names.DynamicResources] = dynamicresources.New
		enabled = append(enabled, v1alpha1.Plugin{Name: names.DynamicResources})
	}
	defaults := &v1alpha1.Plugins{MultiPoint: &v1alpha1.PluginSet{Enabled: enabled}}
	opts := []fwkruntime.Option{fwkruntime.WithDefaultPlugins(defaults)}
	if c.preemptions != nil {
		opts = append(opts, fwkruntime.WithPreemptionsInFlight(c.preemptions))
	}
	if c.groups != nil {
		opts = append(opts, fwkruntime.WithWorkloads(&st.Workloads{Groups: c.groups, Pods: c.pods}))
	}
	if c.metrics != nil {
		opts = append(opts, fwkruntime.WithMetrics(c.metrics))
	}
	fwk, err := fwkruntime.NewFramework(context.Background(), registry, v1.DefaultSchedulerName, spec,
		append(opts,
			fwkruntime.WithClientSet(client),
			fwkruntime.WithInformerFactory(factory),
			fwkruntime.WithSnapshotSharedLister(snapshot),
			fwkruntime.WithPodNominator(nominator),
			fwkruntime.WithParallelism(1),
			fwkruntime.WithClock(testingclock.NewFakeClock(t0)))...)
	if err != nil {
		t.Fatalf("building the framework: %v", err)
	}
	client.ClearActions()
	e.fwk = fwk
	return e
}

// addDRAObjects puts DeviceClasses, ResourceSlices and ResourceClaims in
// the informers DynamicResources reads.
func addDRAObjects(t testing.TB, factory informers.SharedInformerFactory, objs []runtime.Object) {
	t.Helper()
	resources := factory.Resource().V1()
	for _, o := range objs {
		var err error
		switch o := o.(type) {
		case *resourceapi.DeviceClass:
			err = resources.DeviceClasses().Informer().GetIndexer().Add(o)
		case *resourceapi.ResourceSlice:
			err = resources.ResourceSlices().Informer().GetIndexer().Add(o)
		case *resourceapi.ResourceClaim:
			err = resources.ResourceClaims().Informer().GetIndexer().Add(o)
		default:
			t.Fatalf("not a DRA object: %T", o)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// schedule runs PreFilter and Filter for the pod over every node, as a
// failed cycle does, and then PostFilter.
func (e *env) schedule(t *testing.T, pod *v1.Pod) (*framework.PostFilterResult, *framework.Status) {
	t.Helper()
	state, statuses := e.filter(t, pod)
	result, st := e.fwk.RunPostFilterPlugins(context.Background(), state, pod, statuses)
	// Let a background preemption finish.
	e.plugin.background.Wait()
	return result, st
}

// filter runs PreFilter and Filter for the pod over every node and checks
// that it fits nowhere.
func (e *env) filter(t testing.TB, pod *v1.Pod) (*framework.CycleState, *framework.NodeToStatus) {
	t.Helper()
	ctx := context.Background()
	state := framework.NewCycleState()
	if _, st, _ := e.fwk.RunPreFilterPlugins(ctx, state, pod); !st.IsSuccess() {
		t.Fatalf("PreFilter: %v", st)
	}
	nodes, _ := e.fwk.SnapshotSharedLister().NodeInfos().List()
	feasible, _, statuses, err := e.fwk.FindFeasibleNodes(ctx, state, pod, nodes, 0)
	if err != nil || len(feasible) > 0 {
		t.Fatalf("the pod must fit nowhere before preemption: feasible %d, err %v", len(feasible), err)
	}
	return state, statuses
}

// deleted lists the pods the preemption deleted, sorted.
func (e *env) deleted() []string {
	var out []string
	for _, a := range e.client.Actions() {
		if d, ok := a.(clienttesting.DeleteAction); ok && d.GetResource().Resource == "pods" {
			out = append(out, d.GetName())
		}
	}
	sort.Strings(out)
	return out
}

// statusPatches lists the pods whose status the preemption patched, in order.
func (e *env) statusPatches() []string {
	var out []string
	for _, a := range e.client.Actions() {
		if p, ok := a.(clienttesting.PatchAction); ok && p.GetSubresource() == "status" {
			out = append(out, p.GetName())
		}
	}
	return out
}

// priorities of pods, for failure messages.
func priorities(pods []*v1.Pod) []int32 {
	out := make([]int32, len(pods))
	for i, p := range pods {
		out[i] = corev1helpers.PodPriority(p)
	}
	return out
}
