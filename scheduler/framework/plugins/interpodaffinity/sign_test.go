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

package interpodaffinity

import (
	"testing"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/internal/signtest"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestSignPod(t *testing.T) {
	refusals := []signtest.Refusal{
		{Name: "pod affinity", Pod: st.Pod("p").PodAffinity(st.Term(zoneKey, "app", "db")).Obj(), Code: framework.Unschedulable, Reason: reasonAffinitySignature},
		{Name: "pod anti-affinity", Pod: st.Pod("p").PodAntiAffinity(st.Term(hostKey, "app", "web")).Obj(), Code: framework.Unschedulable, Reason: reasonAffinitySignature},
		{Name: "preferred pod affinity", Pod: st.Pod("p").PreferPodAffinity(10, st.Term(zoneKey, "app", "db")).Obj(), Code: framework.Unschedulable, Reason: reasonAffinitySignature},
		{Name: "preferred pod anti-affinity", Pod: st.Pod("p").PreferPodAntiAffinity(10, st.Term(hostKey, "app", "web")).Obj(), Code: framework.Unschedulable, Reason: reasonAffinitySignature},
	}

	t.Run("labels signed", func(t *testing.T) {
		pl := newPlugin(t, "", newHandle(t, nil, nil))
		signtest.Pairs(t, pl, []string{framework.LabelsSignKey}, []signtest.Pair{
			{Name: "another name", A: st.Pod("a").Labels("app", "web").Obj(), B: st.Pod("b").Labels("app", "web").Obj(), Same: true},
			{Name: "annotations, containers and node affinity",
				A: st.Pod("p").Labels("app", "web").Obj(),
				B: st.Pod("p").Labels("app", "web").Annotation("a", "b").Container("cpu", "1").NodeSelector("zone", "z").Obj(), Same: true},
			{Name: "labels set in another order", A: st.Pod("p").Label("a", "1").Label("b", "2").Obj(), B: st.Pod("p").Label("b", "2").Label("a", "1").Obj(), Same: true},
			{Name: "another label value", A: st.Pod("p").Labels("app", "web").Obj(), B: st.Pod("p").Labels("app", "db").Obj(), Same: false},
			{Name: "one more label", A: st.Pod("p").Labels("app", "web").Obj(), B: st.Pod("p").Labels("app", "web", "tier", "1").Obj(), Same: false},
		})
		signtest.Refusals(t, pl, refusals)
	})

	t.Run("IgnorePreferredTermsOfExistingPods", func(t *testing.T) {
		pl := newPlugin(t, `{"ignorePreferredTermsOfExistingPods": true}`, newHandle(t, nil, nil))
		signtest.Pairs(t, pl, nil, []signtest.Pair{
			{Name: "other labels", A: st.Pod("p").Labels("app", "web").Obj(), B: st.Pod("p").Labels("app", "db").Obj(), Same: true},
		})
		signtest.Refusals(t, pl, refusals)
	})
}
