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
	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/rebalance/strategies"
)

// ValidateSpec reports every problem of spec against the strategies of
// registry, as a Rebalancer using that registry would; tools such as
// `berth convert` use it without running a Rebalancer. Each problem is a
// *args.SpecError, with its field; args.SpecErrors lists them.
func ValidateSpec(registry strategies.Registry, spec *v1alpha1.RebalancePolicySpec) error {
	_, err := compile(registry, "", 0, spec)
	return err
}
