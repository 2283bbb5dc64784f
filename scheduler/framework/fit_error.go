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

package framework

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

// NoNodeAvailableMsg starts every FitError message; %v is the number of nodes.
const NoNodeAvailableMsg = "0/%v nodes are available"

// Diagnosis explains why a pod fit on no node.
type Diagnosis struct {
	// NodeToStatus holds each rejected node's status and the absent-nodes status.
	NodeToStatus *NodeToStatus
	// UnschedulablePlugins are the plugins that rejected the pod.
	UnschedulablePlugins sets.Set[string]
	// PendingPlugins are the plugins that returned Pending.
	PendingPlugins sets.Set[string]
	// PreFilterMsg is the message of a PreFilter rejection, if PreFilter rejected the pod.
	PreFilterMsg string
	// PostFilterMsg is the message of the PostFilter plugins (for example preemption).
	PostFilterMsg string
}

// AddPluginStatus records the plugin of a rejection (or Pending) status.
func (d *Diagnosis) AddPluginStatus(s *Status) {
	plugin := s.Plugin()
	if plugin == "" {
		return
	}
	if s.IsRejected() {
		if d.UnschedulablePlugins == nil {
			d.UnschedulablePlugins = sets.New[string]()
		}
		d.UnschedulablePlugins.Insert(plugin)
	}
	if s.Code() == Pending {
		if d.PendingPlugins == nil {
			d.PendingPlugins = sets.New[string]()
		}
		d.PendingPlugins.Insert(plugin)
	}
}

// FitError is returned when a pod fits on no node. Its message is the one
// users know from kube-scheduler's PodScheduled condition and events.
type FitError struct {
	// Pod is the pod that did not fit.
	Pod *v1.Pod
	// NumAllNodes is the number of nodes considered.
	NumAllNodes int
	// Diagnosis says why.
	Diagnosis Diagnosis
}

// Error renders "0/N nodes are available: <reasons>. <postfilter message>".
// Filter reasons are counted across nodes and sorted as strings; when
// PreFilter rejected the pod its message stands alone instead.
func (f *FitError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, NoNodeAvailableMsg+":", f.NumAllNodes)
	if msg := f.Diagnosis.PreFilterMsg; msg != "" {
		b.WriteString(" " + msg + ".")
	} else if reasons := f.filterReasons(); len(reasons) > 0 {
		b.WriteString(" " + strings.Join(reasons, ", ") + ".")
	}
	if msg := f.Diagnosis.PostFilterMsg; msg != "" {
		b.WriteString(" " + msg)
	}
	return b.String()
}

// filterReasons counts each reason over all nodes, absent nodes included,
// and returns "<count> <reason>" entries in string order.
func (f *FitError) filterReasons() []string {
	counts := make(map[string]int)
	m := f.Diagnosis.NodeToStatus
	if m == nil {
		return nil
	}
	m.ForEachExplicitNode(func(_ string, s *Status) {
		for _, r := range s.Reasons() {
			counts[r]++
		}
	})
	if absent := f.NumAllNodes - m.Len(); absent > 0 {
		for _, r := range m.AbsentNodesStatus().Reasons() {
			counts[r] += absent
		}
	}
	out := make([]string, 0, len(counts))
	for r, n := range counts {
		out = append(out, strconv.Itoa(n)+" "+r)
	}
	sort.Strings(out)
	return out
}
