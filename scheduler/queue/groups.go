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

package queue

import (
	"slices"
	"strings"

	"github.com/berth-io/berth/scheduler/framework"
)

// rejectorGroup holds the unschedulable entries of one profile that the same
// plugins rejected (or left pending, or gate). An event none of those plugins
// registered moves none of them, so the queue decides that once per group
// rather than once per pod: with thousands of pods waiting for, say, node
// labels, a bind no longer walks them all.
type rejectorGroup struct {
	key     string
	profile string
	// plugins are the rejecting and pending plugins, sorted; empty when none
	// owns the failure (then any event moves the pods).
	plugins []string
	// gatingPlugin is the PreEnqueue plugin that gates the pods, if any.
	gatingPlugin string
	members      map[*entry]struct{}
}

// groupKey names the group of an entry about to be parked.
func groupKey(e *entry) (key string, plugins []string) {
	info := e.info
	plugins = make([]string, 0, info.UnschedulablePlugins.Len()+info.PendingPlugins.Len())
	for p := range info.UnschedulablePlugins {
		plugins = append(plugins, p)
	}
	for p := range info.PendingPlugins {
		if !info.UnschedulablePlugins.Has(p) {
			plugins = append(plugins, p)
		}
	}
	slices.Sort(plugins)
	var b strings.Builder
	b.WriteString(e.profile)
	b.WriteByte(0)
	b.WriteString(info.GatingPlugin)
	for _, p := range plugins {
		b.WriteByte(0)
		b.WriteString(p)
	}
	return b.String(), plugins
}

// join puts a parked entry in its group.
func (q *PriorityQueue) join(e *entry) {
	key, plugins := groupKey(e)
	g := q.groups[key]
	if g == nil {
		g = &rejectorGroup{key: key, profile: e.profile, plugins: plugins, gatingPlugin: e.info.GatingPlugin, members: map[*entry]struct{}{}}
		q.groups[key] = g
	}
	g.members[e] = struct{}{}
	e.group = g
}

// leave takes an entry out of its group, dropping the group once empty.
func (q *PriorityQueue) leave(e *entry) {
	g := e.group
	if g == nil {
		return
	}
	delete(g.members, e)
	if len(g.members) == 0 {
		delete(q.groups, g.key)
	}
	e.group = nil
}

// mayMove reports whether the event can move any pod of the group: whether
// its gating plugin, or one of its rejecting or pending plugins, registered
// the event. It answers what offer and judge would answer for each member
// before any queueing hint runs.
func (g *rejectorGroup) mayMove(v *profileView, ev framework.ClusterEvent) bool {
	if v.hooks == nil || ev.IsWildCard() || len(g.plugins) == 0 {
		return true
	}
	if g.gatingPlugin != "" && !anyMatch(v.hints[g.gatingPlugin], ev) {
		return false
	}
	for _, p := range g.plugins {
		if anyMatch(v.hints[p], ev) {
			return true
		}
	}
	return false
}
