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

package apiwrite

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// patchRecorder is a fake clientset that records the status patches it
// receives, counts how many are in flight at once and can hold them.
type patchRecorder struct {
	client *fake.Clientset
	hold   chan struct{} // when not nil, each patch waits for a receive on it

	mu          sync.Mutex
	got         map[string][]string // pod name -> patches in order
	inFlight    atomic.Int32
	maxInFlight atomic.Int32
	started     chan string
}

func newPatchRecorder(hold bool) *patchRecorder {
	r := &patchRecorder{client: fake.NewClientset(), got: map[string][]string{}, started: make(chan string, 10000)}
	if hold {
		r.hold = make(chan struct{})
	}
	r.client.PrependReactor("patch", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		pa := a.(k8stesting.PatchAction)
		n := r.inFlight.Add(1)
		defer r.inFlight.Add(-1)
		for m := r.maxInFlight.Load(); n > m && !r.maxInFlight.CompareAndSwap(m, n); m = r.maxInFlight.Load() {
		}
		r.started <- pa.GetName()
		if r.hold != nil {
			<-r.hold
		}
		r.mu.Lock()
		r.got[pa.GetName()] = append(r.got[pa.GetName()], string(pa.GetPatch()))
		r.mu.Unlock()
		return true, &v1.Pod{}, nil
	})
	return r
}

func patchOf(name, body string) *statusPatch {
	return &statusPatch{ctx: context.Background(), namespace: "ns", name: name, uid: types.UID(name), patch: []byte(body)}
}

func TestStatusPatcherBoundsConcurrency(t *testing.T) {
	r := newPatchRecorder(false)
	var inflight sync.WaitGroup
	sp := newStatusPatcher(r.client, 4, &inflight)
	// Slow the fake down a little so that patches overlap.
	r.client.PrependReactor("patch", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		time.Sleep(100 * time.Microsecond)
		return false, nil, nil
	})
	const pods = 2000
	for i := range pods {
		sp.send(patchOf(fmt.Sprintf("p%d", i), "x"))
	}
	inflight.Wait()
	if got := len(r.got); got != pods {
		t.Errorf("%d pods patched, want %d", got, pods)
	}
	if m := r.maxInFlight.Load(); m > 4 || m < 1 {
		t.Errorf("%d patches in flight at once, want 1 to 4", m)
	}
	// The last worker ends right after its last patch.
	deadline := time.Now().Add(5 * time.Second)
	for {
		sp.mu.Lock()
		workers := sp.workers
		sp.mu.Unlock()
		if workers == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d workers left after the queue emptied", workers)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestStatusPatcherSendsEachPodsNewestPatchInOrder(t *testing.T) {
	r := newPatchRecorder(true)
	var inflight sync.WaitGroup
	sp := newStatusPatcher(r.client, 1, &inflight)

	sp.send(patchOf("a", "a1"))
	if started := <-r.started; started != "a" {
		t.Fatalf("first patch started for %s", started)
	}
	// a1 is being sent: a2 and a3 wait behind it, and a3 replaces a2.
	// b1 is queued behind the only worker; b2 replaces it before it is sent.
	sp.send(patchOf("a", "a2"))
	sp.send(patchOf("b", "b1"))
	sp.send(patchOf("a", "a3"))
	sp.send(patchOf("b", "b2"))
	go func() {
		for range 3 {
			r.hold <- struct{}{}
		}
	}()
	inflight.Wait()

	want := map[string][]string{"a": {"a1", "a3"}, "b": {"b2"}}
	if diff := cmp.Diff(want, r.got); diff != "" {
		t.Errorf("patches sent (-want +got):\n%s", diff)
	}
}

// TestStatusPatcherSupersede checks that a pod about to be bound takes back
// its patches not yet sent and waits for the one being sent, while other
// pods' patches go on.
func TestStatusPatcherSupersede(t *testing.T) {
	r := newPatchRecorder(true)
	var inflight sync.WaitGroup
	sp := newStatusPatcher(r.client, 1, &inflight)

	sp.send(patchOf("a", "a1"))
	if started := <-r.started; started != "a" {
		t.Fatalf("first patch started for %s", started)
	}
	// a1 is being sent, a2 waits behind it; b1 is queued behind the only worker.
	sp.send(patchOf("a", "a2"))
	sp.send(patchOf("b", "b1"))
	sp.send(patchOf("c", "c1"))

	superseded := make(chan struct{})
	// b1, still queued, is taken back at once; a waits for a1.
	sp.Supersede(context.Background(), types.UID("b"))
	go func() {
		sp.Supersede(context.Background(), types.UID("a"))
		close(superseded)
	}()
	select {
	case <-superseded:
		t.Fatal("Supersede returned while a's patch was being sent")
	case <-time.After(50 * time.Millisecond):
	}
	r.hold <- struct{}{} // a1 goes through
	<-superseded
	go func() { r.hold <- struct{}{} }() // c1
	inflight.Wait()

	want := map[string][]string{"a": {"a1"}, "c": {"c1"}}
	if diff := cmp.Diff(want, r.got); diff != "" {
		t.Errorf("patches sent (-want +got):\n%s", diff)
	}
}
