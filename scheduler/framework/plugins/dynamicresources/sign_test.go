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

package dynamicresources

import (
	"testing"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/internal/signtest"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestSignPod(t *testing.T) {
	pl := newEnv(t).pl
	signtest.Pairs(t, pl, nil, []signtest.Pair{
		{Name: "pods without claims", A: st.Pod("a").Container("cpu", "1").Obj(), B: st.Pod("b").Container("example.com/gpu", "1").Obj(), Same: true},
	})
	signtest.Refusals(t, pl, []signtest.Refusal{
		{Name: "a claim", Pod: st.Pod("p").ResourceClaims("gpu").Obj(), Code: framework.Unschedulable, Reason: reasonClaimsSignature},
		{Name: "a claim template", Pod: st.Pod("p").ResourceClaimTemplate("gpu", "gpu-template").Obj(), Code: framework.Unschedulable, Reason: reasonClaimsSignature},
	})
}
