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

package berthtest

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/berth-io/berth/scheduler/schedtest"
)

// NewPod starts a pending pod as a test creates it in the apiserver, for
// the default-scheduler: one pause container, named app, requesting 100m
// CPU and 128Mi of memory, and no UID. It is a scheduler/schedtest builder:
// chain its methods (SchedulerName, Req, Label, ...).
func NewPod(namespace, name string) *schedtest.PodBuilder {
	return schedtest.Pod(name).UID("").Namespace(namespace).SchedulerName(corev1.DefaultSchedulerName).
		ContainerName("app").Image("registry.k8s.io/pause:3.10").Req("cpu", "100m", "memory", "128Mi")
}

// WaitForPodBound waits until the pod is bound to a node and returns it. It
// watches the pod, so it returns as soon as the apiserver has the binding.
// Without a deadline on ctx it gives up after the Env's wait timeout.
func (e *Env) WaitForPodBound(ctx context.Context, namespace, name string) (*corev1.Pod, error) {
	ctx, cancel := e.waitContext(ctx)
	defer cancel()
	pods := e.Clientset.CoreV1().Pods(namespace)
	var last *corev1.Pod
	for {
		pod, err := pods.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, fmt.Errorf("waiting for pod %s/%s to be bound: %w", namespace, name, err)
		}
		if pod.Spec.NodeName != "" {
			return pod, nil
		}
		last = pod
		w, err := pods.Watch(ctx, metav1.ListOptions{
			FieldSelector:   fields.OneTermEqualSelector("metadata.name", name).String(),
			ResourceVersion: pod.ResourceVersion,
		})
		if err != nil {
			return nil, fmt.Errorf("watching pod %s/%s: %w", namespace, name, unbound(last, err))
		}
		bound, err := boundFrom(ctx, w, last)
		w.Stop()
		if bound != nil || err != nil {
			return bound, err
		}
		// The watch ended early; look again.
	}
}

// boundFrom reads watch events until the pod is bound (returned), deleted,
// ctx ends (errors), or the watch closes (nil, nil). last is the pod as last seen.
func boundFrom(ctx context.Context, w watch.Interface, last *corev1.Pod) (*corev1.Pod, error) {
	for {
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for the pod to be bound: %w", unbound(last, context.Cause(ctx)))
		case ev, ok := <-w.ResultChan():
			if !ok {
				return nil, nil
			}
			switch ev.Type {
			case watch.Error:
				return nil, fmt.Errorf("watching the pod: %w", apierrors.FromObject(ev.Object))
			case watch.Deleted:
				return nil, fmt.Errorf("the pod was deleted before it was bound")
			case watch.Added, watch.Modified:
				pod, ok := ev.Object.(*corev1.Pod)
				if !ok {
					continue
				}
				if pod.Spec.NodeName != "" {
					return pod, nil
				}
				last = pod
			}
		}
	}
}

// unbound adds the pod's PodScheduled condition, which says why it is not
// bound, to err.
func unbound(pod *corev1.Pod, err error) error {
	if pod == nil {
		return err
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
			return fmt.Errorf("%w (PodScheduled=False, %s: %s)", err, c.Reason, c.Message)
		}
	}
	return err
}

// CreateNamespace creates a namespace named prefix-<random> and returns its
// name. envtest runs no namespace controller: deleting a namespace leaves its
// pods, so DeleteNamespace deletes them first.
func (e *Env) CreateNamespace(ctx context.Context, prefix string) (string, error) {
	ns, err := e.Clientset.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("creating a namespace: %w", err)
	}
	return ns.Name, nil
}

// DeleteNamespace deletes the namespace's pods at once and then the namespace.
func (e *Env) DeleteNamespace(ctx context.Context, name string) error {
	if err := e.Clientset.CoreV1().Pods(name).DeleteCollection(ctx, *metav1.NewDeleteOptions(0), metav1.ListOptions{}); err != nil {
		return fmt.Errorf("deleting the pods of namespace %s: %w", name, err)
	}
	if err := e.Clientset.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting namespace %s: %w", name, err)
	}
	return nil
}
