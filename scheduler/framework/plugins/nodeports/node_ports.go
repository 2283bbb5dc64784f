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

// Package nodeports implements NodePorts, which keeps a pod off nodes where
// a host port it asks for is already taken.
package nodeports

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/eventobj"
	"github.com/berth-io/berth/scheduler/framework/plugins/names"
)

// Name is the plugin's registered name.
const Name = names.NodePorts

// ErrReason is the Filter reason for a host port conflict, as upstream.
const ErrReason = "node(s) didn't have free ports for the requested pod ports"

const preFilterKey framework.StateKey = "PreFilter" + Name

// NodePorts filters out nodes where the pod's host ports are in use.
type NodePorts struct{}

var (
	_ framework.PreFilterPlugin   = &NodePorts{}
	_ framework.FilterPlugin      = &NodePorts{}
	_ framework.EnqueueExtensions = &NodePorts{}
	_ framework.SignPlugin        = &NodePorts{}
)

// New is the plugin's factory; NodePorts takes no args.
func New(_ context.Context, raw []byte, _ framework.Handle) (framework.Plugin, error) {
	if _, err := args.Load[args.None]("plugin "+Name, raw); err != nil {
		return nil, err
	}
	return &NodePorts{}, nil
}

// Name returns the plugin's name.
func (*NodePorts) Name() string { return Name }

// SignPod signs the pod by the host ports its containers ask for, each
// once and in order.
func (*NodePorts) SignPod(_ context.Context, pod *v1.Pod) ([]framework.SignFragment, *framework.Status) {
	return []framework.SignFragment{{Key: framework.HostPortsSignKey, Value: framework.HostPortsSignature(pod)}}, nil
}

// hostPorts is the pod's host ports, computed once per cycle.
type hostPorts []v1.ContainerPort

// Clone returns the state itself: it is never changed after PreFilter.
func (s hostPorts) Clone() framework.StateData { return s }

// HostPorts lists the ports with a host port that the pod's containers and
// sidecars (restartable init containers, which run as long as the pod) ask
// for. Run-to-completion init containers are left out.
func HostPorts(pod *v1.Pod) []v1.ContainerPort {
	var out []v1.ContainerPort
	collect := func(c *v1.Container) {
		for _, p := range c.Ports {
			if p.HostPort > 0 {
				out = append(out, p)
			}
		}
	}
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		if c.RestartPolicy != nil && *c.RestartPolicy == v1.ContainerRestartPolicyAlways {
			collect(c)
		}
	}
	for i := range pod.Spec.Containers {
		collect(&pod.Spec.Containers[i])
	}
	return out
}

// PreFilter collects the pod's host ports; a pod without any skips Filter.
func (*NodePorts) PreFilter(_ context.Context, state *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	ports := HostPorts(pod)
	if len(ports) == 0 {
		return nil, framework.Skipped()
	}
	state.Write(preFilterKey, hostPorts(ports))
	return nil, nil
}

// PreFilterExtensions returns nil: the state depends on the pod alone.
func (*NodePorts) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// Filter rejects a node where one of the pod's host ports is taken; freeing
// the port (by preemption) can help, so the rejection is resolvable.
func (*NodePorts) Filter(_ context.Context, state *framework.CycleState, _ *v1.Pod, nodeInfo *framework.NodeInfo) *framework.Status {
	ports, err := framework.ReadState[hostPorts](state, preFilterKey)
	if err != nil {
		return framework.AsStatus(fmt.Errorf("reading %s state: %w", Name, err))
	}
	if !fits(ports, nodeInfo.UsedPorts) {
		return framework.NewStatus(framework.Unschedulable, ErrReason)
	}
	return nil
}

// Fits reports whether the pod's host ports are all free on the node.
func Fits(pod *v1.Pod, nodeInfo *framework.NodeInfo) bool {
	return fits(HostPorts(pod), nodeInfo.UsedPorts)
}

func fits(want []v1.ContainerPort, used framework.HostPortInfo) bool {
	for i := range want {
		if used.CheckConflict(want[i].HostIP, string(want[i].Protocol), want[i].HostPort) {
			return false
		}
	}
	return true
}

// EventsToRegister retries a rejected pod when an assigned pod holding one of
// its host ports is deleted, or when a node is added.
func (pl *NodePorts) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{
			Event:          framework.ClusterEvent{Resource: framework.Pod, ActionType: framework.Delete},
			QueueingHintFn: pl.isSchedulableAfterPodDeleted,
		},
		{Event: framework.ClusterEvent{Resource: framework.Node, ActionType: framework.Add}},
	}, nil
}

// isSchedulableAfterPodDeleted queues the pod only when the deleted pod was
// on (or nominated to) a node and used a host port the pod wants.
func (*NodePorts) isSchedulableAfterPodDeleted(logger logr.Logger, pod *v1.Pod, oldObj, _ any) (framework.QueueingHint, error) {
	deleted, _, err := eventobj.Pair[*v1.Pod](oldObj, nil)
	if err != nil {
		return framework.Queue, err
	}
	if deleted == nil || (deleted.Spec.NodeName == "" && deleted.Status.NominatedNodeName == "") {
		return framework.QueueSkip, nil
	}
	freed := HostPorts(deleted)
	if len(freed) == 0 {
		return framework.QueueSkip, nil
	}
	inUse := make(framework.HostPortInfo, 1)
	for i := range freed {
		inUse.Add(freed[i].HostIP, string(freed[i].Protocol), freed[i].HostPort)
	}
	if fits(HostPorts(pod), inUse) {
		return framework.QueueSkip, nil
	}
	logger.V(4).Info("deleted pod freed a host port the pod wants", "pod", klog.KObj(pod), "deletedPod", klog.KObj(deleted))
	return framework.Queue, nil
}
