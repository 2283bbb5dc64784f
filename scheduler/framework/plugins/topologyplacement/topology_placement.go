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

// Package topologyplacement implements TopologyPlacementGenerator, the
// plugin that keeps a PodGroup with a topology constraint in one domain of
// its key: it proposes one placement per domain (the nodes carrying one
// value of the label), or only the domain of the members already placed.
package topologyplacement

import (
	"context"
	"fmt"
	"sort"

	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/names"
)

// Name is the plugin's registered name.
const Name = names.TopologyPlacementGenerator

// TopologyPlacement proposes a placement per topology domain.
type TopologyPlacement struct {
	handle framework.Handle
}

var _ framework.PlacementGeneratePlugin = &TopologyPlacement{}

// New is the plugin's factory; it takes no args.
func New(_ context.Context, raw []byte, h framework.Handle) (framework.Plugin, error) {
	if _, err := args.Load[args.None]("plugin "+Name, raw); err != nil {
		return nil, err
	}
	return &TopologyPlacement{handle: h}, nil
}

// Name returns the plugin's name.
func (*TopologyPlacement) Name() string { return Name }

// GeneratePlacements returns parent for a group without a topology
// constraint; otherwise one placement per value of the key among parent's
// nodes, in the values' order, or only the value of the members already
// placed. Nodes without the label are in no placement. A
// CompositePodGroup's members are those of every PodGroup below it.
func (pl *TopologyPlacement) GeneratePlacements(_ context.Context, group *framework.GroupNode, parent *framework.Placement) ([]*framework.Placement, *framework.Status) {
	key, ok := group.TopologyKey()
	if !ok {
		return []*framework.Placement{parent}, nil
	}
	required, err := pl.placedDomain(group, key)
	if err != nil {
		return nil, framework.AsStatus(fmt.Errorf("cannot determine domain for already scheduled pods: %w", err))
	}
	byDomain := make(map[string][]*framework.NodeInfo)
	for _, ni := range parent.Nodes {
		domain, ok := ni.Node().Labels[key]
		if !ok || (required != "" && domain != required) {
			continue
		}
		byDomain[domain] = append(byDomain[domain], ni)
	}
	domains := make([]string, 0, len(byDomain))
	for d := range byDomain {
		domains = append(domains, d)
	}
	sort.Strings(domains)
	placements := make([]*framework.Placement, 0, len(domains))
	for _, d := range domains {
		placements = append(placements, &framework.Placement{Name: d, Nodes: byDomain[d]})
	}
	return placements, nil
}

// placedDomain returns the domain of the group's members already bound or
// assumed, "" when there are none; members in two domains, or on a node
// without the key, are an error.
func (pl *TopologyPlacement) placedDomain(group *framework.GroupNode, key string) (string, error) {
	w := pl.handle.Workloads()
	domain := ""
	for _, leaf := range group.Leaves() {
		for _, m := range w.Members(leaf.Ref()) {
			node := w.NodeOf(m)
			if node == "" {
				continue
			}
			ni, err := pl.handle.SnapshotSharedLister().NodeInfos().Get(node)
			if err != nil {
				return "", fmt.Errorf("getting node for pod %v: %w", klog.KObj(m), err)
			}
			d, ok := ni.Node().Labels[key]
			if !ok {
				return "", fmt.Errorf("no topology domain found for pod %v", klog.KObj(m))
			}
			if domain != "" && domain != d {
				return "", fmt.Errorf("more than 1 domain found for pod group: %v, %v", domain, d)
			}
			domain = d
		}
	}
	return domain, nil
}
