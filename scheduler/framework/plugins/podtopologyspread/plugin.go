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

// Package podtopologyspread implements PodTopologySpread, which spreads pods
// over topology domains (zones, hosts, ...): its DoNotSchedule constraints
// keep the skew of matching pods between domains within maxSkew, and its
// ScheduleAnyway constraints prefer the domains with fewer matching pods.
// Pods without constraints of their own get default constraints that
// select the pods of the same Services and controllers.
package podtopologyspread

import (
	"context"
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/names"
)

// Name is the plugin's registered name.
const Name = names.PodTopologySpread

// Filter reasons, worded as upstream v1.37 words them.
const (
	// ErrReasonConstraintsNotMatch is given when placing the pod on the node would exceed a maxSkew.
	ErrReasonConstraintsNotMatch = "node(s) didn't match pod topology spread constraints"
	// ErrReasonNodeLabelNotMatch is given when the node lacks a constraint's topology key.
	ErrReasonNodeLabelNotMatch = ErrReasonConstraintsNotMatch + " (missing required label)"
)

// systemDefaults are the constraints of SystemDefaulting.
var systemDefaults = []v1.TopologySpreadConstraint{
	{TopologyKey: v1.LabelHostname, WhenUnsatisfiable: v1.ScheduleAnyway, MaxSkew: 3},
	{TopologyKey: v1.LabelTopologyZone, WhenUnsatisfiable: v1.ScheduleAnyway, MaxSkew: 5},
}

var errNoHandle = errors.New("plugin " + Name + " needs a framework handle")

// PodTopologySpread filters and scores nodes by topology spread constraints.
type PodTopologySpread struct {
	handle       framework.Handle
	parallelizer framework.Parallelizer
	// defaults apply to pods without constraints of their own.
	defaults []v1.TopologySpreadConstraint
	// systemDefaulted is set when defaults are the built-in System ones.
	systemDefaulted bool
	// hardDefaults and softDefaults are the defaults parsed once, by
	// action: their selectors are replaced by each pod's owners' selector,
	// so nothing of them depends on the pod.
	hardDefaults, softDefaults []constraint
	// hard keeps PreFilter's counts across cycles.
	hard *countCache
	// missingLabel and tooSkewed are Filter's two rejections, made once:
	// the runtime and its readers never change a rejection's status.
	missingLabel, tooSkewed *framework.Status

	// The informers' stores of Services and of the controllers whose
	// selectors default constraints borrow, read directly: a lister call
	// allocates, and a PodGroup's cycle reads them once per member and
	// placement.
	services               cache.Indexer
	replicationControllers cache.Indexer
	replicaSets            cache.Indexer
	statefulSets           cache.Indexer
}

var (
	_ framework.PreFilterPlugin     = &PodTopologySpread{}
	_ framework.PreFilterExtensions = &PodTopologySpread{}
	_ framework.FilterPlugin        = &PodTopologySpread{}
	_ framework.PreScorePlugin      = &PodTopologySpread{}
	_ framework.ScorePlugin         = &PodTopologySpread{}
	_ framework.ScoreExtensions     = &PodTopologySpread{}
	_ framework.EnqueueExtensions   = &PodTopologySpread{}
	_ framework.SignPlugin          = &PodTopologySpread{}
)

// New is the plugin's factory: it loads Args with args.Load and builds the
// plugin from them.
func New(_ context.Context, raw []byte, h framework.Handle) (framework.Plugin, error) {
	a, err := args.Load[Args]("plugin "+Name, raw)
	if err != nil {
		return nil, err
	}
	return NewWithArgs(a, h)
}

// NewWithArgs builds the plugin from args that args.Load returned. With default
// constraints it takes the Service, ReplicationController, ReplicaSet and
// StatefulSet listers from the handle's informer factory, which registers
// those informers for the scheduler to start.
func NewWithArgs(args *Args, h framework.Handle) (*PodTopologySpread, error) {
	if h == nil {
		return nil, errNoHandle
	}
	pl := &PodTopologySpread{handle: h, parallelizer: h.Parallelizer(), defaults: args.DefaultConstraints, hard: newCountCache(),
		missingLabel: framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonNodeLabelNotMatch).WithPlugin(Name),
		tooSkewed:    framework.NewStatus(framework.Unschedulable, ErrReasonConstraintsNotMatch).WithPlugin(Name),
	}
	if pl.parallelizer == nil {
		pl.parallelizer = serial{}
	}
	if args.DefaultingType == SystemDefaulting {
		pl.defaults = systemDefaults
		pl.systemDefaulted = true
	}
	if len(pl.defaults) == 0 {
		return pl, nil
	}
	var err error
	if pl.hardDefaults, err = parseConstraints(pl.defaults, nil, v1.DoNotSchedule); err != nil {
		return nil, fmt.Errorf("plugin %s: default constraints: %w", Name, err)
	}
	if pl.softDefaults, err = parseConstraints(pl.defaults, nil, v1.ScheduleAnyway); err != nil {
		return nil, fmt.Errorf("plugin %s: default constraints: %w", Name, err)
	}
	f := h.SharedInformerFactory()
	if f == nil {
		return nil, fmt.Errorf("plugin %s: default constraints need an informer factory", Name)
	}
	pl.services = f.Core().V1().Services().Informer().GetIndexer()
	pl.replicationControllers = f.Core().V1().ReplicationControllers().Informer().GetIndexer()
	pl.replicaSets = f.Apps().V1().ReplicaSets().Informer().GetIndexer()
	pl.statefulSets = f.Apps().V1().StatefulSets().Informer().GetIndexer()
	return pl, nil
}

// Name returns the plugin's name.
func (*PodTopologySpread) Name() string { return Name }

// SignPod's reasons for declining a pod.
const (
	// reasonConstraintsSignature is given for a pod with spread constraints.
	reasonConstraintsSignature = "pods with topology constraints are not signable"
	// reasonDefaultsSignature is given for any other pod when the plugin
	// has default constraints.
	reasonDefaultsSignature = "pods with default topology constraints are not signable"
)

// SignPod declines a pod with spread constraints, and, when the plugin has
// default constraints (System defaulting included), every pod: spreading
// depends on where the other matching pods run. With neither it signs the
// pod with nothing.
func (pl *PodTopologySpread) SignPod(_ context.Context, pod *v1.Pod) ([]framework.SignFragment, *framework.Status) {
	if len(pod.Spec.TopologySpreadConstraints) > 0 {
		return nil, framework.NewStatus(framework.Unschedulable, reasonConstraintsSignature)
	}
	if len(pl.defaults) > 0 {
		return nil, framework.NewStatus(framework.Unschedulable, reasonDefaultsSignature)
	}
	return nil, nil
}

// serial runs pieces one after another, for handles without a Parallelizer.
type serial struct{}

// Until calls do for each piece in order.
func (serial) Until(ctx context.Context, pieces int, do func(int), _ string) {
	for i := 0; i < pieces && ctx.Err() == nil; i++ {
		do(i)
	}
}

// allNodes lists the NodeInfos of the handle's snapshot.
func (pl *PodTopologySpread) allNodes() ([]*framework.NodeInfo, error) {
	lister := pl.handle.SnapshotSharedLister()
	if lister == nil {
		return nil, fmt.Errorf("plugin %s: the handle has no snapshot", Name)
	}
	nodes, err := lister.NodeInfos().List()
	if err != nil {
		return nil, fmt.Errorf("listing nodes: %w", err)
	}
	return nodes, nil
}
