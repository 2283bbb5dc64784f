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

// Package workload gives the scheduler its view of PodGroups through its two
// front doors: Kubernetes' own scheduling.k8s.io/v1beta1 PodGroups, which
// pods join through spec.schedulingGroup when the apiserver serves them, and
// Berth's scheduling.berth.io/v1alpha1 PodGroups, which pods join through
// the label scheduling.berth.io/pod-group on any cluster. Berth's are read
// as native PodGroups (FromBerth), so that one group cycle serves both. The
// package also writes the PodGroupInitiallyScheduled condition the
// scheduler reports on either kind.
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
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	schedulingv1listers "k8s.io/client-go/listers/scheduling/v1"
	schedulingv1alpha3listers "k8s.io/client-go/listers/scheduling/v1alpha3"
	schedulinglisters "k8s.io/client-go/listers/scheduling/v1beta1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
)

// GroupVersion is the API version of Kubernetes' own PodGroups.
var GroupVersion = schedulingv1beta1.SchemeGroupVersion

// MemberIndex is the name of the pod informer index that maps a PodGroup's
// key (IndexKey) to its member pods.
const MemberIndex = "berth.io/pod-group"

// IndexKey is the MemberIndex key of a group's members.
func IndexKey(ref framework.GroupRef) string {
	if ref.Berth {
		return "scheduling.berth.io/" + ref.Namespace + "/" + ref.Name
	}
	return ref.Namespace + "/" + ref.Name
}

// IndexMembers is the index function of MemberIndex: a pod that joins a
// PodGroup maps to its group's key, any other object to nothing.
func IndexMembers(obj any) ([]string, error) {
	pod, ok := obj.(*v1.Pod)
	if !ok {
		return nil, nil
	}
	ref, ok := framework.GroupRefOf(pod)
	if !ok {
		return nil, nil
	}
	return []string{IndexKey(ref)}, nil
}

// Served reports whether the apiserver serves scheduling.k8s.io/v1beta1
// PodGroups. An apiserver that does not know the group version at all
// answers NotFound, which is no error here.
func Served(d discovery.DiscoveryInterface) (bool, error) {
	return servesResource(d, GroupVersion.String(), "podgroups")
}

// UnreadVersions lists the scheduling.k8s.io versions other than the one
// read here in which the apiserver serves PodGroups: a cluster that made
// them GA as scheduling.k8s.io/v1 and stopped serving v1beta1 serves them
// in a version this scheduler cannot read.
func UnreadVersions(d discovery.DiscoveryInterface) ([]string, error) {
	groups, err := d.ServerGroups()
	if err != nil {
		return nil, fmt.Errorf("discovering API groups: %w", err)
	}
	var out []string
	for _, g := range groups.Groups {
		if g.Name != GroupVersion.Group {
			continue
		}
		for _, v := range g.Versions {
			if v.GroupVersion == GroupVersion.String() {
				continue
			}
			served, err := servesResource(d, v.GroupVersion, "podgroups")
			if err != nil {
				return nil, err
			}
			if served {
				out = append(out, v.GroupVersion)
			}
		}
	}
	return out, nil
}

// servesResource reports whether the apiserver serves the resource in the
// group version; a group version it does not know is no error.
func servesResource(d discovery.DiscoveryInterface, groupVersion, resource string) (bool, error) {
	list, err := d.ServerResourcesForGroupVersion(groupVersion)
	if err != nil {
		var status interface{ Status() metav1.Status }
		if errors.As(err, &status) && status.Status().Code == 404 {
			return false, nil
		}
		return false, fmt.Errorf("discovering %s: %w", groupVersion, err)
	}
	for _, r := range list.APIResources {
		if r.Name == resource {
			return true, nil
		}
	}
	return false, nil
}

