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
	"errors"
	"strconv"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

const (
	ns     = "default"
	driver = "gpu.example.com"
)

// env is the plugin over a fake clientset whose informer indexers are
// filled directly, on a fake clock.
type env struct {
	t       testing.TB
	client  *fake.Clientset
	factory informers.SharedInformerFactory
	clock   *testingclock.FakeClock
	shared  *framework.SharedPluginState
	pl      *DynamicResources
}

func newEnv(t testing.TB, objs ...runtime.Object) *env {
	t.Helper()
	return newEnvWithArgs(t, &Args{}, objs...)
}

func newEnvWithArgs(t testing.TB, args *Args, objs ...runtime.Object) *env {
	t.Helper()
	client := fake.NewClientset(objs...)
	client.PrependReactor("update", "resourceclaims", bumpResourceVersion(client))
	e := &env{
		t: t, client: client, factory: informers.NewSharedInformerFactory(client, 0),
		clock: testingclock.NewFakeClock(time.Unix(1e9, 0)), shared: framework.NewSharedPluginState(),
	}
	e.pl = e.newPlugin(args)
	for _, o := range objs {
		e.put(o)
	}
	return e
}

// newPlugin builds another plugin over the same informers and shared
// state, as a second profile would be. The args are defaulted first, as
// args.Load does.
func (e *env) newPlugin(args *Args) *DynamicResources {
	e.t.Helper()
	loaded := *args
	loaded.Default()
	pl, err := NewWithArgs(context.Background(), &loaded, &st.Handle{Client: e.client, Informers: e.factory, Shared: e.shared},
		WithClock(e.clock), WithPollInterval(time.Second))
	if err != nil {
		e.t.Fatalf("NewWithArgs: %v", err)
	}
	return pl
}

// bumpResourceVersion makes updates of claims, status included, advance
// their resourceVersion as the API server does.
func bumpResourceVersion(client *fake.Clientset) k8stesting.ReactionFunc {
	return func(action k8stesting.Action) (bool, runtime.Object, error) {
		upd := action.(k8stesting.UpdateAction)
		obj := upd.GetObject().DeepCopyObject()
		m, err := meta.Accessor(obj)
		if err != nil {
			return true, nil, err
		}
		stored, err := client.Tracker().Get(upd.GetResource(), upd.GetNamespace(), m.GetName())
		if err != nil {
			return true, nil, err
		}
		storedMeta, _ := meta.Accessor(stored)
		if m.GetResourceVersion() != storedMeta.GetResourceVersion() {
			return true, nil, conflict(m.GetName())
		}
		rv, _ := strconv.Atoi(m.GetResourceVersion())
		m.SetResourceVersion(strconv.Itoa(rv + 1))
		if err := client.Tracker().Update(upd.GetResource(), obj, upd.GetNamespace()); err != nil {
			return true, nil, err
		}
		return true, obj, nil
	}
}

// put adds or replaces an object in its informer's indexer.
func (e *env) put(o runtime.Object) {
	e.t.Helper()
	r := e.factory.Resource().V1()
	var err error
	switch o := o.(type) {
	case *resourceapi.ResourceClaim:
		err = r.ResourceClaims().Informer().GetIndexer().Update(o)
	case *resourceapi.ResourceSlice:
		err = r.ResourceSlices().Informer().GetIndexer().Update(o)
	case *resourceapi.DeviceClass:
		err = r.DeviceClasses().Informer().GetIndexer().Update(o)
	default:
		e.t.Fatalf("put: unexpected %T", o)
	}
	if err != nil {
		e.t.Fatalf("put: %v", err)
	}
}

// syncClaim copies a claim from the fake API into the informer, as a watch would.
func (e *env) syncClaim(name string) *resourceapi.ResourceClaim {
	e.t.Helper()
	c, err := e.client.ResourceV1().ResourceClaims(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatalf("getting claim %s: %v", name, err)
	}
	e.put(c)
	return c
}

// cycle is one pod's scheduling cycle so far.
type cycle struct {
	state    *framework.CycleState
	preStart *framework.Status
	byNode   map[string]*framework.Status
}

// feasible lists the nodes Filter accepted, in the order given.
func (c *cycle) feasible(nodes []*v1.Node) []string {
	var out []string
	for _, n := range nodes {
		if c.byNode[n.Name].IsSuccess() && c.preStart.IsSuccess() {
			out = append(out, n.Name)
		}
	}
	return out
}

// schedule runs PreFilter and, unless it rejects or skips, Filter on each node.
func (e *env) schedule(pl *DynamicResources, pod *v1.Pod, nodes ...*v1.Node) *cycle {
	c := &cycle{state: framework.NewCycleState(), byNode: map[string]*framework.Status{}}
	_, c.preStart = pl.PreFilter(context.Background(), c.state, pod, nil)
	if !c.preStart.IsSuccess() {
		return c
	}
	for _, n := range nodes {
		c.byNode[n.Name] = pl.Filter(context.Background(), c.state, pod, st.NodeInfo(n))
	}
	return c
}

// conflict is the API server's answer to an update of a stale version.
func conflict(name string) error {
	return apierrors.NewConflict(schema.GroupResource{Group: resourceapi.GroupName, Resource: "resourceclaims"}, name, errors.New("the object has been modified"))
}

