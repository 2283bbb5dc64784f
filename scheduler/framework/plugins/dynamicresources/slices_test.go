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

package dynamicresources

import (
	"context"
	"slices"
	"testing"
	"time"

	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	resourceinformers "k8s.io/client-go/informers/resource/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/dynamic-resource-allocation/resourceslice/tracker"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// taintRule taints the devices of a node's pool (every pool when node is
// empty) with key and effect.
func taintRule(name, node, key string, effect resourceapi.DeviceTaintEffect) *resourceapi.DeviceTaintRule {
	sel := &resourceapi.DeviceTaintSelector{Driver: ptr.To(driver)}
	if node != "" {
		sel.Pool = ptr.To(node)
	}
	return &resourceapi.DeviceTaintRule{
		ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: "1"},
		Spec:       resourceapi.DeviceTaintRuleSpec{DeviceSelector: sel, Taint: resourceapi.DeviceTaint{Key: key, Effect: effect}},
	}
}

// TestDeviceTaintRules runs the plugin over the slice tracker the scheduler
// shares, fed by informers over a fake API: a DeviceTaintRule's taint keeps
// the devices it selects from claims that do not tolerate it, as the
// taints a driver publishes in its slices do.
func TestDeviceTaintRules(t *testing.T) {
	p := st.Pod("p").ResourceClaims("c").Obj()
	base := []runtime.Object{class("gpu"), slice("node-a", "gpu-0").obj(), slice("node-b", "gpu-0").obj()}
	tests := []struct {
		name         string
		objs         []runtime.Object
		wantFeasible []string
	}{{
		name:         "no rule: both nodes' devices",
		objs:         []runtime.Object{claim("c").request("gpu", 1).obj()},
		wantFeasible: []string{"node-a", "node-b"},
	}, {
		name:         "a NoSchedule rule on node-a's pool keeps its device away",
		objs:         []runtime.Object{claim("c").request("gpu", 1).obj(), taintRule("a-broken", "node-a", "broken", resourceapi.DeviceTaintEffectNoSchedule)},
		wantFeasible: []string{"node-b"},
	}, {
		name:         "a NoExecute rule on every pool keeps every device away",
		objs:         []runtime.Object{claim("c").request("gpu", 1).obj(), taintRule("all-broken", "", "broken", resourceapi.DeviceTaintEffectNoExecute)},
		wantFeasible: nil,
	}, {
		name:         "a claim that tolerates the rule's taint is not kept away",
		objs:         []runtime.Object{claim("c").request("gpu", 1).tolerate("broken").obj(), taintRule("a-broken", "node-a", "broken", resourceapi.DeviceTaintEffectNoSchedule)},
		wantFeasible: []string{"node-a", "node-b"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			client := fake.NewClientset(append(slices.Clone(base), tt.objs...)...)
			factory := informers.NewSharedInformerFactory(client, 0)
			r := factory.Resource().V1()
			sliceTracker, err := tracker.StartTracker(ctx, tracker.Options{
				EnableDeviceTaintRules: true,
				SliceInformer:          resourceinformers.ToTypedResourceSliceInformer(r.ResourceSlices()),
				TaintInformer:          resourceinformers.ToTypedDeviceTaintRuleInformer(r.DeviceTaintRules()),
			})
			if err != nil {
				t.Fatalf("StartTracker: %v", err)
			}
			pl, err := NewWithArgs(ctx, defaultArgs(), &st.Handle{Client: client, Informers: factory, Shared: framework.NewSharedPluginState(), Slices: sliceTracker})
			if err != nil {
				t.Fatalf("NewWithArgs: %v", err)
			}
			factory.Start(ctx.Done())
			factory.WaitForCacheSync(ctx.Done())
			if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
				return sliceTracker.HasSynced(), nil
			}); err != nil {
				t.Fatalf("the slice tracker did not sync: %v", err)
			}

			e := &env{t: t, client: client, factory: factory}
			c := e.schedule(pl, p, nodes...)
			if !c.preStart.IsSuccess() {
				t.Fatalf("PreFilter = %v", c.preStart)
			}
			if got := c.feasible(nodes); !slices.Equal(got, tt.wantFeasible) {
				t.Errorf("feasible nodes = %v, want %v", got, tt.wantFeasible)
			}
		})
	}
}

// TestWithoutTheSchedulersSlicesThePluginReadsTheInformer checks the
// plugin's own SliceSource: the slices as listed, driver taints and all.
func TestWithoutTheSchedulersSlicesThePluginReadsTheInformer(t *testing.T) {
	e := newEnv(t, class("gpu"), slice("node-a", "gpu-0").taint("broken", resourceapi.DeviceTaintEffectNoSchedule).obj(),
		slice("node-b", "gpu-0").obj(), claim("c").request("gpu", 1).obj())
	if _, ok := e.pl.slices.(listerSource); !ok {
		t.Fatalf("slices = %T, want the informer's lister", e.pl.slices)
	}
	c := e.schedule(e.pl, st.Pod("p").ResourceClaims("c").Obj(), nodes...)
	if got := c.feasible(nodes); !slices.Equal(got, []string{"node-b"}) {
		t.Errorf("feasible nodes = %v, want [node-b]", got)
	}
}
