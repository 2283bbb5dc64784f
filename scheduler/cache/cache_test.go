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

package cache

import (
	"context"
	"slices"
	"testing"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// step is one call on the cache with whether it should fail.
type step struct {
	do      func(c *Cache, l logr.Logger) error
	wantErr bool
}

func addNode(n *v1.Node) step {
	return step{do: func(c *Cache, l logr.Logger) error { c.AddNode(l, n); return nil }}
}

func updateNode(oldN, newN *v1.Node) step {
	return step{do: func(c *Cache, l logr.Logger) error { c.UpdateNode(l, oldN, newN); return nil }}
}

func removeNode(n *v1.Node) step {
	return step{do: func(c *Cache, l logr.Logger) error { return c.RemoveNode(l, n) }}
}

func addPod(p *v1.Pod) step {
	return step{do: func(c *Cache, l logr.Logger) error { return c.AddPod(l, p) }}
}

func updatePod(oldP, newP *v1.Pod) step {
	return step{do: func(c *Cache, l logr.Logger) error { return c.UpdatePod(l, oldP, newP) }}
}

func removePod(p *v1.Pod) step {
	return step{do: func(c *Cache, l logr.Logger) error { return c.RemovePod(l, p) }}
}

func assume(p *v1.Pod) step {
	return step{do: func(c *Cache, l logr.Logger) error { return c.AssumePod(l, p) }}
}

func finish(p *v1.Pod) step {
	return step{do: func(c *Cache, l logr.Logger) error { return c.FinishBinding(l, p) }}
}

func forget(p *v1.Pod) step {
	return step{do: func(c *Cache, l logr.Logger) error { return c.ForgetPod(l, p) }}
}

func failing(s step) step { s.wantErr = true; return s }

// nodeWant is the expected state of one NodeInfo.
type nodeWant struct {
	hasNode     bool
	pods        []string
	milliCPU    int64
	allocCPU    int64
	ports       int
	pvcs        map[string]int
	withAnti    int
	withAffinty int
}

func podNames(ni *framework.NodeInfo) []string {
	var out []string
	for _, pi := range ni.Pods {
		out = append(out, pi.Pod.Name)
	}
	slices.Sort(out)
	return out
}

func runSteps(t *testing.T, c *Cache, steps []step) {
	t.Helper()
	l := logr.Discard()
	for i, s := range steps {
		err := s.do(c, l)
		if (err != nil) != s.wantErr {
			t.Fatalf("step %d: error %v, want error %v", i, err, s.wantErr)
		}
	}
}

func TestCacheNodesAndPods(t *testing.T) {
	n1 := cacheNode("n1").Obj()
	n1Big := cacheNode("n1").Alloc("cpu", "8", "memory", "8Gi", "pods", "110").Obj()
	n2 := cacheNode("n2").Obj()
	p1 := st.Pod("p1").NodeName("n1").Req("cpu", "1").Obj()
	p1Bigger := st.Pod("p1").NodeName("n1").Req("cpu", "2").ResourceVersion("2").Obj()
	p1OnN2 := st.Pod("p1").NodeName("n2").Req("cpu", "1").ResourceVersion("2").Obj()
	p2 := st.Pod("p2").NodeName("n1").Req("cpu", "500m").Obj()
	p2OnN2 := st.Pod("p2").NodeName("n2").Req("cpu", "500m").Obj()
	noUID := st.Pod("x").NodeName("n1").UID("").Obj()
	withPorts := st.Pod("web").NodeName("n1").HostPort(80).HostPort(443).PVC("data").Obj()
	withAnti := st.Pod("anti").NodeName("n1").PodAntiAffinity(st.Term(v1.LabelHostname, "app", "db")).Obj()

	tests := []struct {
		name        string
		steps       []step
		want        map[string]nodeWant
		wantAssumed []string
		wantPods    int
	}{
		{
			name:     "add node and pod",
			steps:    []step{addNode(n1), addPod(p1), addPod(p2)},
			want:     map[string]nodeWant{"n1": {hasNode: true, pods: []string{"p1", "p2"}, milliCPU: 1500, allocCPU: 4000}},
			wantPods: 2,
		},
		{
			name:     "pod before its node makes a placeholder",
			steps:    []step{addPod(p1)},
			want:     map[string]nodeWant{"n1": {pods: []string{"p1"}, milliCPU: 1000}},
			wantPods: 1,
		},
		{
			name:     "node added after its pod fills the placeholder",
			steps:    []step{addPod(p1), addNode(n1)},
			want:     map[string]nodeWant{"n1": {hasNode: true, pods: []string{"p1"}, milliCPU: 1000, allocCPU: 4000}},
			wantPods: 1,
		},
		{
			name:     "update node changes allocatable",
			steps:    []step{addNode(n1), addPod(p1), updateNode(n1, n1Big)},
			want:     map[string]nodeWant{"n1": {hasNode: true, pods: []string{"p1"}, milliCPU: 1000, allocCPU: 8000}},
			wantPods: 1,
		},
		{
			name:     "update of an unknown node adds it",
			steps:    []step{updateNode(n1, n1Big)},
			want:     map[string]nodeWant{"n1": {hasNode: true, allocCPU: 8000}},
			wantPods: 0,
		},
		{
			name:     "removed node keeps a placeholder while pods remain",
			steps:    []step{addNode(n1), addPod(p1), removeNode(n1)},
			want:     map[string]nodeWant{"n1": {pods: []string{"p1"}, milliCPU: 1000, allocCPU: 4000}},
			wantPods: 1,
		},
		{
			name:  "placeholder goes with its last pod",
			steps: []step{addNode(n1), addPod(p1), removeNode(n1), removePod(p1)},
			want:  map[string]nodeWant{},
		},
		{
			name:  "removed node without pods is gone",
			steps: []step{addNode(n1), addNode(n2), removeNode(n1)},
			want:  map[string]nodeWant{"n2": {hasNode: true, allocCPU: 4000}},
		},
		{
			name:  "removing an unknown node fails",
			steps: []step{failing(removeNode(n1))},
			want:  map[string]nodeWant{},
		},
		{
			name:     "removing a placeholder's node fails",
			steps:    []step{addPod(p1), failing(removeNode(n1))},
			want:     map[string]nodeWant{"n1": {pods: []string{"p1"}, milliCPU: 1000}},
			wantPods: 1,
		},
		{
			name:     "update pod changes its requests",
			steps:    []step{addNode(n1), addPod(p1), updatePod(p1, p1Bigger)},
			want:     map[string]nodeWant{"n1": {hasNode: true, pods: []string{"p1"}, milliCPU: 2000, allocCPU: 4000}},
			wantPods: 1,
		},
		{
			name:  "update pod that moved nodes moves it",
			steps: []step{addNode(n1), addNode(n2), addPod(p1), addPod(p2), updatePod(p1, p1OnN2)},
			want: map[string]nodeWant{
				"n1": {hasNode: true, pods: []string{"p2"}, milliCPU: 500, allocCPU: 4000},
				"n2": {hasNode: true, pods: []string{"p1"}, milliCPU: 1000, allocCPU: 4000},
			},
			wantPods: 2,
		},
		{
			name:  "update of an unknown pod fails",
			steps: []step{addNode(n1), failing(updatePod(p1, p1Bigger))},
			want:  map[string]nodeWant{"n1": {hasNode: true, allocCPU: 4000}},
		},
		{
			name:  "removing an unknown pod fails",
			steps: []step{addNode(n1), failing(removePod(p1))},
			want:  map[string]nodeWant{"n1": {hasNode: true, allocCPU: 4000}},
		},
		{
			name:     "adding a pod twice fails",
			steps:    []step{addNode(n1), addPod(p1), failing(addPod(p1))},
			want:     map[string]nodeWant{"n1": {hasNode: true, pods: []string{"p1"}, milliCPU: 1000, allocCPU: 4000}},
			wantPods: 1,
		},
		{
			name:  "pod without UID is refused",
			steps: []step{addNode(n1), failing(addPod(noUID)), failing(assume(noUID))},
			want:  map[string]nodeWant{"n1": {hasNode: true, allocCPU: 4000}},
		},
		{
			name:  "unbound pod is refused",
			steps: []step{failing(addPod(st.Pod("p").Obj())), failing(assume(st.Pod("p").Obj()))},
			want:  map[string]nodeWant{},
		},
		{
			name:  "host ports and PVCs are counted and released",
			steps: []step{addNode(n1), addPod(withPorts), addPod(p1)},
			want: map[string]nodeWant{"n1": {
				hasNode: true, pods: []string{"p1", "web"}, milliCPU: 1000, allocCPU: 4000,
				ports: 2, pvcs: map[string]int{"default/data": 1},
			}},
			wantPods: 2,
		},
		{
			name:     "host ports and PVCs are released with the pod",
			steps:    []step{addNode(n1), addPod(withPorts), removePod(withPorts)},
			want:     map[string]nodeWant{"n1": {hasNode: true, allocCPU: 4000}},
			wantPods: 0,
		},
		{
			name:     "affinity pods are tracked",
			steps:    []step{addNode(n1), addPod(withAnti)},
			want:     map[string]nodeWant{"n1": {hasNode: true, pods: []string{"anti"}, allocCPU: 4000, withAnti: 1, withAffinty: 1}},
			wantPods: 1,
		},
		{
			name:        "assumed pod counts at once",
			steps:       []step{addNode(n1), assume(p1)},
			want:        map[string]nodeWant{"n1": {hasNode: true, pods: []string{"p1"}, milliCPU: 1000, allocCPU: 4000}},
			wantAssumed: []string{"p1"},
			wantPods:    1,
		},
		{
			name:     "assume then confirm with AddPod",
			steps:    []step{addNode(n1), assume(p1), finish(p1), addPod(p1)},
			want:     map[string]nodeWant{"n1": {hasNode: true, pods: []string{"p1"}, milliCPU: 1000, allocCPU: 4000}},
			wantPods: 1,
		},
		{
			name:  "assumed pod confirmed on another node moves",
			steps: []step{addNode(n1), addNode(n2), assume(p1), addPod(p1OnN2)},
			want: map[string]nodeWant{
				"n1": {hasNode: true, allocCPU: 4000},
				"n2": {hasNode: true, pods: []string{"p1"}, milliCPU: 1000, allocCPU: 4000},
			},
			wantPods: 1,
		},
		{
			name:  "assume then forget",
			steps: []step{addNode(n1), assume(p1), forget(p1)},
			want:  map[string]nodeWant{"n1": {hasNode: true, allocCPU: 4000}},
		},
		{
			name:  "forgetting an unknown pod is a no-op",
			steps: []step{addNode(n1), forget(p1)},
			want:  map[string]nodeWant{"n1": {hasNode: true, allocCPU: 4000}},
		},
		{
			name:        "forget on another node fails",
			steps:       []step{addNode(n1), addNode(n2), assume(p1), failing(forget(p1OnN2))},
			want:        map[string]nodeWant{"n1": {hasNode: true, pods: []string{"p1"}, milliCPU: 1000, allocCPU: 4000}, "n2": {hasNode: true, allocCPU: 4000}},
			wantAssumed: []string{"p1"},
			wantPods:    1,
		},
		{
			name:     "forgetting a confirmed pod fails",
			steps:    []step{addNode(n1), addPod(p1), failing(forget(p1))},
			want:     map[string]nodeWant{"n1": {hasNode: true, pods: []string{"p1"}, milliCPU: 1000, allocCPU: 4000}},
			wantPods: 1,
		},
		{
			name:        "assuming a pod twice fails",
			steps:       []step{addNode(n1), assume(p1), failing(assume(p1))},
			want:        map[string]nodeWant{"n1": {hasNode: true, pods: []string{"p1"}, milliCPU: 1000, allocCPU: 4000}},
			wantAssumed: []string{"p1"},
			wantPods:    1,
		},
		{
			name:        "updating an assumed pod fails",
			steps:       []step{addNode(n1), assume(p1), failing(updatePod(p1, p1Bigger))},
			want:        map[string]nodeWant{"n1": {hasNode: true, pods: []string{"p1"}, milliCPU: 1000, allocCPU: 4000}},
			wantAssumed: []string{"p1"},
			wantPods:    1,
		},
		{
			name:  "removing a pod that was only assumed removes it",
			steps: []step{addNode(n1), assume(p1), removePod(p1)},
			want:  map[string]nodeWant{"n1": {hasNode: true, allocCPU: 4000}},
		},
		{
			name:        "assumed pod on an unknown node makes a placeholder",
			steps:       []step{assume(p2OnN2)},
			want:        map[string]nodeWant{"n2": {pods: []string{"p2"}, milliCPU: 500}},
			wantAssumed: []string{"p2"},
			wantPods:    1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(context.Background())
			runSteps(t, c, tt.steps)
			assertCache(t, c, tt.want, tt.wantAssumed, tt.wantPods)
		})
	}
}

