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

package rebalance

import (
	"github.com/berth-io/berth/scheduler/rebalance/strategies"
	"github.com/berth-io/berth/scheduler/rebalance/strategies/highnodeutilization"
	"github.com/berth-io/berth/scheduler/rebalance/strategies/lownodeutilization"
	"github.com/berth-io/berth/scheduler/rebalance/strategies/podlifetime"
	"github.com/berth-io/berth/scheduler/rebalance/strategies/removeduplicates"
	"github.com/berth-io/berth/scheduler/rebalance/strategies/removefailedpods"
	"github.com/berth-io/berth/scheduler/rebalance/strategies/removepodshavingtoomanyrestarts"
	"github.com/berth-io/berth/scheduler/rebalance/strategies/removepodsviolatinginterpodantiaffinity"
	"github.com/berth-io/berth/scheduler/rebalance/strategies/removepodsviolatingnodeaffinity"
	"github.com/berth-io/berth/scheduler/rebalance/strategies/removepodsviolatingnodetaints"
	"github.com/berth-io/berth/scheduler/rebalance/strategies/removepodsviolatingtopologyspreadconstraint"
)

// NewInTreeRegistry returns the strategies Berth implements, by descheduler name.
func NewInTreeRegistry() strategies.Registry {
	return strategies.Registry{
		removeduplicates.Name:                            removeduplicates.New,
		lownodeutilization.Name:                          lownodeutilization.New,
		highnodeutilization.Name:                         highnodeutilization.New,
		removepodsviolatingnodetaints.Name:               removepodsviolatingnodetaints.New,
		removepodsviolatingnodeaffinity.Name:             removepodsviolatingnodeaffinity.New,
		podlifetime.Name:                                 podlifetime.New,
		removefailedpods.Name:                            removefailedpods.New,
		removepodshavingtoomanyrestarts.Name:             removepodshavingtoomanyrestarts.New,
		removepodsviolatinginterpodantiaffinity.Name:     removepodsviolatinginterpodantiaffinity.New,
		removepodsviolatingtopologyspreadconstraint.Name: removepodsviolatingtopologyspreadconstraint.New,
	}
}
