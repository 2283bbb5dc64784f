package rebalance

import (
	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/rebalance/strategies"
)

// ValidateSpec reports every problem of spec against the strategies of
// registry, as a Rebalancer using that registry would; tools such as
// `berth convert` use it without running a Rebalancer.
func ValidateSpec(registry strategies.Registry, spec *v1alpha1.RebalancePolicySpec) error {
	_, err := compile(registry, "", 0, spec)
	return err
}