func assertCache(t *testing.T, c *Cache, want map[string]nodeWant, wantAssumed []string, wantPods int) {
	t.Helper()
	d := c.Dump()
	if len(d.Nodes) != len(want) || c.NodeCount() != len(want) {
		t.Errorf("cache has %d NodeInfos (NodeCount %d), want %d", len(d.Nodes), c.NodeCount(), len(want))
	}
	for name, w := range want {
		ni := d.Nodes[name]
		if ni == nil {
			t.Errorf("node %s missing", name)
			continue
		}
		if (ni.Node() != nil) != w.hasNode {
			t.Errorf("node %s: has node %v, want %v", name, ni.Node() != nil, w.hasNode)
		}
		if got := podNames(ni); !slices.Equal(got, w.pods) {
			t.Errorf("node %s: pods %v, want %v", name, got, w.pods)
		}
		if ni.Requested.MilliCPU != w.milliCPU {
			t.Errorf("node %s: requested cpu %d, want %d", name, ni.Requested.MilliCPU, w.milliCPU)
		}
		if ni.Allocatable.MilliCPU != w.allocCPU {
			t.Errorf("node %s: allocatable cpu %d, want %d", name, ni.Allocatable.MilliCPU, w.allocCPU)
		}
		if ni.UsedPorts.Len() != w.ports {
			t.Errorf("node %s: %d used ports, want %d", name, ni.UsedPorts.Len(), w.ports)
		}
		if len(ni.PVCRefCounts) != len(w.pvcs) {
			t.Errorf("node %s: PVC counts %v, want %v", name, ni.PVCRefCounts, w.pvcs)
		}
		for k, v := range w.pvcs {
			if ni.PVCRefCounts[k] != v {
				t.Errorf("node %s: PVC %s counted %d, want %d", name, k, ni.PVCRefCounts[k], v)
			}
		}
		if len(ni.PodsWithRequiredAntiAffinity) != w.withAnti || len(ni.PodsWithAffinity) != w.withAffinty {
			t.Errorf("node %s: %d anti-affinity and %d affinity pods, want %d and %d", name,
				len(ni.PodsWithRequiredAntiAffinity), len(ni.PodsWithAffinity), w.withAnti, w.withAffinty)
		}
	}
	var assumed []string
	for _, a := range d.AssumedPods {
		assumed = append(assumed, a.Pod.Name)
		if ok, err := c.IsAssumedPod(a.Pod); err != nil || !ok {
			t.Errorf("IsAssumedPod(%s) = %v, %v", a.Pod.Name, ok, err)
		}
	}
	if !slices.Equal(assumed, wantAssumed) {
		t.Errorf("assumed pods %v, want %v", assumed, wantAssumed)
	}
	if n, _ := c.PodCount(); n != wantPods {
		t.Errorf("PodCount = %d, want %d", n, wantPods)
	}
}