func node(name string, labels ...string) *v1.Node {
	n := st.Node(name).Obj()
	n.Labels = map[string]string{"kubernetes.io/hostname": name}
	for i := 0; i+1 < len(labels); i += 2 {
		n.Labels[labels[i]] = labels[i+1]
	}
	return n
}

func class(name string) *resourceapi.DeviceClass {
	return &resourceapi.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: "1"}}
}

// sliceBuilder builds a node-local ResourceSlice of the test driver.
type sliceBuilder struct{ s *resourceapi.ResourceSlice }

func slice(nodeName string, devices ...string) *sliceBuilder {
	s := &resourceapi.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: nodeName + "-" + driver, ResourceVersion: "1"},
		Spec: resourceapi.ResourceSliceSpec{
			Driver:   driver,
			NodeName: ptr.To(nodeName),
			Pool:     resourceapi.ResourcePool{Name: nodeName, Generation: 1, ResourceSliceCount: 1},
		},
	}
	for _, d := range devices {
		s.Spec.Devices = append(s.Spec.Devices, resourceapi.Device{Name: d})
	}
	return &sliceBuilder{s: s}
}

// taint taints every device of the slice.
func (b *sliceBuilder) taint(key string, effect resourceapi.DeviceTaintEffect) *sliceBuilder {
	for i := range b.s.Spec.Devices {
		b.s.Spec.Devices[i].Taints = append(b.s.Spec.Devices[i].Taints, resourceapi.DeviceTaint{Key: key, Effect: effect})
	}
	return b
}

// bindingConditions gives every device of the slice binding conditions.
func (b *sliceBuilder) bindingConditions(conds ...string) *sliceBuilder {
	for i := range b.s.Spec.Devices {
		b.s.Spec.Devices[i].BindingConditions = conds
		b.s.Spec.Devices[i].BindingFailureConditions = []string{"Failed"}
	}
	return b
}

func (b *sliceBuilder) obj() *resourceapi.ResourceSlice { return b.s }

// claimBuilder builds a ResourceClaim in the test namespace.
type claimBuilder struct{ c *resourceapi.ResourceClaim }

func claim(name string) *claimBuilder {
	return &claimBuilder{c: &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{
		Name: name, Namespace: ns, UID: types.UID("uid-" + name), ResourceVersion: "1",
	}}}
}

// request asks for count devices of a class.
func (b *claimBuilder) request(className string, count int64) *claimBuilder {
	b.c.Spec.Devices.Requests = append(b.c.Spec.Devices.Requests, resourceapi.DeviceRequest{
		Name:    "req-" + strconv.Itoa(len(b.c.Spec.Devices.Requests)),
		Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: className, AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: count},
	})
	return b
}

// firstAvailable asks for one device of the first class that has one.
func (b *claimBuilder) firstAvailable(classes ...string) *claimBuilder {
	req := resourceapi.DeviceRequest{Name: "req-" + strconv.Itoa(len(b.c.Spec.Devices.Requests))}
	for i, c := range classes {
		req.FirstAvailable = append(req.FirstAvailable, resourceapi.DeviceSubRequest{
			Name: "sub-" + strconv.Itoa(i), DeviceClassName: c, AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: 1,
		})
	}
	b.c.Spec.Devices.Requests = append(b.c.Spec.Devices.Requests, req)
	return b
}

// tolerate tolerates every device taint with the key.
func (b *claimBuilder) tolerate(key string) *claimBuilder {
	for i := range b.c.Spec.Devices.Requests {
		if e := b.c.Spec.Devices.Requests[i].Exactly; e != nil {
			e.Tolerations = append(e.Tolerations, resourceapi.DeviceToleration{Key: key, Operator: resourceapi.DeviceTolerationOpExists})
		}
	}
	return b
}

// allocated records an allocation of a device on a node.
func (b *claimBuilder) allocated(nodeName, device string) *claimBuilder {
	b.c.Status.Allocation = &resourceapi.AllocationResult{
		Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{{
			Request: "req-0", Driver: driver, Pool: nodeName, Device: device,
		}}},
		NodeSelector: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
			MatchFields: []v1.NodeSelectorRequirement{{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{nodeName}}},
		}}},
	}
	return b
}

// reservedFor adds a pod to the claim's consumers.
func (b *claimBuilder) reservedFor(pod *v1.Pod) *claimBuilder {
	b.c.Status.ReservedFor = append(b.c.Status.ReservedFor, resourceapi.ResourceClaimConsumerReference{Resource: "pods", Name: pod.Name, UID: pod.UID})
	return b
}

// ownedBy makes the pod the claim's controller, as for a template's claim.
func (b *claimBuilder) ownedBy(pod *v1.Pod) *claimBuilder {
	b.c.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID, Controller: ptr.To(true)}}
	return b
}

func (b *claimBuilder) deleting() *claimBuilder {
	b.c.DeletionTimestamp = &metav1.Time{Time: time.Unix(1e9, 0)}
	return b
}

func (b *claimBuilder) obj() *resourceapi.ResourceClaim { return b.c }

// defaultArgs returns the args a profile without pluginConfig gets.
func defaultArgs() *Args {
	a := &Args{}
	a.Default()
	return a
}
