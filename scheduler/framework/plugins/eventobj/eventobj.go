// Package eventobj converts the old and new objects of a cluster event to
// their concrete type for queueing-hint functions.
package eventobj

import (
	"fmt"

	"k8s.io/client-go/tools/cache"
)

// Pair returns oldObj and newObj as T. A nil object stays the zero T, and a
// deletion tombstone (cache.DeletedFinalStateUnknown) is unwrapped first.
func Pair[T any](oldObj, newObj any) (old, cur T, err error) {
	if newObj != nil {
		var ok bool
		if cur, ok = newObj.(T); !ok {
			return old, cur, fmt.Errorf("new object: want %T, got %T", cur, newObj)
		}
	}
	if tomb, ok := oldObj.(cache.DeletedFinalStateUnknown); ok {
		oldObj = tomb.Obj
	}
	if oldObj != nil {
		var ok bool
		if old, ok = oldObj.(T); !ok {
			return old, cur, fmt.Errorf("old object: want %T, got %T", old, oldObj)
		}
	}
	return old, cur, nil
}
