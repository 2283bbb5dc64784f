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

package framework

import (
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
)

// AffinityTerm is a parsed pod (anti-)affinity term.
type AffinityTerm struct {
	// Namespaces are the namespaces the term selects pods in.
	Namespaces sets.Set[string]
	// Selector selects pods by label.
	Selector labels.Selector
	// TopologyKey is the node label that defines a topology domain.
	TopologyKey string
	// NamespaceSelector selects further namespaces by label.
	NamespaceSelector labels.Selector
}

// Matches reports whether the pod, in a namespace with nsLabels, is selected by the term.
func (t *AffinityTerm) Matches(pod *v1.Pod, nsLabels labels.Set) bool {
	if t.Namespaces.Has(pod.Namespace) || t.NamespaceSelector.Matches(nsLabels) {
		return t.Selector.Matches(labels.Set(pod.Labels))
	}
	return false
}

// WeightedAffinityTerm is a preferred term with its weight.
type WeightedAffinityTerm struct {
	AffinityTerm
	// Weight is the term's weight, 1-100.
	Weight int32
}

// PodInfo is a pod with what the scheduler derives from it once: parsed
// affinity terms and resource requests.
type PodInfo struct {
	// Pod is the pod itself.
	Pod *v1.Pod
	// Requests are the pod's effective requests.
	Requests *Resource
	// NonZeroRequests are the requests with defaults for unset CPU and memory.
	NonZeroRequests *Resource
	// RequiredAffinityTerms are the pod's required pod-affinity terms.
	RequiredAffinityTerms []AffinityTerm
	// RequiredAntiAffinityTerms are the pod's required pod-anti-affinity terms.
	RequiredAntiAffinityTerms []AffinityTerm
	// PreferredAffinityTerms are the pod's preferred pod-affinity terms.
	PreferredAffinityTerms []WeightedAffinityTerm
	// PreferredAntiAffinityTerms are the pod's preferred pod-anti-affinity terms.
	PreferredAntiAffinityTerms []WeightedAffinityTerm

	// The queue's sort compares the priority for every pair it orders;
	// kept here, next to the queue's entry, it spares two reads of the pod
	// per pair. derived says Update set it (a PodInfo built as a literal
	// has not).
	priority int32
	derived  bool
}

// Priority returns the pod's priority, 0 when it has none.
func (pi *PodInfo) Priority() int32 {
	if !pi.derived {
		return corev1helpers.PodPriority(pi.Pod)
	}
	return pi.priority
}

// NewPodInfo derives a PodInfo from a pod. An unparsable affinity selector is an error.
func NewPodInfo(pod *v1.Pod) (*PodInfo, error) {
	pi := &PodInfo{}
	return pi, pi.Update(pod)
}

// Update re-derives the PodInfo from a new version of its pod.
func (pi *PodInfo) Update(pod *v1.Pod) error {
	if pi.Pod != nil && pi.Pod.UID == pod.UID && pi.Pod.Generation == pod.Generation && pi.Requests != nil &&
		pod.ResourceVersion == pi.Pod.ResourceVersion {
		return nil
	}
	pi.Pod = pod
	pi.priority = corev1helpers.PodPriority(pod)
	pi.derived = true
	pi.Requests = PodRequests(pod)
	pi.NonZeroRequests = PodNonZeroRequests(pod)
	pi.RequiredAffinityTerms, pi.RequiredAntiAffinityTerms = nil, nil
	pi.PreferredAffinityTerms, pi.PreferredAntiAffinityTerms = nil, nil
	aff := pod.Spec.Affinity
	if aff == nil {
		return nil
	}
	var err error
	if a := aff.PodAffinity; a != nil {
		if pi.RequiredAffinityTerms, err = parseTerms(pod, a.RequiredDuringSchedulingIgnoredDuringExecution); err != nil {
			return err
		}
		if pi.PreferredAffinityTerms, err = parseWeightedTerms(pod, a.PreferredDuringSchedulingIgnoredDuringExecution); err != nil {
			return err
		}
	}
	if a := aff.PodAntiAffinity; a != nil {
		if pi.RequiredAntiAffinityTerms, err = parseTerms(pod, a.RequiredDuringSchedulingIgnoredDuringExecution); err != nil {
			return err
		}
		if pi.PreferredAntiAffinityTerms, err = parseWeightedTerms(pod, a.PreferredDuringSchedulingIgnoredDuringExecution); err != nil {
			return err
		}
	}
	return nil
}

