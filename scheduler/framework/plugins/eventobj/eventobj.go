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
