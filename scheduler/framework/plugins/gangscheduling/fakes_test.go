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
	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/metrics"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

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

// door is one of the two kinds of PodGroup a test runs against.
type door struct {
	name  string
	berth bool
}

// doors are both kinds: Kubernetes' own and Berth's.
var doors = []door{{name: "scheduling.k8s.io"}, {name: "scheduling.berth.io", berth: true}}

// member returns a pod that joins the group named group through this door,
// bound to node when node is not "".
func (d door) member(name, group, node string) *v1.Pod {
	b := st.Pod(name)
	if d.berth {
		b = b.Group(group)
	} else {
		b = b.SchedulingGroup(group)
	}
	if node != "" {
		b = b.NodeName(node)
	}
	return b.Obj()
}

// crew returns members of the group "crew".
func (d door) crew(names ...string) []*v1.Pod {
	out := make([]*v1.Pod, len(names))
	for i, n := range names {
		out[i] = d.member(n, "crew", "")
	}
	return out
}

// group returns the group b builds, as this door's scheduler reads it.
func (d door) group(b *st.WorkloadGroupBuilder) *schedulingv1beta1.PodGroup {
	if d.berth {
		b = b.Berth()
	}
	return b.Obj()
}

// handleFor is a handle over the groups and pods, with the named pods
// assumed and the named pods waiting at Permit.
func handleFor(groups []*schedulingv1beta1.PodGroup, pods []*v1.Pod, assumed []string, waiting []string) *gangHandle {
	w := &st.Workloads{Groups: groups, Pods: pods, Assumed: map[string]string{}}
	for _, n := range assumed {
		w.Assumed[n] = "node-1"
	}
	h := &gangHandle{Handle: st.Handle{Native: w}}
	for _, n := range waiting {
		for _, p := range pods {
			if p.Name == n {
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
