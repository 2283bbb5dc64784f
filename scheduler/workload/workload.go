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

// Package workload gives the scheduler its view of Kubernetes' own gangs,
// the scheduling.k8s.io/v1beta1 PodGroups that pods join through
// spec.schedulingGroup: whether the apiserver serves them, the groups
// themselves, their member pods, and the PodGroupInitiallyScheduled
// condition the scheduler reports on them.
package workload

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	schedulinglisters "k8s.io/client-go/listers/scheduling/v1beta1"
	"k8s.io/client-go/tools/cache"

	"github.com/berth-io/berth/scheduler/framework"
)

// GroupVersion is the API version of the PodGroups this package serves.
var GroupVersion = schedulingv1beta1.SchemeGroupVersion

// MemberIndex is the name of the pod informer index that maps
// "namespace/name" of a scheduling.k8s.io PodGroup to its member pods.
const MemberIndex = "berth.io/scheduling-group"

// IndexMembers is the index function of MemberIndex: a pod with
// spec.schedulingGroup maps to its group's key, any other object to nothing.
func IndexMembers(obj any) ([]string, error) {
	pod, ok := obj.(*v1.Pod)
	if !ok {
		return nil, nil
	}
	name, ok := framework.SchedulingGroupOf(pod)
	if !ok {
		return nil, nil
	}
	return []string{pod.Namespace + "/" + name}, nil
}

// Served reports whether the apiserver serves scheduling.k8s.io/v1beta1
// PodGroups. An apiserver that does not know the group version at all
// answers NotFound, which is no error here.
func Served(d discovery.DiscoveryInterface) (bool, error) {
	list, err := d.ServerResourcesForGroupVersion(GroupVersion.String())
	if err != nil {
		var status interface{ Status() metav1.Status }
		if errors.As(err, &status) && status.Status().Code == 404 {
			return false, nil
		}
		return false, fmt.Errorf("discovering %s: %w", GroupVersion, err)
	}
	for _, r := range list.APIResources {
		if r.Name == "podgroups" {
			return true, nil
		}
	}
	return false, nil
}

// Groups tracks scheduling.k8s.io PodGroups and their members. Build it
// with New.
type Groups struct {
	informer cache.SharedIndexInformer
	lister   schedulinglisters.PodGroupLister
	pods     cache.Indexer
	placedOn func(*v1.Pod) string
}

var _ framework.WorkloadLister = (*Groups)(nil)

// Option configures Groups.
type Option func(*Groups)

// WithInformerFactory watches PodGroups through the factory's informer;
// without it no group is served (the apiserver does not serve the API).
func WithInformerFactory(f informers.SharedInformerFactory) Option {
	return func(g *Groups) {
		inf := f.Scheduling().V1beta1().PodGroups()
		g.informer = inf.Informer()
		g.lister = inf.Lister()
	}
}

// New returns Groups that read members from pods, an indexer carrying
// MemberIndex, and ask placedOn which node the scheduler assumed a pod on
// ("" for none).
func New(pods cache.Indexer, placedOn func(*v1.Pod) string, opts ...Option) *Groups {
	g := &Groups{pods: pods, placedOn: placedOn}
	for _, o := range opts {
		o(g)
	}
	return g
}

// Informer returns the PodGroup informer, or nil when the API is not served.
func (g *Groups) Informer() cache.SharedIndexInformer { return g.informer }

// Served reports whether PodGroups are watched.
func (g *Groups) Served() bool { return g.informer != nil }

// errUnserved is the answer for every group when the API is not served.
var errUnserved = errors.New("the apiserver does not serve scheduling.k8s.io/v1beta1 PodGroups")

// PodGroup returns the named PodGroup, or an error saying why it is unknown.
func (g *Groups) PodGroup(namespace, name string) (*schedulingv1beta1.PodGroup, error) {
	if g.lister == nil {
		return nil, errUnserved
	}
	return g.lister.PodGroups(namespace).Get(name)
}

// Members returns the group's non-terminal member pods, bound or not.
func (g *Groups) Members(namespace, name string) []*v1.Pod {
	objs, err := g.pods.ByIndex(MemberIndex, namespace+"/"+name)
	if err != nil {
		return nil
	}
	pods := make([]*v1.Pod, 0, len(objs))
	for _, o := range objs {
		if p, ok := o.(*v1.Pod); ok {
			pods = append(pods, p)
		}
	}
	return pods
}

// IsPlaced reports whether the pod is bound or assumed on a node.
func (g *Groups) IsPlaced(pod *v1.Pod) bool { return g.NodeOf(pod) != "" }

// NodeOf returns the node the pod is bound to or assumed on, or "".
func (g *Groups) NodeOf(pod *v1.Pod) string {
	if pod.Spec.NodeName != "" {
		return pod.Spec.NodeName
	}
	if g.placedOn != nil {
		return g.placedOn(pod)
	}
	return ""
}

// Condition types and reasons the scheduler writes on a PodGroup, as upstream.
const (
	// ReasonScheduled is the reason of PodGroupInitiallyScheduled=True.
	ReasonScheduled = "Scheduled"
)

// PatchCondition sets cond on the PodGroup's status, as kube-scheduler
// does: a PodGroupInitiallyScheduled condition that is already True is
// never set back, and nothing is sent when the condition is unchanged. The
// condition's observedGeneration is the group's generation.
func PatchCondition(ctx context.Context, client kubernetes.Interface, pg *schedulingv1beta1.PodGroup, cond metav1.Condition) error {
	if cur := apimeta.FindStatusCondition(pg.Status.Conditions, cond.Type); cur != nil &&
		cur.Status == metav1.ConditionTrue && cond.Status != metav1.ConditionTrue && cond.Type == schedulingv1beta1.PodGroupInitiallyScheduled {
		return nil
	}
	cond.ObservedGeneration = pg.Generation
	conditions := append([]metav1.Condition(nil), pg.Status.Conditions...)
	if !apimeta.SetStatusCondition(&conditions, cond) {
		return nil
	}
	set := apimeta.FindStatusCondition(conditions, cond.Type)
	patch, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"uid": pg.UID},
		"status":   map[string]any{"conditions": []metav1.Condition{*set}},
	})
	if err != nil {
		return fmt.Errorf("encoding the PodGroup status patch: %w", err)
	}
	_, err = client.SchedulingV1beta1().PodGroups(pg.Namespace).Patch(ctx, pg.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
	if err != nil {
		return fmt.Errorf("patching the status of PodGroup %s/%s: %w", pg.Namespace, pg.Name, err)
	}
	return nil
}