// NewBerthClient returns a REST client for Berth's PodGroups, reached
// through cfg. They are a custom resource, so it speaks JSON whatever
// content type cfg prefers.
func NewBerthClient(cfg *rest.Config) (rest.Interface, error) {
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
	return client, nil
}

// FromBerth returns the native PodGroup that stands for one of Berth's in
// the scheduler: same name, namespace, UID, generation and conditions, its
// policy and constraints copied field by field (the deprecated minMember
// read as a gang's minCount), and apiVersion BerthPodGroupAPIVersion.
func FromBerth(pg *v1alpha1.PodGroup) *schedulingv1beta1.PodGroup {
	return &schedulingv1beta1.PodGroup{
		TypeMeta: metav1.TypeMeta{APIVersion: framework.BerthPodGroupAPIVersion, Kind: "PodGroup"},
		ObjectMeta: metav1.ObjectMeta{
			Name: pg.Name, Namespace: pg.Namespace, UID: pg.UID,
			Generation: pg.Generation, ResourceVersion: pg.ResourceVersion,
			CreationTimestamp: pg.CreationTimestamp, DeletionTimestamp: pg.DeletionTimestamp,
			Labels: pg.Labels,
		},
		Spec:   pg.Spec.Native(),
		Status: schedulingv1beta1.PodGroupStatus{Conditions: pg.Status.Conditions},
	}
}

// fromBerthObject is the transform of the informer of Berth's PodGroups: it
// stores each as the native PodGroup FromBerth makes.
func fromBerthObject(obj any) (any, error) {
	switch o := obj.(type) {
	case *v1alpha1.PodGroup:
		out := FromBerth(o)
		if s := o.Spec.ScheduleTimeoutSeconds; s != nil {
			out.Annotations = map[string]string{framework.PermitTimeoutAnnotation: fmt.Sprint(*s)}
		}
		return out, nil
	default:
		return obj, nil
	}
}

// Groups tracks the PodGroups of both front doors and their members. Build
// it with New.
type Groups struct {
	native      cache.SharedIndexInformer
	lister      schedulinglisters.PodGroupLister
	berth       cache.SharedIndexInformer
	berthClient rest.Interface
	// classes resolve the priority of Berth's PodGroups; nil reads none.
	classes  schedulingv1listers.PriorityClassLister
	pods     cache.Indexer
	placedOn func(*v1.Pod) string
	// composite watches CompositePodGroups when hierarchies are followed
	// (WithCompositeInformerFactory); nil otherwise.
	composite       cache.SharedIndexInformer
	compositeLister schedulingv1alpha3listers.CompositePodGroupLister
	// hierarchyErr is why the informers could not be indexed by parent.
	hierarchyErr error
	// scheduled are the groups set scheduled that the informers do not
	// show so yet (MarkScheduled).
	scheduled scheduledGroups
	// unread are the group versions the apiserver serves PodGroups in
	// when it does not serve the one read here.
	unread []string
}

var _ framework.WorkloadLister = (*Groups)(nil)

// Option configures Groups.
type Option func(*Groups)

// WithInformerFactory watches Kubernetes' own PodGroups through the
// factory's informer; without it none is served (the apiserver does not
// serve the API).
func WithInformerFactory(f informers.SharedInformerFactory) Option {
	return func(g *Groups) {
		inf := f.Scheduling().V1beta1().PodGroups()
		g.native = inf.Informer()
		g.lister = inf.Lister()
	}
}

// WithUnreadVersions records the group versions the apiserver serves
// PodGroups in instead of the one Groups reads (UnreadVersions), for the
// error PodGroup returns.
func WithUnreadVersions(versions []string) Option {
	return func(g *Groups) { g.unread = versions }
}

// WithBerthClient watches Berth's PodGroups, and writes their status,
// through c (see NewBerthClient); without it none is served.
func WithBerthClient(c rest.Interface) Option {
	return func(g *Groups) {
		g.berthClient = c
		lw := cache.NewListWatchFromClient(c, "podgroups", metav1.NamespaceAll, fields.Everything())
		g.berth = cache.NewSharedIndexInformer(lw, &v1alpha1.PodGroup{}, 0, cache.Indexers{})
		_ = g.berth.SetTransform(fromBerthObject)
	}
}