func parseTerms(pod *v1.Pod, terms []v1.PodAffinityTerm) ([]AffinityTerm, error) {
	if len(terms) == 0 {
		return nil, nil
	}
	out := make([]AffinityTerm, 0, len(terms))
	for i := range terms {
		t, err := newAffinityTerm(pod, &terms[i])
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func parseWeightedTerms(pod *v1.Pod, terms []v1.WeightedPodAffinityTerm) ([]WeightedAffinityTerm, error) {
	if len(terms) == 0 {
		return nil, nil
	}
	out := make([]WeightedAffinityTerm, 0, len(terms))
	for i := range terms {
		t, err := newAffinityTerm(pod, &terms[i].PodAffinityTerm)
		if err != nil {
			return nil, err
		}
		out = append(out, WeightedAffinityTerm{AffinityTerm: t, Weight: terms[i].Weight})
	}
	return out, nil
}

func newAffinityTerm(pod *v1.Pod, term *v1.PodAffinityTerm) (AffinityTerm, error) {
	selector, err := metav1.LabelSelectorAsSelector(term.LabelSelector)
	if err != nil {
		return AffinityTerm{}, fmt.Errorf("pod %s/%s: affinity labelSelector: %w", pod.Namespace, pod.Name, err)
	}
	// matchLabelKeys and mismatchLabelKeys take their values from the pod itself.
	if len(term.MatchLabelKeys) > 0 || len(term.MismatchLabelKeys) > 0 {
		reqs, _ := selector.Requirements()
		sel := labels.NewSelector().Add(reqs...)
		for _, key := range term.MatchLabelKeys {
			if v, ok := pod.Labels[key]; ok {
				r, err := labels.NewRequirement(key, "in", []string{v})
				if err == nil {
					sel = sel.Add(*r)
				}
			}
		}
		for _, key := range term.MismatchLabelKeys {
			if v, ok := pod.Labels[key]; ok {
				r, err := labels.NewRequirement(key, "notin", []string{v})
				if err == nil {
					sel = sel.Add(*r)
				}
			}
		}
		selector = sel
	}
	namespaces := sets.New(term.Namespaces...)
	nsSelector := labels.Nothing()
	if term.NamespaceSelector != nil {
		if nsSelector, err = metav1.LabelSelectorAsSelector(term.NamespaceSelector); err != nil {
			return AffinityTerm{}, fmt.Errorf("pod %s/%s: affinity namespaceSelector: %w", pod.Namespace, pod.Name, err)
		}
	} else if len(namespaces) == 0 {
		namespaces.Insert(pod.Namespace)
	}
	return AffinityTerm{Namespaces: namespaces, Selector: selector, TopologyKey: term.TopologyKey, NamespaceSelector: nsSelector}, nil
}

// QueuedPodInfo is a pod in the scheduling queue, with its queueing history.
type QueuedPodInfo struct {
	*PodInfo
	// Timestamp is when the pod was last added to the queue.
	Timestamp time.Time
	// InitialAttemptTimestamp is when the pod was first popped for scheduling.
	InitialAttemptTimestamp *time.Time
	// Attempts counts scheduling attempts; backoff grows with it.
	Attempts int
	// UnschedulablePlugins are the plugins that rejected the pod in its last attempt.
	UnschedulablePlugins sets.Set[string]
	// PendingPlugins are the plugins that returned Pending in its last attempt.
	PendingPlugins sets.Set[string]
	// GatingPlugin is the PreEnqueue plugin that keeps the pod out of activeQ, if any.
	GatingPlugin string
	// ConsecutiveErrorsCount counts attempts that ended in Error, not Unschedulable.
	ConsecutiveErrorsCount int
	// BackoffFrom is the value of Attempts backoff counts from: a PodGroup
	// member its group's successful cycle left out backs off afresh, as
	// kube-scheduler resets the counts of a group that scheduled.
	BackoffFrom int
	// GroupSize is how many members of the pod's PodGroup its last group
	// cycle requeued together; above one, the pod's maximum backoff grows
	// with its square root, as kube-scheduler's does for a pod group.
	GroupSize int
}

// Key returns the pod's namespace/name key.
func (q *QueuedPodInfo) Key() string { return PodKey(q.Pod) }

// DeepCopy copies the QueuedPodInfo; the pod itself is shared.
func (q *QueuedPodInfo) DeepCopy() *QueuedPodInfo {
	out := *q
	pi := *q.PodInfo
	out.PodInfo = &pi
	out.UnschedulablePlugins = q.UnschedulablePlugins.Clone()
	out.PendingPlugins = q.PendingPlugins.Clone()
	return &out
}

// PodKey returns namespace/name.
func PodKey(pod *v1.Pod) string { return pod.Namespace + "/" + pod.Name }
