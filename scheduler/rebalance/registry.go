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
