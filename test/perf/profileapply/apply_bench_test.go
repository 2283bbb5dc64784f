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

// Package profileapply measures how long Berth takes from the apply of a
// SchedulingProfile to the first bind of a pod that waited for it.
package profileapply

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/test/berthtest"
)

// nodes is the size of the cluster the profiles schedule on.
const nodes = 16

// BenchmarkApplyToFirstBind creates, in each iteration, a pod for a scheduler
// name no profile serves yet (so the scheduler parks it), then starts the
// clock, creates a SchedulingProfile with that scheduler name (what `kubectl
// apply` does) and stops the clock when the apiserver has the pod's binding.
// The time covers the controller's watch, compile and install, the unpark,
// one scheduling cycle and the bind. Besides ns/op it reports the median and
// the slowest iteration.
func BenchmarkApplyToFirstBind(b *testing.B) {
	// envtest logs through controller-runtime's global logger.
	ctrllog.SetLogger(logr.Discard())
	ctx := b.Context()
	env, err := berthtest.Start(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := env.Stop(); err != nil {
			b.Error(err)
		}
	})
	for i := range nodes {
		if _, err := env.CreateNode(ctx, berthtest.NewNode(fmt.Sprintf("node-%02d", i)).Obj()); err != nil {
			b.Fatal(err)
		}
	}
	ns, err := env.CreateNamespace(ctx, "apply")
	if err != nil {
		b.Fatal(err)
	}

	// One untimed round warms the clients, the caches and the controllers.
	run := 0
	applyOnce := func(timed bool) time.Duration {
		run++
		name := fmt.Sprintf("apply-%d", run)
		pod := berthtest.NewPod(ns, name).SchedulerName(name).Obj()
		if _, err := env.Clientset.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		waitParked(ctx, b, env)

		start := time.Now()
		if timed {
			b.StartTimer()
		}
		if err := env.Client.Create(ctx, packingProfile(name)); err != nil {
			b.Fatal(err)
		}
		if _, err := env.WaitForPodBound(ctx, ns, name); err != nil {
			b.Fatal(err)
		}
		if timed {
			b.StopTimer()
		}
		took := time.Since(start)

		// Leave the cluster as it was: no pod left on a node, no profile.
		if err := env.Clientset.CoreV1().Pods(ns).Delete(ctx, name, *metav1.NewDeleteOptions(0)); err != nil {
			b.Fatal(err)
		}
		if err := env.Client.Delete(ctx, &v1alpha1.SchedulingProfile{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
			b.Fatal(err)
		}
		return took
	}
	applyOnce(false)

	b.StopTimer()
	b.ResetTimer()
	durations := make([]time.Duration, 0, b.N)
	for range b.N {
		durations = append(durations, applyOnce(true))
	}
	slices.Sort(durations)
	b.ReportMetric(float64(durations[len(durations)/2].Milliseconds()), "p50-ms")
	b.ReportMetric(float64(durations[len(durations)-1].Milliseconds()), "max-ms")
}

// packingProfile is a MostAllocated profile for schedulerName.
func packingProfile(schedulerName string) *v1alpha1.SchedulingProfile {
	return &v1alpha1.SchedulingProfile{
		ObjectMeta: metav1.ObjectMeta{Name: schedulerName},
		Spec: v1alpha1.SchedulingProfileSpec{
			SchedulerName: schedulerName,
			PluginConfig: []v1alpha1.PluginConfig{{
				Name: "NodeResourcesFit",
				Args: runtime.RawExtension{Raw: []byte(`{"scoringStrategy":{"type":"MostAllocated","resources":[{"name":"cpu","weight":1},{"name":"memory","weight":1}]}}`)},
			}},
		},
	}
}

// waitParked waits until the scheduler holds exactly one pod for a scheduler
// name without a profile: the one just created.
func waitParked(ctx context.Context, b *testing.B, env *berthtest.Env) {
	b.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for env.Scheduler.ParkedPods() != 1 {
		if time.Now().After(deadline) || ctx.Err() != nil {
			b.Fatalf("the scheduler parks %d pods, want 1", env.Scheduler.ParkedPods())
		}
		time.Sleep(time.Millisecond)
	}
}