func TestGetPod(t *testing.T) {
	c := New(context.Background())
	l := logr.Discard()
	p := st.Pod("p1").NodeName("n1").Obj()
	if _, err := c.GetPod(p); err == nil {
		t.Fatal("GetPod of an unknown pod: want error")
	}
	if got := c.NodeOf(p); got != "" {
		t.Fatalf("NodeOf an unknown pod = %q, want \"\"", got)
	}
	if err := c.AssumePod(l, p); err != nil {
		t.Fatal(err)
	}
	if got := c.NodeOf(st.Pod("p1").Obj()); got != "n1" {
		t.Fatalf("NodeOf the assumed pod = %q, want n1", got)
	}
	got, err := c.GetPod(st.Pod("p1").Obj())
	if err != nil || got != p {
		t.Fatalf("GetPod = %v, %v; want the assumed pod", got, err)
	}
	if ok, _ := c.IsAssumedPod(p); !ok {
		t.Fatal("pod should be assumed")
	}
	bound := st.Pod("p1").NodeName("n1").ResourceVersion("5").Obj()
	if err := c.AddPod(l, bound); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.GetPod(p); got != bound {
		t.Fatal("GetPod should return the informer's version after confirmation")
	}
	if ok, _ := c.IsAssumedPod(p); ok {
		t.Fatal("confirmed pod should not be assumed")
	}
}

