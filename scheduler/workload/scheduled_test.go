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

package workload

import (
	"context"
	"errors"
	"testing"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"

	st "github.com/berth-io/berth/scheduler/schedtest"
)

// nativeGroup returns a native PodGroup named name as the informer holds it.
func nativeGroup(name string, conds ...metav1.Condition) *schedulingv1beta1.PodGroup {
	pg := FromBerth(st.PodGroup(name, 2).Obj())
	pg.APIVersion = GroupVersion.String()
	pg.Status.Conditions = conds
	return pg
}

func initially(status metav1.ConditionStatus) metav1.Condition {
	return metav1.Condition{Type: schedulingv1beta1.PodGroupInitiallyScheduled, Status: status, Reason: string(status)}
}

// TestPatchConditionAfterMarkScheduled checks that a group the scheduler
// set scheduled is not set back while its informer still shows the older
// status, and that the record ends when the informer catches up, the group
// goes, or the write of True fails.
func TestPatchConditionAfterMarkScheduled(t *testing.T) {
	// A step is what the informer delivers between the two writes; it
	// returns the copy of the group the next cycle reads.
	type step func(store cache.Indexer, h cache.ResourceEventHandler, pg *schedulingv1beta1.PodGroup) *schedulingv1beta1.PodGroup
	// shown puts the True the scheduler wrote in the informer's store and
	// tells the handler, as the informer does.
	shown := func(store cache.Indexer, h cache.ResourceEventHandler, pg *schedulingv1beta1.PodGroup) *schedulingv1beta1.PodGroup {
		now := nativeGroup(pg.Name, initially(metav1.ConditionTrue))
		if err := store.Update(now); err != nil {
			t.Fatal(err)
		}
		h.OnUpdate(pg, now)
		return now
	}
	observedTrue := func(store cache.Indexer, h cache.ResourceEventHandler, pg *schedulingv1beta1.PodGroup) *schedulingv1beta1.PodGroup {
		return shown(store, h, pg)
	}
	// observedTrueAfterRead is the informer catching up after the next
	// cycle read the group: that cycle writes with the older copy.
	observedTrueAfterRead := func(store cache.Indexer, h cache.ResourceEventHandler, pg *schedulingv1beta1.PodGroup) *schedulingv1beta1.PodGroup {
		shown(store, h, pg)
		return pg
	}
	deleted := func(store cache.Indexer, h cache.ResourceEventHandler, pg *schedulingv1beta1.PodGroup) *schedulingv1beta1.PodGroup {
		if err := store.Delete(pg); err != nil {
			t.Fatal(err)
		}
		h.OnDelete(cache.DeletedFinalStateUnknown{Key: "default/" + pg.Name, Obj: pg})
		return pg
	}
	tests := []struct {
		name string
		// failTrue makes the apiserver refuse the write of True.
		failTrue  bool
		between   step
		wantFalse bool
		wantKept  int
	}{
		{name: "informer not caught up: False is not written", wantKept: 1},
		{name: "informer shows True: the record is dropped", between: observedTrue, wantKept: 0},
		{name: "informer shows True after the next cycle read the group: False is not written", between: observedTrueAfterRead, wantKept: 0},
		{name: "group deleted: the record is dropped", between: deleted, wantFalse: true, wantKept: 0},
		{name: "write of True failed: False may be written", failTrue: true, wantFalse: true, wantKept: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			pg := nativeGroup("crew", initially(metav1.ConditionFalse))
			client := fake.NewClientset(pg)
			var patches []string
			client.PrependReactor("patch", "podgroups", func(a clienttesting.Action) (bool, runtime.Object, error) {
				body := string(a.(clienttesting.PatchAction).GetPatch())
				patches = append(patches, body)
				if tc.failTrue && len(patches) == 1 {
					return true, nil, errors.New("etcd is gone")
				}
				return false, nil, nil
			})
			factory := informers.NewSharedInformerFactory(client, 0)
			g := New(cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{}), func(*v1.Pod) string { return "" }, WithInformerFactory(factory))
			store := factory.Scheduling().V1beta1().PodGroups().Informer().GetIndexer()
			if err := store.Add(pg); err != nil {
				t.Fatal(err)
			}
			h := g.StatusHandler()

			g.MarkScheduled(pg)
			err := g.PatchCondition(ctx, client, pg, initially(metav1.ConditionTrue))
			if tc.failTrue != (err != nil) {
				t.Fatalf("writing True: err = %v, want failure %v", err, tc.failTrue)
			}
			// Without a step, the remaining members' cycle reads the
			// informer's older copy.
			if tc.between != nil {
				pg = tc.between(store, h, pg)
			}
			if err := g.PatchCondition(ctx, client, pg, initially(metav1.ConditionFalse)); err != nil {
				t.Fatalf("writing False: %v", err)
			}
			got, err := client.SchedulingV1beta1().PodGroups("default").Get(ctx, "crew", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			isFalse := apimeta.IsStatusConditionFalse(got.Status.Conditions, schedulingv1beta1.PodGroupInitiallyScheduled)
			if tc.wantFalse != isFalse {
				t.Errorf("condition False = %v, want %v (patches %q)", isFalse, tc.wantFalse, patches)
			}
			if n := remembered(g); n != tc.wantKept {
				t.Errorf("groups remembered = %d, want %d", n, tc.wantKept)
			}
		})
	}
}

func TestMarkScheduledSkipsGroupsShownScheduled(t *testing.T) {
	g := New(cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{}), func(*v1.Pod) string { return "" })
	g.MarkScheduled(nativeGroup("crew", initially(metav1.ConditionTrue)))
	if n := remembered(g); n != 0 {
		t.Errorf("groups remembered = %d, want 0: the informer already shows it", n)
	}
}

// remembered returns how many groups g remembers as set scheduled.
func remembered(g *Groups) int {
	g.scheduled.mu.Lock()
	defer g.scheduled.mu.Unlock()
	return len(g.scheduled.uids)
}
