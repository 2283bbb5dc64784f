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

package defaultpreemption

import (
	"context"
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/extender"
)

// extenderHolder is a handle that has the profile's HTTP extenders; the
// runtime's Framework is one.
type extenderHolder interface {
	Extenders() []*extender.Extender
}

// callExtenders lets the profile's extenders narrow the candidates, as
// upstream does between finding candidates and picking one: each extender
// with a preempt verb that is interested in the pod gets the candidates left
// by the one before, in the configured order, and its answer replaces them,
// nodes and victims both. A failing extender is skipped when ignorable and
// fails the preemption otherwise; so does a node it keeps without victims,
// which an ignorable extender merely loses. Once no node is left, no
// further extender is asked.
func (p *DefaultPreemption) callExtenders(ctx context.Context, pod *v1.Pod, candidates []*candidate, lister framework.NodeInfoLister) ([]*candidate, error) {
	holder, ok := p.handle.(extenderHolder)
	if !ok || len(candidates) == 0 {
		return candidates, nil
	}
	logger := klog.FromContext(ctx)
	var victims map[string]*extender.Victims
	for _, e := range holder.Extenders() {
		if !e.SupportsPreemption() || !e.IsInterested(pod) {
			continue
		}
		if victims == nil {
			victims = toVictims(candidates)
		}
		kept, err := e.ProcessPreemption(ctx, pod, victims, lister)
		if err != nil {
			if e.IsIgnorable() {
				logger.V(2).Info("Skipping an ignorable extender that failed to process preemption", "extender", e.Name(), "err", err)
				continue
			}
			return nil, fmt.Errorf("extender %s failed to process preemption: %w", e.Name(), err)
		}
		for name, v := range kept {
			if v != nil && len(v.Pods) > 0 {
				continue
			}
			if !e.IsIgnorable() {
				return nil, fmt.Errorf("extender %s: expected at least one victim pod on node %q", e.Name(), name)
			}
			logger.V(2).Info("Dropping a node an ignorable extender kept without victims", "extender", e.Name(), "node", klog.KRef("", name))
			delete(kept, name)
		}
		victims = kept
		if len(victims) == 0 {
			break
		}
	}
	if victims == nil {
		return candidates, nil
	}
	return fromVictims(candidates, victims), nil
}

// toVictims is the candidates in the extenders' terms.
func toVictims(candidates []*candidate) map[string]*extender.Victims {
	out := make(map[string]*extender.Victims, len(candidates))
	for _, c := range candidates {
		out[c.node] = &extender.Victims{Pods: c.victims, NumPDBViolations: int64(c.pdbViolations)}
	}
	return out
}

// fromVictims turns the extenders' answer back into candidates: the nodes
// that were candidates keep their order, and any node an extender added
// comes after them by name. Victims and budget violations are the answer's.
func fromVictims(candidates []*candidate, victims map[string]*extender.Victims) []*candidate {
	out := make([]*candidate, 0, len(victims))
	seen := make(map[string]bool, len(candidates))
	add := func(name string) {
		v := victims[name]
		out = append(out, &candidate{node: name, victims: v.Pods, pdbViolations: int(v.NumPDBViolations)})
	}
	for _, c := range candidates {
		seen[c.node] = true
		if _, ok := victims[c.node]; ok {
			add(c.node)
		}
	}
	var added []string
	for name := range victims {
		if !seen[name] {
			added = append(added, name)
		}
	}
	slices.Sort(added)
	for _, name := range added {
		add(name)
	}
	return out
}
