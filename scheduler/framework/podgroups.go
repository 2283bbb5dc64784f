package framework

import (
	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/api/v1alpha1"
)

// PodGroupLister reads the gangs (PodGroups) the scheduler watches and their members.
type PodGroupLister interface {
	// PodGroup returns the named PodGroup, or an error that says why it is unknown.
	PodGroup(namespace, name string) (*v1alpha1.PodGroup, error)
	// Members returns the group's member pods that are neither terminal nor
	// being deleted, bound or not. The pods must not be modified.
	Members(namespace, name string) []*v1.Pod
	// IsPlaced reports whether the pod is assumed on or bound to a node.
	IsPlaced(pod *v1.Pod) bool
}

// PodActivator moves pending pods straight to the active queue.
type PodActivator interface {
	// Activate moves the pods, keyed by namespace/name, from backoff or the
	// unschedulable set to activeQ; other pods are ignored.
	Activate(logger logr.Logger, pods map[string]*v1.Pod)
}

// PodGroupOf returns the name of the PodGroup the pod joins by its label, if any.
func PodGroupOf(pod *v1.Pod) (string, bool) {
	name, ok := pod.Labels[v1alpha1.PodGroupLabel]
	return name, ok && name != ""
}
