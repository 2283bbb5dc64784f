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

package controllers

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// patchStatus merge-patches the status of original, a kind object, into that
// of patched; an object deleted meanwhile needs no status and is not an error.
func patchStatus(ctx context.Context, c client.Client, kind string, original, patched client.Object) error {
	if err := c.Status().Patch(ctx, patched, client.MergeFrom(original)); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("patching the status of %s %s: %w", kind, original.GetName(), err)
	}
	return nil
}

// patchStatusLocked is patchStatus with the original's resourceVersion as a
// precondition, for a status that another writer shares (the scheduler
// applies its own condition to PodGroups): a conflict reports requeue, so
// that the status is computed again from the object as it now is.
func patchStatusLocked(ctx context.Context, c client.Client, kind string, original, patched client.Object) (requeue bool, err error) {
	err = c.Status().Patch(ctx, patched, client.MergeFromWithOptions(original, client.MergeFromWithOptimisticLock{}))
	switch {
	case err == nil, apierrors.IsNotFound(err):
		return false, nil
	case apierrors.IsConflict(err):
		return true, nil
	}
	return false, fmt.Errorf("patching the status of %s %s: %w", kind, original.GetName(), err)
}
