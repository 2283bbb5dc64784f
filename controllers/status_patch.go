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
