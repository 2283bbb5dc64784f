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
	"slices"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
)

// QueueSortFunc returns the Less of the profile's QueueSort plugin.
func (f *Framework) QueueSortFunc() framework.LessFunc {
	return f.queueSort[0].Less
}

// RunPreEnqueuePlugins runs the PreEnqueue plugins but those named in skip
// until one does not return Success. A rejection carries the plugin's name;
// any other failure becomes an Error naming the plugin.
func (f *Framework) RunPreEnqueuePlugins(ctx context.Context, pod *v1.Pod, skip ...string) *framework.Status {
	for _, pl := range f.preEnqueue {
		if slices.Contains(skip, pl.Name()) {
			continue
		}
		s := pl.PreEnqueue(ctx, pod)
		if s.IsSuccess() {
			continue
		}
		if s.IsRejected() {
			return s.WithPlugin(pl.Name())
		}
		return framework.AsStatus(fmt.Errorf("running PreEnqueue plugin %q: %w", pl.Name(), s.AsError())).WithPlugin(pl.Name())
	}
	return nil
}

// QueueingHintMap returns, per plugin that can reject pods, the cluster
// events that may make a rejected pod schedulable again. The map is shared:
// callers must not change it.
func (f *Framework) QueueingHintMap() map[string][]framework.ClusterEventWithHint {
	return f.queueingHints
}
