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

package volumebinding

import (
	"fmt"
	"strconv"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
)

// assumeCache overlays in-memory versions of objects on an informer's store.
// An assumed object is a change the scheduler has decided on but not yet
// written (a PV's claimRef, a PVC's selected-node annotation); it hides the
// informer's version only while that version keeps the resourceVersion the
// assumed object was made from. Once the informer sees a newer version (the
// scheduler's own write or anyone else's), the overlay expires by itself, so
// the cache needs no event handlers and cannot drift from the informer.
type assumeCache[T metav1.Object] struct {
	store    cache.Indexer
	resource schema.GroupResource

	mu      sync.RWMutex
	assumed map[string]T
}

func newAssumeCache[T metav1.Object](store cache.Indexer, resource string) *assumeCache[T] {
	return &assumeCache[T]{store: store, resource: schema.GroupResource{Resource: resource}, assumed: map[string]T{}}
}

// objectKey is the store key of obj: name, or namespace/name.
func objectKey(obj metav1.Object) string {
	if ns := obj.GetNamespace(); ns != "" {
		return ns + "/" + obj.GetName()
	}
	return obj.GetName()
}

// apiObject returns the informer's version of the object under key, or a
// NotFound error.
func (c *assumeCache[T]) apiObject(key string) (T, error) {
	var zero T
	obj, ok, err := c.store.GetByKey(key)
	if err != nil {
		return zero, fmt.Errorf("reading %s %q from the informer: %w", c.resource.Resource, key, err)
	}
	if !ok {
		return zero, apierrors.NewNotFound(c.resource, key)
	}
	t, ok := obj.(T)
	if !ok {
		return zero, fmt.Errorf("informer of %s holds a %T", c.resource.Resource, obj)
	}
	return t, nil
}

// get returns the assumed version of the object under key if it is still
// current, else the informer's version.
func (c *assumeCache[T]) get(key string) (T, error) {
	obj, err := c.apiObject(key)
	if err != nil {
		return obj, err
	}
	c.mu.RLock()
	a, ok := c.assumed[key]
	c.mu.RUnlock()
	if ok && a.GetResourceVersion() == obj.GetResourceVersion() {
		return a, nil
	}
	return obj, nil
}

// byIndex lists the informer's objects under an index value with current
// assumed versions in their place.
func (c *assumeCache[T]) byIndex(index, value string) ([]T, error) {
	objs, err := c.store.ByIndex(index, value)
	if err != nil {
		return nil, fmt.Errorf("listing %s by %s: %w", c.resource.Resource, index, err)
	}
	out := make([]T, 0, len(objs))
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, o := range objs {
		t, ok := o.(T)
		if !ok {
			continue
		}
		if a, ok := c.assumed[objectKey(t)]; ok && a.GetResourceVersion() == t.GetResourceVersion() {
			t = a
		}
		out = append(out, t)
	}
	return out, nil
}

// assume records obj as the object's pending version. obj must have been
// derived from the informer's current version (same resourceVersion);
// otherwise the decision was made on stale data and assume fails.
func (c *assumeCache[T]) assume(obj T) error {
	key := objectKey(obj)
	stored, err := c.apiObject(key)
	if err != nil {
		return err
	}
	if stored.GetResourceVersion() != obj.GetResourceVersion() {
		return fmt.Errorf("%s %q changed since it was read (informer has version %s, assumed %s)",
			c.resource.Resource, key, stored.GetResourceVersion(), obj.GetResourceVersion())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pruneLocked()
	c.assumed[key] = obj
	return nil
}

// restore drops the pending version of obj if it is the one assumed, so the
// informer's version shows again.
func (c *assumeCache[T]) restore(obj T) {
	key := objectKey(obj)
	c.mu.Lock()
	defer c.mu.Unlock()
	if a, ok := c.assumed[key]; ok && a.GetResourceVersion() == obj.GetResourceVersion() {
		delete(c.assumed, key)
	}
}

// pruneLocked forgets overlays the informer has moved past, keeping the map
// as small as the number of bindings in flight.
func (c *assumeCache[T]) pruneLocked() {
	for key, a := range c.assumed {
		obj, ok, err := c.store.GetByKey(key)
		if err != nil {
			continue
		}
		if !ok {
			delete(c.assumed, key)
			continue
		}
		if m, isMeta := obj.(metav1.Object); !isMeta || m.GetResourceVersion() != a.GetResourceVersion() {
			delete(c.assumed, key)
		}
	}
}

// assumedCount reports how many overlays are held, for tests.
func (c *assumeCache[T]) assumedCount() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.assumed)
}

// newerThan reports whether resourceVersion a is newer than b. Versions are
// opaque to clients but etcd-backed servers use integers; versions that do
// not parse are never reported newer.
func newerThan(a, b string) bool {
	x, errX := strconv.ParseUint(a, 10, 64)
	y, errY := strconv.ParseUint(b, 10, 64)
	return errX == nil && errY == nil && x > y
}
