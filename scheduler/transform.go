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
		obj, err := stripManagedFields(obj)
		if err != nil {
			return nil, err
		}
		return table.Transform(obj)
	}
}
