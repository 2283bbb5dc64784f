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

package scheduler

import (
	"k8s.io/client-go/tools/cache"

	"github.com/berth-io/berth/scheduler/intern"
)

// newInformerTransform returns the transform of the scheduler's informers:
// it drops managedFields, which no plugin reads, and makes pods and nodes
// share their equal parts (labels, resource lists, tolerations, strings)
// through one intern.Table, which halves the bytes a pod of a replicated
// workload holds in the cache. Both steps are idempotent, as client-go
// asks of a transform.
func newInformerTransform() cache.TransformFunc {
	table := intern.New()
	return func(obj any) (any, error) {
		return table.Transform(stripManagedFields(obj))
	}
}
