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

package runtime

import (
	"fmt"
	"sort"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"

	"github.com/berth-io/berth/scheduler/framework"
)

// maxPermitTimeout caps how long a Permit plugin may hold a pod, as upstream.
const maxPermitTimeout = 15 * time.Minute

// WaitingPods is a thread-safe set of pods held at Permit, keyed by UID.
// One WaitingPods may be shared by the frameworks of several profiles.
type WaitingPods struct {
	clock clock.WithDelayedExecution
	mu    sync.RWMutex
	pods  map[types.UID]*waitingPod
}

// WaitingPodsOption configures a WaitingPods.
type WaitingPodsOption func(*WaitingPods)

// WithWaitingPodsClock sets the clock that drives Permit timeouts.
func WithWaitingPodsClock(c clock.WithDelayedExecution) WaitingPodsOption {
	return func(w *WaitingPods) { w.clock = c }
}

// NewWaitingPods returns an empty WaitingPods on the real clock unless told otherwise.
func NewWaitingPods(opts ...WaitingPodsOption) *WaitingPods {
	w := &WaitingPods{clock: clock.RealClock{}, pods: make(map[types.UID]*waitingPod)}
	for _, o := range opts {
		o(w)
	}
	return w
}

// add holds the pod until every plugin in timeouts allows it; each plugin
// rejects it when its own timeout expires.
func (w *WaitingPods) add(pod *v1.Pod, timeouts map[string]time.Duration) *waitingPod {
	wp := &waitingPod{pod: pod, result: make(chan *framework.Status, 1), pending: make(map[string]clock.Timer, len(timeouts))}
	wp.mu.Lock()
	for plugin, d := range timeouts {
		// The rejection stops the other timers; it runs on its own goroutine
		// because a fake clock fires timers with its lock held.
		wp.pending[plugin] = w.clock.AfterFunc(d, func() {
			go wp.Reject(plugin, fmt.Sprintf("rejected due to timeout after waiting %v at plugin %v", d, plugin))
		})
	}
	wp.mu.Unlock()
	w.mu.Lock()
	w.pods[pod.UID] = wp
	w.mu.Unlock()
	return wp
}

func (w *WaitingPods) remove(uid types.UID) {
	w.mu.Lock()
	delete(w.pods, uid)
	w.mu.Unlock()
}

func (w *WaitingPods) get(uid types.UID) *waitingPod {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.pods[uid]
}

// Len returns the number of waiting pods.
func (w *WaitingPods) Len() int {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return len(w.pods)
}

// Get returns the waiting pod with the UID, or nil.
func (w *WaitingPods) Get(uid types.UID) framework.WaitingPod {
	if wp := w.get(uid); wp != nil {
		return wp
	}
	return nil
}

// Iterate calls fn for every waiting pod; fn must not add or remove pods.
func (w *WaitingPods) Iterate(fn func(framework.WaitingPod)) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	for _, wp := range w.pods {
		fn(wp)
	}
}

// waitingPod is one pod held at Permit with a timer per pending plugin.
type waitingPod struct {
	pod    *v1.Pod
	result chan *framework.Status

	mu      sync.Mutex
	pending map[string]clock.Timer
	done    bool
}

var _ framework.WaitingPod = (*waitingPod)(nil)

// GetPod returns the pod.
func (wp *waitingPod) GetPod() *v1.Pod { return wp.pod }

// GetPendingPlugins lists, sorted, the plugins that have not allowed the pod yet.
func (wp *waitingPod) GetPendingPlugins() []string {
	wp.mu.Lock()
	defer wp.mu.Unlock()
	out := make([]string, 0, len(wp.pending))
	for p := range wp.pending {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Allow records the plugin's approval; the last approval releases the pod.
func (wp *waitingPod) Allow(pluginName string) {
	wp.mu.Lock()
	defer wp.mu.Unlock()
	if wp.done {
		return
	}
	if t, ok := wp.pending[pluginName]; ok {
		t.Stop()
		delete(wp.pending, pluginName)
	}
	if len(wp.pending) > 0 {
		return
	}
	wp.done = true
	wp.result <- nil
}

// Reject releases the pod as Unschedulable by the plugin.
func (wp *waitingPod) Reject(pluginName, msg string) {
	wp.finish(framework.NewStatus(framework.Unschedulable, msg).WithPlugin(pluginName))
}

// finish ends the wait with the status and reports whether the pod was still waiting.
func (wp *waitingPod) finish(s *framework.Status) bool {
	wp.mu.Lock()
	defer wp.mu.Unlock()
	if wp.done {
		return false
	}
	for _, t := range wp.pending {
		t.Stop()
	}
	wp.done = true
	wp.result <- s
	return true
}