// WithPriorityClasses resolves the priorityClassName of Berth's PodGroups
// through the factory's PriorityClass informer, as admission resolves a
// native PodGroup's; without it Berth's PodGroups have priority 0.
func WithPriorityClasses(f informers.SharedInformerFactory) Option {
	return func(g *Groups) { g.classes = f.Scheduling().V1().PriorityClasses().Lister() }
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

// Informer returns the informer of Kubernetes' own PodGroups, or nil when
// the API is not served.
func (g *Groups) Informer() cache.SharedIndexInformer { return g.native }

// BerthInformer returns the informer of Berth's PodGroups, or nil when
// they are not watched. The run of it is the caller's: it is not part of
// an informer factory.
func (g *Groups) BerthInformer() cache.SharedIndexInformer { return g.berth }

// Serves reports whether the PodGroups of ref's kind are watched.
func (g *Groups) Serves(ref framework.GroupRef) bool {
	if ref.Berth {
		return g.berth != nil
	}
	return g.native != nil
}

// errBerthUnwatched is the answer for every Berth group when they are not watched.
var errBerthUnwatched = errors.New("this scheduler does not watch scheduling.berth.io PodGroups")

// PodGroup returns the PodGroup, or an error saying why it is unknown.
// One of Berth's is returned as FromBerth made it.
func (g *Groups) PodGroup(ref framework.GroupRef) (*schedulingv1beta1.PodGroup, error) {
	if !ref.Berth {
		if g.lister == nil {
			return nil, &framework.UnreadGroupError{Read: GroupVersion.String(), Served: g.unread}
		}
		return g.lister.PodGroups(ref.Namespace).Get(ref.Name)
	}
	if g.berth == nil {
		return nil, errBerthUnwatched
	}
	obj, ok, err := g.berth.GetStore().GetByKey(ref.Namespace + "/" + ref.Name)
	if err != nil {
		return nil, fmt.Errorf("reading PodGroup %s: %w", ref, err)
	}
	pg, isGroup := obj.(*schedulingv1beta1.PodGroup)
	if !ok || !isGroup {
		return nil, fmt.Errorf("podgroup.scheduling.berth.io %q not found", ref.Name)
	}
	return g.withPriority(pg), nil
}

// withPriority returns one of Berth's PodGroups with spec.priority set as
// admission sets a native PodGroup's: its priorityClassName's value, or
// the globalDefault class's, or 0. The stored object is not changed.
func (g *Groups) withPriority(pg *schedulingv1beta1.PodGroup) *schedulingv1beta1.PodGroup {
	if g.classes == nil || pg.Spec.Priority != nil {
		return pg
	}
	var value int32
	if pg.Spec.PriorityClassName != "" {
		if pc, err := g.classes.Get(pg.Spec.PriorityClassName); err == nil {
			value = pc.Value
		}
	} else if classes, err := g.classes.List(labels.Everything()); err == nil {
		for _, pc := range classes {
			if pc.GlobalDefault {
				value = pc.Value
				break
			}
		}
	}
	out := *pg
	out.Spec.Priority = &value
	return &out
}

// Members returns the group's non-terminal member pods, bound or not.
func (g *Groups) Members(ref framework.GroupRef) []*v1.Pod {
	objs, err := g.pods.ByIndex(MemberIndex, IndexKey(ref))
	if err != nil {
		return nil
	}
	pods := make([]*v1.Pod, 0, len(objs))
	for _, o := range objs {
		if p, ok := o.(*v1.Pod); ok && p.Status.Phase != v1.PodSucceeded && p.Status.Phase != v1.PodFailed {
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

// shownScheduled reports whether the informer's copy of pg reads
// PodGroupInitiallyScheduled=True.
func (g *Groups) shownScheduled(pg *schedulingv1beta1.PodGroup) bool {
	latest, err := g.PodGroup(framework.RefOf(pg))
	return err == nil && latest.UID == pg.UID && apimeta.IsStatusConditionTrue(latest.Status.Conditions, schedulingv1beta1.PodGroupInitiallyScheduled)
}

// schedulerFieldManager owns the condition the scheduler applies to
// Berth's PodGroups, beside the conditions their controller writes.
const schedulerFieldManager = "berth-scheduler"

// PatchCondition sets cond on the PodGroup's status, as kube-scheduler
// does: a PodGroupInitiallyScheduled condition that is already True, in pg
// or in the informer's newer copy, is never set back, nor is one
// MarkScheduled recorded and the informer does not show yet, and nothing
// is sent when the condition is unchanged. The condition's
// observedGeneration is the group's generation. One of Berth's PodGroups
// is written through the client WithBerthClient gave.
func (g *Groups) PatchCondition(ctx context.Context, client kubernetes.Interface, pg *schedulingv1beta1.PodGroup, cond metav1.Condition) (err error) {
	if cur := apimeta.FindStatusCondition(pg.Status.Conditions, cond.Type); cur != nil &&
		cur.Status == metav1.ConditionTrue && cond.Status != metav1.ConditionTrue && cond.Type == schedulingv1beta1.PodGroupInitiallyScheduled {
		return nil
	}
	if cond.Type == schedulingv1beta1.PodGroupInitiallyScheduled {
		// The record first: it is forgotten only once the informer's copy
		// reads True, which the second check then sees. pg may be older
		// than both, read before the cycle that wrote True ended.
		if cond.Status != metav1.ConditionTrue && (g.scheduled.has(pg.UID) || g.shownScheduled(pg)) {
			return nil
		}
		if cond.Status == metav1.ConditionTrue {
			// A write that fails leaves the group as the informer shows it.
			defer func() {
				if err != nil {
					g.scheduled.forget(pg.UID)
				}
			}()
		}
	}
	cond.ObservedGeneration = pg.Generation
	conditions := append([]metav1.Condition(nil), pg.Status.Conditions...)
	if !apimeta.SetStatusCondition(&conditions, cond) {
		return nil
	}
	set := apimeta.FindStatusCondition(conditions, cond.Type)
	if framework.RefOf(pg).Berth {
		return g.applyBerthCondition(ctx, pg, *set)
	}
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

// applyBerthCondition applies cond to one of Berth's PodGroups with
// server-side apply: conditions are a map keyed by type, so the
// scheduler's entry and the controller's live side by side.
func (g *Groups) applyBerthCondition(ctx context.Context, pg *schedulingv1beta1.PodGroup, cond metav1.Condition) error {
	if g.berthClient == nil {
		return errBerthUnwatched
	}
	body, err := json.Marshal(map[string]any{
		"apiVersion": v1alpha1.GroupVersion.String(),
		"kind":       "PodGroup",
		"metadata":   map[string]any{"name": pg.Name, "namespace": pg.Namespace, "uid": pg.UID},
		"status":     map[string]any{"conditions": []metav1.Condition{cond}},
	})
	if err != nil {
		return fmt.Errorf("encoding the PodGroup status patch: %w", err)
	}
	force := true
	err = g.berthClient.Patch(types.ApplyPatchType).Namespace(pg.Namespace).Resource("podgroups").Name(pg.Name).SubResource("status").
		VersionedParams(&metav1.PatchOptions{FieldManager: schedulerFieldManager, Force: &force}, metav1.ParameterCodec).
		Body(body).Do(ctx).Error()
	if err != nil {
		return fmt.Errorf("applying the status of PodGroup %s: %w", framework.RefOf(pg), err)
	}
	return nil
}
