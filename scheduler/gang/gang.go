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

// Package gang gives the scheduler its view of gangs: the PodGroups it
// watches, their member pods (indexed by the scheduling.berth.io/pod-group
// label) and which members are already placed, plus a queue order that keeps
// a gang's members side by side.
package gang

import (
	"errors"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
)

// MemberIndex is the name of the pod informer index that maps
// "namespace/group" to the group's member pods.
const MemberIndex = "berth.io/pod-group"

// IndexMembers is the index function of MemberIndex: a labelled pod maps to
// its group's key, any other object to nothing.
func IndexMembers(obj any) ([]string, error) {
	pod, ok := obj.(*v1.Pod)
	if !ok {
		return nil, nil
	}
	name, ok := framework.PodGroupOf(pod)
	if !ok {
		return nil, nil
	}
	return []string{pod.Namespace + "/" + name}, nil
}

// NewListWatch returns a ListerWatcher of every PodGroup in the cluster,
// reached through cfg. PodGroups are a custom resource, so it speaks JSON
// whatever content type cfg prefers.
func NewListWatch(cfg *rest.Config) (cache.ListerWatcher, error) {
	scheme := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("registering Berth's API types: %w", err)
	}
	c := rest.CopyConfig(cfg)
	c.GroupVersion = &v1alpha1.GroupVersion
	c.APIPath = "/apis"
	c.ContentType = runtime.ContentTypeJSON
	c.AcceptContentTypes = runtime.ContentTypeJSON
	c.NegotiatedSerializer = serializer.NewCodecFactory(scheme).WithoutConversion()
	client, err := rest.RESTClientFor(c)
	if err != nil {
		return nil, fmt.Errorf("building the PodGroup client: %w", err)
	}
	return cache.NewListWatchFromClient(client, "podgroups", metav1.NamespaceAll, fields.Everything()), nil
}

// Groups tracks PodGroups and their members. Its zero value is not usable;
// build it with New.
type Groups struct {
	informer cache.SharedIndexInformer
	pods     cache.Indexer
	assumed  func(*v1.Pod) bool
}

var _ framework.PodGroupLister = (*Groups)(nil)

// Option configures Groups.
type Option func(*Groups)

// WithSource watches PodGroups through lw; without it no PodGroup is known.
func WithSource(lw cache.ListerWatcher) Option {
	return func(g *Groups) {
		g.informer = cache.NewSharedIndexInformer(lw, &v1alpha1.PodGroup{}, 0, cache.Indexers{})
		_ = g.informer.SetTransform(dropManagedFields)
	}
}

// New returns Groups that read members from pods, an indexer carrying
// MemberIndex, and ask assumed whether the scheduler holds a pod as assumed.
func New(pods cache.Indexer, assumed func(*v1.Pod) bool, opts ...Option) *Groups {
	g := &Groups{pods: pods, assumed: assumed}
	for _, o := range opts {
		o(g)
	}
	return g
}

// Informer returns the PodGroup informer, or nil without a source.
func (g *Groups) Informer() cache.SharedIndexInformer { return g.informer }

// errNotWatched is the answer for every group when no source is configured.
var errNotWatched = errors.New("this scheduler does not watch PodGroups")

// PodGroup returns the named PodGroup, or an error saying why it is unknown.
func (g *Groups) PodGroup(namespace, name string) (*v1alpha1.PodGroup, error) {
	if g.informer == nil {
		return nil, errNotWatched
	}
	obj, ok, err := g.informer.GetStore().GetByKey(namespace + "/" + name)
	if err != nil {
		return nil, fmt.Errorf("reading PodGroup %s/%s: %w", namespace, name, err)
	}
	if !ok {
		return nil, fmt.Errorf("PodGroup %s/%s does not exist", namespace, name)
	}
	return obj.(*v1alpha1.PodGroup), nil
}

// Members returns the group's pods that are neither terminal nor being deleted.
func (g *Groups) Members(namespace, name string) []*v1.Pod {
	objs, err := g.pods.ByIndex(MemberIndex, namespace+"/"+name)
	if err != nil {
		return nil
	}
	out := make([]*v1.Pod, 0, len(objs))
	for _, obj := range objs {
		pod, ok := obj.(*v1.Pod)
		if !ok || pod.DeletionTimestamp != nil || pod.Status.Phase == v1.PodSucceeded || pod.Status.Phase == v1.PodFailed {
			continue
		}
		out = append(out, pod)
	}
	return out
}

// IsPlaced reports whether the pod is bound or assumed on a node.
func (g *Groups) IsPlaced(pod *v1.Pod) bool {
	return pod.Spec.NodeName != "" || g.assumed(pod)
}

// Less orders the queue as PrioritySort does, except that among pods of
// equal priority a gang's members all take their PodGroup's creation time
// and then sort by group, so that they leave the queue one after another.
// base breaks the remaining ties.
func (g *Groups) Less(base framework.LessFunc) framework.LessFunc {
	return func(a, b *framework.QueuedPodInfo) bool {
		pa, pb := a.Priority(), b.Priority()
		if pa != pb {
			return pa > pb
		}
		ta, ga := g.sortKey(a)
		tb, gb := g.sortKey(b)
		if !ta.Equal(tb) {
			return ta.Before(tb)
		}
		if ga != gb {
			return ga < gb
		}
		return base(a, b)
	}
}

// sortKey returns the time a queued pod sorts by and its group key ("" for
// a pod in no known group).
func (g *Groups) sortKey(q *framework.QueuedPodInfo) (time.Time, string) {
	name, ok := q.PodGroup()
	if !ok || g.informer == nil {
		return q.Timestamp, ""
	}
	key := q.Pod.Namespace + "/" + name
	obj, ok, err := g.informer.GetStore().GetByKey(key)
	if err != nil || !ok {
		return q.Timestamp, ""
	}
	return obj.(*v1alpha1.PodGroup).CreationTimestamp.Time, key
}

// dropManagedFields strips what the scheduler never reads from PodGroups.
func dropManagedFields(obj any) (any, error) {
	if accessor, err := meta.Accessor(obj); err == nil {
		accessor.SetManagedFields(nil)
	}
	return obj, nil
}
