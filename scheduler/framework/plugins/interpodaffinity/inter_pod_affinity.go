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

// Package interpodaffinity implements InterPodAffinity, which keeps pods in
// (or out of) topology domains that hold pods matching their required pod
// affinity (or anti-affinity) terms, honours existing pods' required
// anti-affinity, and scores nodes by preferred terms of the incoming and the
// existing pods.
package interpodaffinity

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	listersv1 "k8s.io/client-go/listers/core/v1"

	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/names"
)

// Name is the plugin's registered name.
const Name = names.InterPodAffinity

// InterPodAffinity filters and scores nodes by pod affinity and anti-affinity.
type InterPodAffinity struct {
	// hardWeight is HardPodAffinityWeight, the weight of existing pods'
	// required terms in scoring.
	hardWeight int64
	// ignorePreferred is IgnorePreferredTermsOfExistingPods.
	ignorePreferred bool
	handle          framework.Handle
	nsLister        listersv1.NamespaceLister
	// counts keeps PreFilter's counts across cycles.
	counts *countCache
	// index numbers the nodes of the latest node list.
	index *indexer
}

var (
	_ framework.PreFilterPlugin     = &InterPodAffinity{}
	_ framework.FilterPlugin        = &InterPodAffinity{}
	_ framework.PreFilterExtensions = &InterPodAffinity{}
	_ framework.PreScorePlugin      = &InterPodAffinity{}
	_ framework.ScorePlugin         = &InterPodAffinity{}
	_ framework.ScoreExtensions     = &InterPodAffinity{}
	_ framework.EnqueueExtensions   = &InterPodAffinity{}
	_ framework.SignPlugin          = &InterPodAffinity{}
)

var errNoSnapshot = errors.New("the handle has no snapshot lister")

// New is the plugin's factory: it loads Args with args.Load and builds the
// plugin from them.
func New(_ context.Context, raw []byte, h framework.Handle) (framework.Plugin, error) {
	a, err := args.Load[Args]("plugin "+Name, raw)
	if err != nil {
		return nil, err
	}
	return NewWithArgs(a, h)
}

// NewWithArgs builds the plugin from args that args.Load returned, taking
// the namespace lister from the handle's informer factory.
func NewWithArgs(a *Args, h framework.Handle) (*InterPodAffinity, error) {
	if h == nil {
		return nil, fmt.Errorf("plugin %s: %w", Name, errors.New("nil handle"))
	}
	if h.SnapshotSharedLister() == nil {
		return nil, fmt.Errorf("plugin %s: %w", Name, errNoSnapshot)
	}
	pl := &InterPodAffinity{
		hardWeight:      int64(*a.HardPodAffinityWeight),
		ignorePreferred: a.IgnorePreferredTermsOfExistingPods,
		handle:          h,
		counts:          newCountCache(),
		index:           &indexer{},
	}
	if f := h.SharedInformerFactory(); f != nil {
		pl.nsLister = f.Core().V1().Namespaces().Lister()
	}
	return pl, nil
}

// Name returns the plugin's name.
func (*InterPodAffinity) Name() string { return Name }

// reasonAffinitySignature is SignPod's reason for a pod with pod affinity
// or anti-affinity.
const reasonAffinitySignature = "pods with InterPodAffinity are not signable"

// SignPod declines a pod with pod affinity or anti-affinity terms of its
// own, which depend on where other pods run. Any other pod is signed by
// its labels, which existing pods' terms select; with
// IgnorePreferredTermsOfExistingPods it is signed with nothing, as
// upstream does.
func (pl *InterPodAffinity) SignPod(_ context.Context, pod *v1.Pod) ([]framework.SignFragment, *framework.Status) {
	if a := pod.Spec.Affinity; a != nil && (a.PodAffinity != nil || a.PodAntiAffinity != nil) {
		return nil, framework.NewStatus(framework.Unschedulable, reasonAffinitySignature)
	}
	if pl.ignorePreferred {
		return nil, nil
	}
	return []framework.SignFragment{{Key: framework.LabelsSignKey, Value: pod.Labels}}, nil
}

func (pl *InterPodAffinity) nodeInfos() (framework.NodeInfoLister, error) {
	s := pl.handle.SnapshotSharedLister()
	if s == nil {
		return nil, errNoSnapshot
	}
	return s.NodeInfos(), nil
}

// namespaceLabels returns a copy of the labels of namespace ns; an unknown
// namespace has none.
func (pl *InterPodAffinity) namespaceLabels(logger logr.Logger, ns string) labels.Set {
	if pl.nsLister == nil {
		return nil
	}
	obj, err := pl.nsLister.Get(ns)
	if err != nil {
		logger.V(3).Info("namespace unknown, taking its labels as empty", "namespace", ns, "err", err)
		return nil
	}
	return labels.Merge(obj.Labels, nil)
}

// namespacesSelected lists the names of the namespaces sel picks.
func (pl *InterPodAffinity) namespacesSelected(sel labels.Selector) ([]string, error) {
	if pl.nsLister == nil {
		return nil, nil
	}
	list, err := pl.nsLister.List(sel)
	if err != nil {
		return nil, fmt.Errorf("listing namespaces: %w", err)
	}
	out := make([]string, len(list))
	for i, ns := range list {
		out[i] = ns.Name
	}
	return out, nil
}

// resolveAll resolves the namespace selectors of terms in place.
func (pl *InterPodAffinity) resolveAll(terms []framework.AffinityTerm) error {
	for i := range terms {
		if err := resolveNamespaces(&terms[i], pl.namespacesSelected); err != nil {
			return err
		}
	}
	return nil
}
