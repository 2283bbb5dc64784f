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
	"fmt"
	"testing"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"

	st "github.com/berth-io/berth/scheduler/schedtest"
)

const (
	benchNodes = 5000
	benchPods  = 10000
)

// benchCache returns a cache of benchNodes nodes over three zones with
// benchPods pods spread over them, and the pods.
func benchCache(b *testing.B) (*Cache, []*v1.Pod) {
	b.Helper()
	l := logr.Discard()
	c := New(context.Background())
	for i := 0; i < benchNodes; i++ {
		c.AddNode(l, cacheNode(fmt.Sprintf("node-%d", i)).Region("r").Zone(fmt.Sprintf("z%d", i%3)).
			Image(100, "registry/app:1").Image(200, fmt.Sprintf("registry/side:%d", i%10)).Obj())
	}
	pods := make([]*v1.Pod, 0, benchPods)
	for i := 0; i < benchPods; i++ {
		pb := st.Pod(fmt.Sprintf("pod-%d", i)).NodeName(fmt.Sprintf("node-%d", i%benchNodes)).
			Req("cpu", "100m").Req("memory", "128Mi")
		if i%10 == 0 {
			pb.PodAntiAffinity(st.Term(v1.LabelHostname, "app", "db"))
		}
		if i%7 == 0 {
			pb.PVC(fmt.Sprintf("claim-%d", i))
		}
		p := pb.Obj()
		if err := c.AddPod(l, p); err != nil {
			b.Fatal(err)
		}
		pods = append(pods, p)
	}
	return c, pods
}

// BenchmarkUpdateSnapshot_OnePodChanged measures one pod update followed by
// the UpdateSnapshot that picks it up.
func BenchmarkUpdateSnapshot_OnePodChanged(b *testing.B) {
	c, pods := benchCache(b)
	l := logr.Discard()
	s := NewEmptySnapshot()
	if err := c.UpdateSnapshot(l, s); err != nil {
		b.Fatal(err)
	}
	// Two versions of one pod with different requests, swapped each iteration.
	versions := [2]*v1.Pod{pods[1], st.Pod("pod-1").NodeName("node-1").Req("cpu", "200m").ResourceVersion("2").Obj()}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := c.UpdatePod(l, versions[i%2], versions[(i+1)%2]); err != nil {
			b.Fatal(err)
		}
		if err := c.UpdateSnapshot(l, s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUpdateSnapshot_NoChange measures UpdateSnapshot when nothing changed.
func BenchmarkUpdateSnapshot_NoChange(b *testing.B) {
	c, _ := benchCache(b)
	l := logr.Discard()
	s := NewEmptySnapshot()
	if err := c.UpdateSnapshot(l, s); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := c.UpdateSnapshot(l, s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUpdateSnapshot_Full measures the first snapshot of the whole cache.
func BenchmarkUpdateSnapshot_Full(b *testing.B) {
	c, _ := benchCache(b)
	l := logr.Discard()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := c.UpdateSnapshot(l, NewEmptySnapshot()); err != nil {
			b.Fatal(err)
		}
	}
}
