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

package evictor

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/berth-io/berth/api/v1alpha1"
)

// Evict evicts pod through the policy/v1 Eviction API, guarded by the pod's
// UID. A refusal by a PodDisruptionBudget (429) is Blocked; any other error
// is Failed.
func Evict(ctx context.Context, c kubernetes.Interface, pod *v1.Pod) (v1alpha1.EvictionResult, error) {
	uid := pod.UID
	eviction := &policyv1.Eviction{
		ObjectMeta:    metav1.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace},
		DeleteOptions: &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}},
	}
	err := c.PolicyV1().Evictions(pod.Namespace).Evict(ctx, eviction)
	switch {
	case err == nil:
		return v1alpha1.EvictionEvicted, nil
	case apierrors.IsTooManyRequests(err):
		return v1alpha1.EvictionBlocked, fmt.Errorf("a PodDisruptionBudget refused the eviction: %w", err)
	default:
		return v1alpha1.EvictionFailed, fmt.Errorf("evicting the pod: %w", err)
	}
}
