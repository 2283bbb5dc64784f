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
	"errors"
	"fmt"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/extender"
)

// ExtenderName stands for all extenders in a pod's unschedulable plugins, so
// that any cluster event requeues a pod an extender rejected.
const ExtenderName = "Extender"

// buildExtenders makes the clients of a profile's extenders.
func (f *Framework) buildExtenders(specs []v1alpha1.Extender) error {
	var errs []error
	binders := 0
	for i, spec := range specs {
		e, err := extender.New(spec, append([]extender.Option{extender.WithMetrics(f.metrics)}, f.extenderOptions...)...)
		if err != nil {
			errs = append(errs, args.NewSpecError(args.SpecInvalid, fmt.Sprintf("extenders[%d]", i), err, "extenders", i))
			continue
		}
		if e.IsBinder() {
			binders++
		}
		f.extenders = append(f.extenders, e)
	}
	if binders > 1 {
		errs = append(errs, specErrorf(fieldPath{"extenders"}, "extenders", "at most one extender may set bindVerb"))
	}
	if len(f.extenders) > 0 {
		f.queueingHints[ExtenderName] = allEvents()
	}
	return errors.Join(errs...)
}

// Extenders returns the profile's extenders in their configured order.
func (f *Framework) Extenders() []*extender.Extender { return f.extenders }

// HasExtenderPrioritizers reports whether any extender scores nodes.
func (f *Framework) HasExtenderPrioritizers() bool {
	for _, e := range f.extenders {
		if e.IsPrioritizer() {
			return true
		}
	}
	return false
}

// RunExtenderFilters passes the feasible nodes through each interested
// filtering extender in order, recording the nodes they reject in statuses.
// An ignorable extender that fails is logged and skipped; any other failure
// ends the cycle with an error naming the extender.
func (f *Framework) RunExtenderFilters(ctx context.Context, pod *v1.Pod, feasible []*framework.NodeInfo, statuses *framework.NodeToStatus) ([]*framework.NodeInfo, error) {
	logger := klog.FromContext(ctx)
	for _, e := range f.extenders {
		if len(feasible) == 0 {
			break
		}
		if !e.IsFilter() || !e.IsInterested(pod) {
			continue
		}
		passed, failed, unresolvable, err := e.Filter(ctx, pod, feasible)
		if err != nil {
			if e.IsIgnorable() {
				logger.Info("Skipping an ignorable extender that failed", "extender", e.Name(), "err", err)
				continue
			}
			return nil, fmt.Errorf("extender %s failed to filter nodes: %w", e.Name(), err)
		}
		for name, reason := range unresolvable {
			st := framework.NewStatus(framework.UnschedulableAndUnresolvable, append(statusReasons(statuses, name), reason)...)
			statuses.Set(name, st.WithPlugin(ExtenderName))
		}
		for name, reason := range failed {
			if _, both := unresolvable[name]; both {
				continue
			}
			st := framework.NewStatus(framework.Unschedulable, append(statusReasons(statuses, name), reason)...)
			statuses.Set(name, st.WithPlugin(ExtenderName))
		}
		feasible = passed
	}
	return feasible, nil
}

// statusReasons returns the reasons already recorded for the node, if it has
// its own status (Get hands back the shared absent-nodes status otherwise).
func statusReasons(statuses *framework.NodeToStatus, name string) []string {
	st := statuses.Get(name)
	if st == nil || st == statuses.AbsentNodesStatus() {
		return nil
	}
	return append([]string(nil), st.Reasons()...)
}

// RunExtenderPrioritizers adds the weighted scores of the interested scoring
// extenders to scores, which holds one entry per node of nodes. Extender
// scores in [0, 10] are scaled to [0, 100] and multiplied by the weight;
// an extender that fails adds nothing, as upstream.
func (f *Framework) RunExtenderPrioritizers(ctx context.Context, pod *v1.Pod, nodes []*framework.NodeInfo, scores []framework.NodePluginScores) {
	if len(f.extenders) == 0 {
		// Without extenders the cycle pays nothing, not even the closure's
		// captured variables.
		return
	}
	logger := klog.FromContext(ctx)
	type answer struct {
		name   string
		list   extender.HostPriorityList
		weight int64
	}
	var (
		mu      sync.Mutex
		wg      sync.WaitGroup
		answers []answer
	)
	for _, e := range f.extenders {
		if !e.IsPrioritizer() || !e.IsInterested(pod) {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			list, weight, err := e.Prioritize(ctx, pod, nodes)
			if err != nil {
				logger.V(5).Info("Extender failed to score nodes; it gives no score", "extender", e.Name(), "err", err)
				return
			}
			mu.Lock()
			answers = append(answers, answer{name: e.Name(), list: list, weight: weight})
			mu.Unlock()
		}()
	}
	wg.Wait()
	if len(answers) == 0 {
		return
	}
	index := make(map[string]int, len(scores))
	for i := range scores {
		index[scores[i].Name] = i
	}
	scale := framework.MaxNodeScore / extender.MaxPriority
	for _, a := range answers {
		for _, hp := range a.list {
			i, ok := index[hp.Host]
			if !ok {
				continue
			}
			// An extender answers 0–MaxPriority; a score outside that range
			// (1e18, say, which would overflow the total) is cut to it.
			s := min(max(hp.Score, 0), extender.MaxPriority) * a.weight * scale
			scores[i].Scores = append(scores[i].Scores, framework.PluginScore{Name: a.name, Score: s})
			scores[i].TotalScore += s
		}
	}
}

// RunExtenderBind lets the first interested binding extender bind the pod.
// handled is false when no extender binds the pod, so the Bind plugins should.
func (f *Framework) RunExtenderBind(ctx context.Context, pod *v1.Pod, nodeName string) (handled bool, status *framework.Status) {
	for _, e := range f.extenders {
		if !e.IsBinder() || !e.IsInterested(pod) {
			continue
		}
		if err := e.Bind(ctx, pod, nodeName); err != nil {
			return true, framework.AsStatus(fmt.Errorf("extender %s failed to bind the pod: %w", e.Name(), err))
		}
		return true, nil
	}
	return false, nil
}