func TestAddNodeReturnsACopy(t *testing.T) {
	c := New(context.Background())
	ni := c.AddNode(logr.Discard(), cacheNode("n1").Obj())
	ni.Requested.MilliCPU = 999
	if got := c.Dump().Nodes["n1"].Requested.MilliCPU; got != 0 {
		t.Fatalf("changing the returned NodeInfo changed the cache: %d", got)
	}
}

func TestImageStates(t *testing.T) {
	a := cacheNode("a").Image(100, "nginx:1", "nginx@sha").Image(50, "redis:7").Obj()
	b := cacheNode("b").Image(100, "nginx:1").Obj()
	bNoNginx := cacheNode("b").Image(70, "busybox").Obj()
	tests := []struct {
		name  string
		steps []step
		// want maps node → image → NumNodes.
		want map[string]map[string]int
	}{
		{
			name:  "counts nodes per image name",
			steps: []step{addNode(a), addNode(b)},
			want: map[string]map[string]int{
				"a": {"nginx:1": 2, "nginx@sha": 1, "redis:7": 1},
				"b": {"nginx:1": 2},
			},
		},
		{
			name:  "update replaces a node's images",
			steps: []step{addNode(a), addNode(b), updateNode(b, bNoNginx)},
			want: map[string]map[string]int{
				"a": {"nginx:1": 1, "nginx@sha": 1, "redis:7": 1},
				"b": {"busybox": 1},
			},
		},
		{
			name:  "removal uncounts",
			steps: []step{addNode(a), addNode(b), removeNode(a)},
			want:  map[string]map[string]int{"b": {"nginx:1": 1}},
		},
		{
			name:  "adding a node twice counts it once",
			steps: []step{addNode(a), addNode(a), addNode(b)},
			want: map[string]map[string]int{
				"a": {"nginx:1": 2, "nginx@sha": 1, "redis:7": 1},
				"b": {"nginx:1": 2},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(context.Background())
			s := NewEmptySnapshot()
			// A snapshot taken midway must converge too.
			if err := c.UpdateSnapshot(logr.Discard(), s); err != nil {
				t.Fatal(err)
			}
			runSteps(t, c, tt.steps[:1])
			if err := c.UpdateSnapshot(logr.Discard(), s); err != nil {
				t.Fatal(err)
			}
			runSteps(t, c, tt.steps[1:])
			if err := c.UpdateSnapshot(logr.Discard(), s); err != nil {
				t.Fatal(err)
			}
			d := c.Dump()
			for node, images := range tt.want {
				for label, ni := range map[string]*framework.NodeInfo{"cache": d.Nodes[node], "snapshot": mustGet(t, s, node)} {
					if len(ni.ImageStates) != len(images) {
						t.Errorf("%s node %s: images %v, want %v", label, node, keys(ni.ImageStates), images)
					}
					for img, n := range images {
						if got := ni.ImageStates[img]; got == nil || got.NumNodes != n {
							t.Errorf("%s node %s image %s: %+v, want %d nodes", label, node, img, got, n)
						}
					}
				}
			}
			if want := countImages(tt.want); len(c.images.summaries) != want {
				t.Errorf("cache tracks %d images, want %d", len(c.images.summaries), want)
			}
		})
	}
}

func countImages(want map[string]map[string]int) int {
	all := map[string]bool{}
	for _, images := range want {
		for img := range images {
			all[img] = true
		}
	}
	return len(all)
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func mustGet(t *testing.T, s *Snapshot, name string) *framework.NodeInfo {
	t.Helper()
	ni, err := s.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	return ni
}
