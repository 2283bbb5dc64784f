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
	"sync"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
)

// maxStatusPatchesInFlight bounds the pod status patches in flight.
const maxStatusPatchesInFlight = 16

// StatusPatcher sends pods' status patches with at most max in flight, one
// at a time per pod. A patch for a pod whose previous patch still waits
// replaces it, so a pod is never patched with stale state, and a burst (a
// profile deleted with 50,000 pending pods) costs one queued patch per pod,
// not a goroutine and a connection stream each. Workers are started as
// patches come and end when the queue is empty.
type StatusPatcher struct {
	client kubernetes.Interface
	max    int
	// inflight counts the patches queued or being sent; the scheduler waits
	// for it at shutdown, as for bindings.
	inflight *sync.WaitGroup

	mu      sync.Mutex
	queue   []*statusPatch
	waiting map[types.UID]*statusPatch // queued, not yet sent
	sending map[types.UID]*statusPatch // being sent
	next    map[types.UID]*statusPatch // to send once the one being sent is done
	workers int
}

// statusPatch is one pod's status patch.
type statusPatch struct {
	ctx             context.Context
	namespace, name string
	uid             types.UID
	patch           []byte
	// dropped is set on a queued patch Supersede took back.
	dropped bool
	// sent is closed once the patch has been sent.
	sent chan struct{}
}

// NewStatusPatcher returns a patcher that sends status patches with client,
// at most maxStatusPatchesInFlight at a time, and counts each patch queued or
// being sent in inflight.
func NewStatusPatcher(client kubernetes.Interface, inflight *sync.WaitGroup) *StatusPatcher {
	return newStatusPatcher(client, maxStatusPatchesInFlight, inflight)
}

// newStatusPatcher is NewStatusPatcher with at most max patches in flight.
func newStatusPatcher(client kubernetes.Interface, max int, inflight *sync.WaitGroup) *StatusPatcher {
	return &StatusPatcher{
		client: client, max: max, inflight: inflight,
		waiting: map[types.UID]*statusPatch{}, sending: map[types.UID]*statusPatch{}, next: map[types.UID]*statusPatch{},
	}
}

// Send queues a strategic merge patch of pod's status, replacing a patch of
// the same pod that has not been sent, and returns at once. The patch is
// sent even once ctx is cancelled; a failure other than NotFound or Conflict
// is logged with ctx's logger.
func (sp *StatusPatcher) Send(ctx context.Context, pod *v1.Pod, patch []byte) {
	sp.send(&statusPatch{ctx: ctx, namespace: pod.Namespace, name: pod.Name, uid: pod.UID, patch: patch})
}

// send queues p, replacing a patch of the same pod that has not been sent.
// Supersede takes back the pod's patches not yet sent and waits, until
// ctx ends, for one being sent: the pod is about to be bound, its binding
// sets PodScheduled itself, and a failure's patch must not land after it
// (kube-scheduler's API dispatcher lets a binding supersede a status
// patch of the same pod the same way).
func (sp *StatusPatcher) Supersede(ctx context.Context, uid types.UID) {
	sp.mu.Lock()
	if w, ok := sp.waiting[uid]; ok {
		delete(sp.waiting, uid)
		w.dropped = true
		sp.inflight.Done()
	}
	if _, ok := sp.next[uid]; ok {
		delete(sp.next, uid)
		sp.inflight.Done()
	}
	var sent chan struct{}
	if p, ok := sp.sending[uid]; ok {
		sent = p.sent
	}
	sp.mu.Unlock()
	if sent == nil {
		return
	}
	select {
	case <-sent:
	case <-ctx.Done():
	}
}

func (sp *StatusPatcher) send(p *statusPatch) {
	sp.mu.Lock()
	if w, ok := sp.waiting[p.uid]; ok {
		*w = *p
		sp.mu.Unlock()
		return
	}
	if _, ok := sp.sending[p.uid]; ok {
		if _, queued := sp.next[p.uid]; !queued {
			sp.inflight.Add(1)
		}
		sp.next[p.uid] = p
		sp.mu.Unlock()
		return
	}
	sp.inflight.Add(1)
	sp.enqueueLocked(p)
	sp.mu.Unlock()
}

// enqueueLocked queues p and starts a worker if fewer than max run.
func (sp *StatusPatcher) enqueueLocked(p *statusPatch) {
	sp.waiting[p.uid] = p
	sp.queue = append(sp.queue, p)
	if sp.workers < sp.max {
		sp.workers++
		go sp.work()
	}
}

// work sends queued patches until the queue is empty.
func (sp *StatusPatcher) work() {
	for {
		sp.mu.Lock()
		if len(sp.queue) == 0 {
			sp.queue = nil
			sp.workers--
			sp.mu.Unlock()
			return
		}
		p := sp.queue[0]
		sp.queue[0] = nil
		sp.queue = sp.queue[1:]
		if p.dropped {
			sp.mu.Unlock()
			continue
		}
		delete(sp.waiting, p.uid)
		p.sent = make(chan struct{})
		sp.sending[p.uid] = p
		sp.mu.Unlock()

		sp.patch(p)

		sp.mu.Lock()
		close(p.sent)
		delete(sp.sending, p.uid)
		if n, ok := sp.next[p.uid]; ok {
			delete(sp.next, p.uid)
			sp.enqueueLocked(n)
		}
		sp.mu.Unlock()
		sp.inflight.Done()
	}
}

func (sp *StatusPatcher) patch(p *statusPatch) {
	_, err := sp.client.CoreV1().Pods(p.namespace).Patch(context.WithoutCancel(p.ctx), p.name, types.StrategicMergePatchType, p.patch, metav1.PatchOptions{}, "status")
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		klog.FromContext(p.ctx).Error(err, "Updating the pod's status", "pod", klog.KRef(p.namespace, p.name))
	}
}
