package e2e_test

import (
	. "github.com/onsi/ginkgo/v2"
)

// The rebalancing e2e is not written yet: issue 7's rebalancer joined berth
// manager (on the leader) only as this suite was finished. The spec applies a live
// RebalancePolicy (RemoveDuplicates) over a Deployment whose pods share a
// node, with a PodDisruptionBudget that allows one disruption, and expects
// exactly one eviction through the Eviction API (the disruption controller
// runs in this cluster) and the rest refused by the budget.
var _ = Describe("rebalancing", func() {
	PIt("evicts through the Eviction API and stops at a PodDisruptionBudget (issue 7: to be written now that berth manager runs the rebalancer)", func() {})
})
