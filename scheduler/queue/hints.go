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
	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/framework"
)

// strategy is where an event sends a pod that waits in the unschedulable set.
// Higher values win when several events or plugins disagree.
type strategy int8

const (
	// stay keeps the pod where it is: no rejecting plugin thinks the event helps.
	stay strategy = iota
	// afterBackoff sends the pod to backoffQ, or to activeQ if its backoff has ended.
	afterBackoff
	// now sends the pod straight to activeQ (a Pending plugin said Queue).
	now
)

func (s strategy) String() string {
	switch s {
	case afterBackoff:
		return "QueueAfterBackoff"
	case now:
		return "QueueImmediately"
	}
	return "QueueSkip"
}

// profileView caches, for the duration of one event, what the queue needs to
// know about one profile.
type profileView struct {
	hooks ProfileHooks
	hints map[string][]framework.ClusterEventWithHint
	// interest is 0 when unknown, 1 when some plugin registered the event, -1 when none did.
	interest int8
}

// profileViews resolves profiles at most once per event.
type profileViews struct {
	lookup ProfileLookup
	views  map[string]*profileView
	// lastName and last short-cut the common run of pods of one profile.
	lastName string
	last     *profileView
}

func (pv *profileViews) get(schedulerName string) *profileView {
	if pv.last != nil && pv.lastName == schedulerName {
		return pv.last
	}
	if v, ok := pv.views[schedulerName]; ok {
		pv.lastName, pv.last = schedulerName, v
		return v
	}
	v := &profileView{}
	if hooks := pv.lookup(schedulerName); hooks != nil {
		v.hooks = hooks
		v.hints = hooks.QueueingHintMap()
	}
	if pv.views == nil {
		pv.views = make(map[string]*profileView, 1)
	}
	pv.views[schedulerName] = v
	pv.lastName, pv.last = schedulerName, v
	return v
}

// caresAbout reports whether any plugin of the profile registered the event.
// An unknown profile cares about everything, so that no pod gets stuck.
func (v *profileView) caresAbout(ev framework.ClusterEvent) bool {
	if v.hooks == nil || ev.IsWildCard() {
		return true
	}
	if v.interest == 0 {
		v.interest = -1
		for _, regs := range v.hints {
			if anyMatch(regs, ev) {
				v.interest = 1
				break
			}
		}
	}
	return v.interest > 0
}

// pluginCares reports whether the named plugin registered the event.
func (v *profileView) pluginCares(plugin string, ev framework.ClusterEvent) bool {
	if v.hooks == nil || ev.IsWildCard() {
		return true
	}
	return anyMatch(v.hints[plugin], ev)
}

func anyMatch(regs []framework.ClusterEventWithHint, ev framework.ClusterEvent) bool {
	for i := range regs {
		if regs[i].Event.Match(ev) {
			return true
		}
	}
	return false
}

// judge decides what an event means for a pod that failed its last attempt.
// Only the plugins that rejected the pod are asked; a hint that errs counts as
// Queue, as does a registration without a hint function.
func judge(logger logr.Logger, v *profileView, info *framework.QueuedPodInfo, ev framework.ClusterEvent, oldObj, newObj any) strategy {
	if !hasRejectors(info) {
		// Nothing to ask: the pod failed for a reason no plugin owns.
		return afterBackoff
	}
	if ev.IsWildCard() {
		// A wildcard event with a pod as newObj is aimed at that pod alone.
		if newObj != nil {
			if target, ok := newObj.(*v1.Pod); !ok || target.UID != info.Pod.UID {
				return stay
			}
		}
		return afterBackoff
	}
	if v == nil || v.hooks == nil {
		return afterBackoff
	}
	// Pending plugins go first: their Queue is the strongest answer.
	for plugin := range info.PendingPlugins {
		if askPlugin(logger, plugin, v.hints[plugin], info.Pod, ev, oldObj, newObj) {
			return now
		}
	}
	for plugin := range info.UnschedulablePlugins {
		if info.PendingPlugins.Has(plugin) {
			continue
		}
		if askPlugin(logger, plugin, v.hints[plugin], info.Pod, ev, oldObj, newObj) {
			return afterBackoff
		}
	}
	return stay
}

// askPlugin reports whether any of the plugin's registrations for ev says Queue.
func askPlugin(logger logr.Logger, plugin string, regs []framework.ClusterEventWithHint, pod *v1.Pod, ev framework.ClusterEvent, oldObj, newObj any) bool {
	for i := range regs {
		reg := &regs[i]
		if !reg.Event.Match(ev) {
			continue
		}
		if reg.QueueingHintFn == nil {
			return true
		}
		hint, err := reg.QueueingHintFn(logger, pod, oldObj, newObj)
		if err != nil {
			logger.Error(err, "Queueing hint failed; treating it as Queue", "plugin", plugin, "event", ev.Label(), "pod", klog.KObj(pod))
			return true
		}
		if hint == framework.Queue {
			return true
		}
	}
	return false
}
