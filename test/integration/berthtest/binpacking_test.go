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

package berthtest_test

import (
	"context"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/test/berthtest"
)

// TestBinPacking applies a MostAllocated profile and checks that its pods
// fill one node before they use the next.
func TestBinPacking(t *testing.T) {
	ctx := t.Context()
	env, err := berthtest.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Error(err)
		}
	})

	// Three empty nodes with 4 CPUs and 16Gi each.
	for _, name := range []string{"node-a", "node-b", "node-c"} {
		node := berthtest.NewNode(name).Alloc("cpu", "4", "memory", "16Gi", "pods", "110").Obj()
		if _, err := env.CreateNode(ctx, node); err != nil {
			t.Fatal(err)
		}
	}

	// A profile that prefers the fullest node that fits.
	profile := &v1alpha1.SchedulingProfile{
		ObjectMeta: metav1.ObjectMeta{Name: "bin-packing"},
		Spec: v1alpha1.SchedulingProfileSpec{
			PluginConfig: []v1alpha1.PluginConfig{{
				Name: "NodeResourcesFit",
				Args: runtime.RawExtension{Raw: []byte(`{"scoringStrategy": {"type": "MostAllocated",
					"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}}`)},
			}},
		},
	}
	if err := env.Client.Create(ctx, profile); err != nil {
		t.Fatal(err)
	}
	if _, err := env.WaitForProfileReady(ctx, "bin-packing"); err != nil {
		t.Fatal(err)
	}

	ns, err := env.CreateNamespace(ctx, "bin-packing")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := env.DeleteNamespace(context.Background(), ns); err != nil {
			t.Error(err)
		}
	})

	// Six pods of a quarter node each, for the bin-packing scheduler.
	for i := range 6 {
		pod := berthtest.NewPod(ns, fmt.Sprintf("pod-%d", i)).SchedulerName("bin-packing").Requests("cpu", "1", "memory", "4Gi").Obj()
		if _, err := env.Clientset.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	podsOn := map[string]int{}
	for i := range 6 {
		pod, err := env.WaitForPodBound(ctx, ns, fmt.Sprintf("pod-%d", i))
		if err != nil {
			t.Fatal(err)
		}
		podsOn[pod.Spec.NodeName]++
	}

	// Packed: one node full (4 pods), one with the other 2, one empty.
	if len(podsOn) != 2 {
		t.Errorf("pods per node = %v, want them packed onto 2 nodes", podsOn)
	}
	for node, n := range podsOn {
		if n != 4 && n != 2 {
			t.Errorf("node %s has %d pods, want 4 or 2 (pods per node %v)", node, n, podsOn)
		}
	}
}
