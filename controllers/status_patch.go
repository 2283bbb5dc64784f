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
