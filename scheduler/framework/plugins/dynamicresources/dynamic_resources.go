// Package dynamicresources implements DynamicResources as a guard: Berth
// does not allocate dynamic resource claims, so a pod that uses them is kept
// pending with a plain reason instead of being bound to a node whose kubelet
// could never start it.
package dynamicresources

import (
	"context"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/names"
)

// Name is the plugin's registered name.
const Name = names.DynamicResources

// ErrReasonUnsupported is the reason given to a pod that uses resource claims.
const ErrReasonUnsupported = "pod uses resource claims, which Berth does not allocate (dynamic resource allocation is not supported)"

// DynamicResources rejects pods with resource claims at PreFilter.
type DynamicResources struct{}

var (
	_ framework.PreFilterPlugin   = &DynamicResources{}
	_ framework.EnqueueExtensions = &DynamicResources{}
)

// New is the plugin's factory. Upstream's DynamicResourcesArgs are accepted
// so that a profile written for kube-scheduler compiles; they have no effect.
func New(_ context.Context, args []byte, _ framework.Handle) (framework.Plugin, error) {
	var a Args
	if err := framework.DecodeArgs(Name, args, &a); err != nil {
		return nil, err
	}
	if err := ValidateArgs(&a); err != nil {
		return nil, err
	}
	return &DynamicResources{}, nil
}

// Name returns the plugin's name.
func (*DynamicResources) Name() string { return Name }

// PreFilter skips pods without resource claims and rejects, unresolvably,
// pods with them.
func (*DynamicResources) PreFilter(_ context.Context, _ *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	if len(pod.Spec.ResourceClaims) == 0 {
		return nil, framework.NewStatus(framework.Skip)
	}
	return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonUnsupported)
}

// PreFilterExtensions returns nil: the plugin keeps no per-cycle state.
func (*DynamicResources) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// EventsToRegister returns no events: resource claims on a pod are
// immutable, so no cluster change can make a rejected pod schedulable.
func (*DynamicResources) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{}, nil
}
