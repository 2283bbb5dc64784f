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

// Package evictor decides which pods a RebalancePolicy may evict and evicts
// them: the descheduler's DefaultEvictor protections, the per-run limits,
// nodeFit through a compiled profile's filters, and the Eviction API call.
package evictor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"

	"github.com/berth-io/berth/api/v1alpha1"
)

// Well-known names the protections read.
const (
	// EvictAnnotation on a pod lifts every protection but the one of terminating pods.
	EvictAnnotation = "descheduler.alpha.kubernetes.io/evict"
	// SystemCriticalPriority is the priority at and above which a pod is system-critical.
	SystemCriticalPriority int32 = 2_000_000_000
	// configSourceAnnotation says where the kubelet found a pod; static pods come from a file or URL.
	configSourceAnnotation = "kubernetes.io/config.source"
	// mirrorPodAnnotation marks the apiserver's copy of a static pod.
	mirrorPodAnnotation = "kubernetes.io/config.mirror"
)

// Protections are the checks every pod passes before a strategy may evict
// it, as the descheduler's DefaultEvictor: each can be lifted by the
// policy's evictor options.
type Protections struct {
	opts       v1alpha1.EvictorOptions
	namespaces v1alpha1.NamespaceFilter
	selector   labels.Selector
	// threshold is the priority at and above which pods stay; nil for none.
	threshold *int32
}

// NewProtections returns the protections of spec. threshold is the resolved
// priorityThreshold (see ResolvePriorityThreshold), nil when none is set.
func NewProtections(spec *v1alpha1.RebalancePolicySpec, threshold *int32) (*Protections, error) {
	p := &Protections{selector: labels.Everything(), threshold: threshold}
	if spec.Evictor != nil {
		p.opts = *spec.Evictor
	}
	if spec.Namespaces != nil {
		p.namespaces = *spec.Namespaces
	}
	if p.opts.LabelSelector != nil {
		sel, err := metav1.LabelSelectorAsSelector(p.opts.LabelSelector)
		if err != nil {
			return nil, fmt.Errorf("evictor.labelSelector: %w", err)
		}
		p.selector = sel
	}
	return p, nil
}

// Check returns nil when pod may be evicted at now, or an error saying
// which protection keeps it.
func (p *Protections) Check(pod *v1.Pod, now time.Time) error {
	if pod.DeletionTimestamp != nil {
		return errors.New("pod is terminating")
	}
	if len(p.namespaces.Include) > 0 && !slices.Contains(p.namespaces.Include, pod.Namespace) {
		return errors.New("namespace is not included")
	}
	if slices.Contains(p.namespaces.Exclude, pod.Namespace) {
		return errors.New("namespace is excluded")
	}
	if !p.selector.Matches(labels.Set(pod.Labels)) {
		return errors.New("pod does not match the evictor's labelSelector")
	}
	if p.opts.MinPodAge != nil && now.Sub(pod.CreationTimestamp.Time) < p.opts.MinPodAge.Duration {
		return fmt.Errorf("pod is younger than minPodAge %s", p.opts.MinPodAge.Duration)
	}
	if _, forced := pod.Annotations[EvictAnnotation]; forced {
		return nil
	}
	if isMirrorOrStatic(pod) {
		return errors.New("pod is a mirror or static pod")
	}
	if !p.opts.EvictSystemCriticalPods {
		if isSystemCritical(pod) {
			return errors.New("pod is system-critical")
		}
		if p.threshold != nil && pod.Spec.Priority != nil && *pod.Spec.Priority >= *p.threshold {
			return fmt.Errorf("pod priority %d is at or above the priorityThreshold %d", *pod.Spec.Priority, *p.threshold)
		}
	}
	owners := pod.OwnerReferences
	if len(owners) == 0 && !(p.opts.EvictFailedBarePods && pod.Status.Phase == v1.PodFailed) {
		return errors.New("pod has no owner")
	}
	if !p.opts.EvictDaemonSetPods && slices.ContainsFunc(owners, func(o metav1.OwnerReference) bool { return o.Kind == "DaemonSet" }) {
		return errors.New("pod belongs to a DaemonSet")
	}
	if !p.opts.EvictLocalStoragePods && slices.ContainsFunc(pod.Spec.Volumes, func(v v1.Volume) bool {
		return v.EmptyDir != nil || v.HostPath != nil
	}) {
		return errors.New("pod has local storage")
	}
	if p.opts.IgnorePVCPods && slices.ContainsFunc(pod.Spec.Volumes, func(v v1.Volume) bool { return v.PersistentVolumeClaim != nil }) {
		return errors.New("pod mounts a PersistentVolumeClaim")
	}
	return nil
}

// NodeFit reports whether the policy asks for nodeFit.
func (p *Protections) NodeFit() bool { return p.opts.NodeFit }

func isMirrorOrStatic(pod *v1.Pod) bool {
	if _, ok := pod.Annotations[mirrorPodAnnotation]; ok {
		return true
	}
	src, ok := pod.Annotations[configSourceAnnotation]
	return ok && src != "api"
}

func isSystemCritical(pod *v1.Pod) bool {
	if strings.HasPrefix(pod.Spec.PriorityClassName, "system-") && strings.HasSuffix(pod.Spec.PriorityClassName, "-critical") {
		return true
	}
	return pod.Spec.Priority != nil && *pod.Spec.Priority >= SystemCriticalPriority
}

// ResolvePriorityThreshold returns the priority a threshold names: its
// value, or the value of its PriorityClass read through c. nil means no threshold.
func ResolvePriorityThreshold(ctx context.Context, c kubernetes.Interface, t *v1alpha1.PriorityThreshold) (*int32, error) {
	switch {
	case t == nil:
		return nil, nil
	case t.Value != nil:
		v := *t.Value
		return &v, nil
	case t.Name != "":
		pc, err := c.SchedulingV1().PriorityClasses().Get(ctx, t.Name, metav1.GetOptions{})
		if err != nil {
			return nil, fmt.Errorf("reading PriorityClass %s of the priorityThreshold: %w", t.Name, err)
		}
		v := pc.Value
		return &v, nil
	}
	return nil, nil
}
