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

package usage

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// SecretGetter returns the value of one key of a Secret, or an error when
// the Secret or the key is missing.
type SecretGetter func(ctx context.Context, ref SecretKeyRef) ([]byte, error)

// SecretGetterFromClient returns a SecretGetter that reads Secrets through c
// (the manager's client, or its API reader to avoid caching every Secret).
func SecretGetterFromClient(c client.Reader) SecretGetter {
	return func(ctx context.Context, ref SecretKeyRef) ([]byte, error) {
		var s corev1.Secret
		if err := c.Get(ctx, types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}, &s); err != nil {
			return nil, fmt.Errorf("getting Secret %s/%s: %w", ref.Namespace, ref.Name, err)
		}
		v, ok := s.Data[ref.Key]
		if !ok {
			return nil, fmt.Errorf("secret %s/%s has no key %q", ref.Namespace, ref.Name, ref.Key)
		}
		return v, nil
	}
}
