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
