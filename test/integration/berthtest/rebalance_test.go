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
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/test/berthtest"
)

// TestRebalancePolicyRuns checks that the environment runs the rebalancer
// as `berth manager` does: a dry-run policy plans the eviction of a pod
// that does not tolerate its node's taint, and reports the run.
func TestRebalancePolicyRuns(t *testing.T) {
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
	node := berthtest.NewNode("tainted").Alloc("cpu", "4", "memory", "16Gi", "pods", "110").
		Taint("example.com/drain", "true", corev1.TaintEffectNoSchedule).Obj()
	if _, err := env.CreateNode(ctx, node); err != nil {
		t.Fatal(err)
	}
	ns, err := env.CreateNamespace(ctx, "rebalance")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := env.DeleteNamespace(context.Background(), ns); err != nil {
			t.Error(err)
		}
	})
	// Placed before the taint mattered: bound directly, not scheduled. A
	// ReplicaSet's pod, as the evictor protects bare pods.
	pod := berthtest.NewPod(ns, "intolerant").Requests("cpu", "100m").Obj()
	pod.Spec.NodeName = "tainted"
	pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: "web-uid"}}
	if err := env.Client.Create(ctx, pod); err != nil {
		t.Fatal(err)
	}

	policy := &v1alpha1.RebalancePolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "drain-tainted"},
		Spec: v1alpha1.RebalancePolicySpec{
			Schedule:   v1alpha1.RebalanceSchedule{Interval: &metav1.Duration{Duration: time.Hour}},
			DryRun:     ptr.To(true),
			Namespaces: &v1alpha1.NamespaceFilter{Include: []string{ns}},
			Strategies: []v1alpha1.Strategy{{Name: "RemovePodsViolatingNodeTaints"}},
		},
	}
	if err := env.Client.Create(ctx, policy); err != nil {
		t.Fatal(err)
	}
	var got v1alpha1.RebalancePolicy
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(policy), &got); err != nil {
			return false, err
		}
		return got.Status.LastRun != nil && got.Status.LastRun.CompletionTime != nil, nil
	})
	if err != nil {
		t.Fatalf("the policy did not complete a run: %v; status %+v", err, got.Status)
	}
	if run := got.Status.LastRun; !run.DryRun || run.Planned != 1 || run.Evicted != 0 {
		t.Errorf("last run %+v, want a dry run planning one eviction", run)
	}
	if len(got.Status.Plan) != 1 || got.Status.Plan[0].Pod != "intolerant" || got.Status.Plan[0].Result != v1alpha1.EvictionPlanned {
		t.Errorf("plan %+v, want the intolerant pod planned", got.Status.Plan)
	}
}
