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

package nodedeclaredfeatures

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	ndf "k8s.io/component-helpers/nodedeclaredfeatures"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/internal/signtest"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestSignPod(t *testing.T) {
	signtest.Pairs(t, newPlugin(t), []string{framework.FeaturesSignKey}, []signtest.Pair{
		{Name: "pods needing nothing", A: st.Pod("a").Obj(), B: st.Pod("b").Labels("app", "x").Container("cpu", "1").Obj(), Same: true},
		{Name: "pods needing the same feature", A: hostNetworkInUserNS("a"), B: hostNetworkInUserNS("b"), Same: true},
		{Name: "host network alone needs nothing", A: st.Pod("p").Obj(), B: func() *v1.Pod {
			p := st.Pod("p").Obj()
			p.Spec.HostNetwork = true
			return p
		}(), Same: true},
		{Name: "a feature or none", A: st.Pod("p").Obj(), B: hostNetworkInUserNS("p"), Same: false},
	})

	// Inference fails without a target version: the pod is not signed.
	broken := &NodeDeclaredFeatures{features: ndf.DefaultFramework}
	signtest.Refusals(t, broken, []signtest.Refusal{
		{Name: "no target version", Pod: st.Pod("p").Obj(), Code: framework.Error,
			Reason: "inferring the node features pod default/p needs: target version cannot be nil"},
	})
}
