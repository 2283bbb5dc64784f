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

// Package queuesort implements PrioritySort, the default QueueSort plugin:
// higher priority first, then the pod that entered the queue earlier.
package queuesort

import (
	"context"

	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/names"
)

// Name is the plugin's registered name.
const Name = names.PrioritySort

// PrioritySort orders queued pods by priority, then by queue timestamp.
type PrioritySort struct{}

var _ framework.QueueSortPlugin = &PrioritySort{}

// New is the plugin's factory; PrioritySort takes no args.
func New(_ context.Context, raw []byte, _ framework.Handle) (framework.Plugin, error) {
	if _, err := args.Load[args.None]("plugin "+Name, raw); err != nil {
		return nil, err
	}
	return &PrioritySort{}, nil
}

// Name returns the plugin's name.
func (*PrioritySort) Name() string { return Name }

// Less reports whether a goes before b: framework.PriorityLess, the order
// of the scheduling queue that every profile shares.
func (*PrioritySort) Less(a, b *framework.QueuedPodInfo) bool { return framework.PriorityLess(a, b) }
