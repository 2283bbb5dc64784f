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

package gangscheduling

import (
	"fmt"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/metrics"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// fakeGroups is a PodGroupLister over fixed groups and pods; placed pods
// are bound ones plus the UIDs in assumed.
type fakeGroups struct {
	groups  map[string]*v1alpha1.PodGroup
	pods    []*v1.Pod
	assumed sets.Set[types.UID]
}

func (f *fakeGroups) PodGroup(ns, name string) (*v1alpha1.PodGroup, error) {
	if pg, ok := f.groups[ns+"/"+name]; ok {
		return pg, nil
	}
	return nil, fmt.Errorf("PodGroup %s/%s does not exist", ns, name)
}

func (f *fakeGroups) Members(ns, name string) []*v1.Pod {
	var out []*v1.Pod
	for _, p := range f.pods {
		if g, ok := framework.PodGroupOf(p); ok && g == name && p.Namespace == ns {
			out = append(out, p)
		}
	}
	return out
}

func (f *fakeGroups) IsPlaced(pod *v1.Pod) bool {
	return pod.Spec.NodeName != "" || f.assumed.Has(pod.UID)
}

// fakeWaiting is a pod held at Permit that records how its wait ended.
type fakeWaiting struct {
	pod      *v1.Pod
	allowed  bool
	rejected string
}

func (w *fakeWaiting) GetPod() *v1.Pod             { return w.pod }
func (w *fakeWaiting) GetPendingPlugins() []string { return []string{Name} }
func (w *fakeWaiting) Allow(string)                { w.allowed = true }
func (w *fakeWaiting) Reject(_ string, msg string) { w.rejected = msg }

// outcome says how the wait ended so far.
func (w *fakeWaiting) outcome() string {
	switch {
	case w.allowed:
		return "allowed"
	case w.rejected != "":
		return "rejected"
	}
	return "waiting"
}

// gangHandle is schedtest's Handle over the groups, with the pods
// waiting at Permit and a record of the pods the plugin activates.
type gangHandle struct {
	st.Handle
	waiting   []*fakeWaiting
	activated []string
	// metrics, when set, is what the handle records into.
	metrics *metrics.Metrics
}

func (h *gangHandle) Metrics() *metrics.Metrics { return h.metrics }

func (h *gangHandle) ProfileName() string { return "berth" }

func (h *gangHandle) Activate(_ logr.Logger, pods map[string]*v1.Pod) {
	for k := range pods {
		h.activated = append(h.activated, k)
	}
}

func (h *gangHandle) IterateOverWaitingPods(fn func(framework.WaitingPod)) {
	for _, w := range h.waiting {
		fn(w)
	}
}

// world is a test's cluster: groups, member pods (bound when a node is
// given), assumed pods and pods waiting at Permit.
type world struct {
	groups  []*v1alpha1.PodGroup
	pods    []*v1.Pod
	assumed []string
	waiting []string
}

func (w world) handle() *gangHandle {
	f := &fakeGroups{groups: map[string]*v1alpha1.PodGroup{}, pods: w.pods, assumed: sets.New[types.UID]()}
	for _, g := range w.groups {
		f.groups[g.Namespace+"/"+g.Name] = g
	}
	for _, name := range w.assumed {
		f.assumed.Insert(types.UID(name + "-uid"))
	}
	h := &gangHandle{Handle: st.Handle{Groups: f}}
	for _, name := range w.waiting {
		for _, p := range w.pods {
			if p.Name == name {
				h.waiting = append(h.waiting, &fakeWaiting{pod: p})
			}
		}
	}
	return h
}

// outcomes maps each waiting pod's name to how its wait ended.
func (h *gangHandle) outcomes() map[string]string {
	out := map[string]string{}
	for _, w := range h.waiting {
		out[w.pod.Name] = w.outcome()
	}
	return out
}
