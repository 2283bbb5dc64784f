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

package scheduler

import (
	"k8s.io/client-go/discovery"

	"github.com/berth-io/berth/scheduler/framework/dra"
)

// WithDeviceTaintRules makes DynamicResources see the taints that
// DeviceTaintRules (resource.k8s.io/v1, Kubernetes v1.37) put on devices,
// as kube-scheduler v1.37 does: a rule's NoSchedule taint keeps new claims
// off the devices it selects unless they tolerate it. Only an apiserver
// that serves DeviceTaintRules can be watched for them; without this
// option, devices carry only the taints their ResourceSlices publish.
func WithDeviceTaintRules(enabled bool) Option {
	return func(o *options) { o.deviceTaintRules = enabled }
}

// DeviceTaintRulesServed says whether the apiserver serves DeviceTaintRules
// in resource.k8s.io/v1, that is whether WithDeviceTaintRules may be set
// (dra.DeviceTaintRulesServed).
func DeviceTaintRulesServed(dc discovery.DiscoveryInterface) (bool, error) {
	return dra.DeviceTaintRulesServed(dc)
}
