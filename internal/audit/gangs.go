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

package audit

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/api/v1alpha1"
)

// groupKey names a PodGroup: its kind, namespace and name.
type groupKey struct {
	kind, namespace, name string
}

// groupOf returns the PodGroup the pod joins, if any: the scheduling.k8s.io
// PodGroup its spec.schedulingGroup.podGroupName names, else the Berth
// PodGroup its scheduling.berth.io/pod-group label names.
func groupOf(p *corev1.Pod) (groupKey, bool) {
	if sg := p.Spec.SchedulingGroup; sg != nil && sg.PodGroupName != nil && *sg.PodGroupName != "" {
		return groupKey{kind: KindPodGroup, namespace: p.Namespace, name: *sg.PodGroupName}, true
	}
	if name := p.Labels[v1alpha1.PodGroupLabel]; name != "" {
		return groupKey{kind: KindBerthPodGroup, namespace: p.Namespace, name: name}, true
	}
	return groupKey{}, false
}

// members are a group's pods as the gang check counts them.
type members struct {
	// bound are the live members bound to a node.
	bound []*corev1.Pod
	// finished counts the members that have terminated.
	finished int
}

// checkGangs reports the gangs with members bound, but fewer than their
// minCount: bound members are those bound to a node that have not
// terminated. A group with no member bound is waiting, not broken. Basic
// groups have no minCount to check.
func checkGangs(c Cluster) []Violation {
	if len(c.PodGroups) == 0 && len(c.BerthPodGroups) == 0 {
		return nil
	}
	byGroup := map[groupKey]*members{}
	for _, p := range c.Pods {
		if p == nil || p.Spec.NodeName == "" {
			continue
		}
		key, ok := groupOf(p)
		if !ok {
			continue
		}
		m := byGroup[key]
		if m == nil {
			m = &members{}
			byGroup[key] = m
		}
		if isTerminated(p) {
			m.finished++
		} else {
			m.bound = append(m.bound, p)
		}
	}
	var out []Violation
	for _, pg := range c.PodGroups {
		if pg == nil || pg.Spec.SchedulingPolicy.Gang == nil {
			continue
		}
		key := groupKey{kind: KindPodGroup, namespace: pg.Namespace, name: pg.Name}
		out = append(out, gangViolations(key, int(pg.Spec.SchedulingPolicy.Gang.MinCount), byGroup[key])...)
	}
	for _, pg := range c.BerthPodGroups {
		if pg == nil || pg.Spec.SchedulingPolicy != nil && pg.Spec.SchedulingPolicy.Gang == nil {
			continue
		}
		key := groupKey{kind: KindBerthPodGroup, namespace: pg.Namespace, name: pg.Name}
		out = append(out, gangViolations(key, int(pg.Spec.MinCount()), byGroup[key])...)
	}
	return out
}

func gangViolations(key groupKey, minCount int, m *members) []Violation {
	if m == nil || len(m.bound) == 0 || len(m.bound) >= minCount {
		return nil
	}
	nodes := make([]string, 0, len(m.bound))
	for _, p := range m.bound {
		nodes = append(nodes, p.Spec.NodeName)
	}
	slices.Sort(nodes)
	nodes = slices.Compact(nodes)
	msg := fmt.Sprintf("%d of the gang's members are bound (on %s), fewer than its minCount %d", len(m.bound), strings.Join(nodes, ", "), minCount)
	if len(m.bound) == 1 {
		msg = fmt.Sprintf("1 of the gang's members is bound (on %s), fewer than its minCount %d", nodes[0], minCount)
	}
	if m.finished > 0 {
		msg += fmt.Sprintf("; %d more members have terminated and do not count", m.finished)
	}
	return []Violation{{Kind: key.kind, Namespace: key.namespace, Name: key.name, Constraint: GangMinCount, Message: msg}}
}
