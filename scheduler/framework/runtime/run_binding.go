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
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/framework"
)

// RunReservePluginsReserve runs the Reserve plugins in order until one
// fails. A rejection keeps its code and names the plugin; anything else is
// an Error. After a failure the caller must run RunReservePluginsUnreserve.
func (f *Framework) RunReservePluginsReserve(ctx context.Context, state *framework.CycleState, pod *v1.Pod, nodeName string) (status *framework.Status) {
	start := f.clock.Now()
	defer func() { f.observe("Reserve", status, start) }()
	for _, pl := range f.reserve {
		s := pl.Reserve(ctx, state, pod, nodeName)
		if s.IsSuccess() {
			continue
		}
		if s.IsRejected() {
			return s.WithPlugin(pl.Name())
		}
		return framework.AsStatus(fmt.Errorf("running Reserve plugin %q: %w", pl.Name(), s.AsError())).WithPlugin(pl.Name())
	}
	return nil
}

// RunReservePluginsUnreserve runs every Reserve plugin's Unreserve, in
// reverse order of Reserve.
func (f *Framework) RunReservePluginsUnreserve(ctx context.Context, state *framework.CycleState, pod *v1.Pod, nodeName string) {
	start := f.clock.Now()
	for i := len(f.reserve) - 1; i >= 0; i-- {
		f.reserve[i].Unreserve(ctx, state, pod, nodeName)
	}
	f.observe("Unreserve", nil, start)
}

// RunPermitPlugins runs the Permit plugins. A rejection or error stops them
// and names the plugin. When some plugins ask to wait (and none rejects) the
// pod is held in the waiting pods, each such plugin with its own timeout
// (at most 15 minutes) after which it rejects the pod, and Wait is
// returned; WaitOnPermit then blocks until the pod is allowed or rejected.
func (f *Framework) RunPermitPlugins(ctx context.Context, state *framework.CycleState, pod *v1.Pod, nodeName string) (status *framework.Status) {
	start := f.clock.Now()
	defer func() { f.observe("Permit", status, start) }()
	var timeouts map[string]time.Duration
	for _, pl := range f.permit {
		s, timeout := pl.Permit(ctx, state, pod, nodeName)
		switch {
		case s.IsSuccess():
		case s.IsRejected():
			return s.WithPlugin(pl.Name())
		case s.IsWait():
			if timeouts == nil {
				timeouts = make(map[string]time.Duration)
			}
			timeouts[pl.Name()] = min(timeout, maxPermitTimeout)
		default:
			return framework.AsStatus(fmt.Errorf("running Permit plugin %q: %w", pl.Name(), s.AsError())).WithPlugin(pl.Name())
		}
	}
	if len(timeouts) == 0 {
		return nil
	}
	f.waitingPods.add(pod, timeouts)
	names := make([]string, 0, len(timeouts))
	for n := range timeouts {
		names = append(names, n)
	}
	sort.Strings(names)
	klog.FromContext(ctx).V(4).Info("Pod waits at Permit", "pod", klog.KObj(pod), "plugins", names)
	return framework.NewStatus(framework.Wait, "waiting for permit plugin(s) "+strings.Join(names, ", "))
}

// WaitOnPermit blocks while the pod is held at Permit and returns how the
// wait ended: nil when every plugin allowed it, the rejection (naming the
// plugin) otherwise. A pod that is not waiting returns nil at once. When ctx
// ends first, the pod is released with an Error.
func (f *Framework) WaitOnPermit(ctx context.Context, pod *v1.Pod) *framework.Status {
	wp := f.waitingPods.get(pod.UID)
	if wp == nil {
		return nil
	}
	defer f.waitingPods.remove(pod.UID)
	start := f.clock.Now()
	var s *framework.Status
	select {
	case s = <-wp.result:
	case <-ctx.Done():
		wp.finish(framework.AsStatus(fmt.Errorf("waiting on permit: %w", ctx.Err())))
		s = <-wp.result
	}
	if f.metrics != nil {
		f.metrics.ObservePermitWait(s.Code().String(), f.clock.Since(start))
	}
	switch {
	case s.IsSuccess():
		return nil
	case s.IsRejected():
		return s
	default:
		return framework.AsStatus(fmt.Errorf("waiting on permit for pod %s: %w", framework.PodKey(pod), s.AsError())).WithPlugin(s.Plugin())
	}
}

// RunPreBindPlugins runs the PreBind plugins in order until one fails; the
// failure names the plugin, and anything but a rejection is an Error.
func (f *Framework) RunPreBindPlugins(ctx context.Context, state *framework.CycleState, pod *v1.Pod, nodeName string) (status *framework.Status) {
	start := f.clock.Now()
	defer func() { f.observe("PreBind", status, start) }()
	for _, pl := range f.preBind {
		s := pl.PreBind(ctx, state, pod, nodeName)
		if s.IsSuccess() {
			continue
		}
		if s.IsRejected() {
			return s.WithPlugin(pl.Name())
		}
		return framework.AsStatus(fmt.Errorf("running PreBind plugin %q: %w", pl.Name(), s.AsError())).WithPlugin(pl.Name())
	}
	return nil
}

// RunPreBindPreFlights asks the PreBind plugins whether PreBind has work
// for the pod: Success when any has (a plugin without PreBindPreFlight
// counts as having work), Skip when none has, an error when a plugin fails.
func (f *Framework) RunPreBindPreFlights(ctx context.Context, state *framework.CycleState, pod *v1.Pod, nodeName string) *framework.Status {
	for _, pl := range f.preBind {
		pf, ok := pl.(framework.PreBindPreFlightPlugin)
		if !ok {
			return nil
		}
		s := pf.PreBindPreFlight(ctx, state, pod, nodeName)
		switch {
		case s.IsSkip():
			continue
		case s.IsSuccess():
			return nil
		default:
			return framework.AsStatus(fmt.Errorf("running PreBindPreFlight of plugin %q: %w", pl.Name(), s.AsError())).WithPlugin(pl.Name())
		}
	}
	return framework.NewStatus(framework.Skip)
}

// RunBindPlugins offers the pod to the Bind plugins in order: a Skip passes
// it to the next, the first other status ends the chain. Skip is returned
// when every plugin skipped.
func (f *Framework) RunBindPlugins(ctx context.Context, state *framework.CycleState, pod *v1.Pod, nodeName string) (status *framework.Status) {
	start := f.clock.Now()
	defer func() { f.observe("Bind", status, start) }()
	status = framework.NewStatus(framework.Skip)
	for _, pl := range f.bind {
		s := pl.Bind(ctx, state, pod, nodeName)
		switch {
		case s.IsSkip():
			status = s
			continue
		case s.IsSuccess():
			return nil
		case s.IsRejected():
			return s.WithPlugin(pl.Name())
		default:
			return framework.AsStatus(fmt.Errorf("running Bind plugin %q: %w", pl.Name(), s.AsError())).WithPlugin(pl.Name())
		}
	}
	return status
}

// RunPostBindPlugins runs every PostBind plugin; they cannot fail.
func (f *Framework) RunPostBindPlugins(ctx context.Context, state *framework.CycleState, pod *v1.Pod, nodeName string) {
	start := f.clock.Now()
	for _, pl := range f.postBind {
		pl.PostBind(ctx, state, pod, nodeName)
	}
	f.observe("PostBind", nil, start)
}
