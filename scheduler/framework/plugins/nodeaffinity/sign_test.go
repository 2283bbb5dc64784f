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

package nodeaffinity

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/internal/signtest"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestSignPod(t *testing.T) {
	in := v1.NodeSelectorOpIn
	zoneAB, zoneBA := labelTerm(expr("zone", in, "a", "b")), labelTerm(expr("zone", in, "b", "a"))
	disk := labelTerm(expr("disk", v1.NodeSelectorOpExists))
	keys := []string{framework.NodeAffinitySignKey, framework.NodeSelectorSignKey}
	pairs := []signtest.Pair{
		{Name: "another name", A: st.Pod("a").RequiredNodeAffinity(zoneAB).Obj(), B: st.Pod("b").RequiredNodeAffinity(zoneAB).Obj(), Same: true},
		{Name: "labels and tolerations", A: st.Pod("p").NodeSelector("disk", "ssd").Obj(),
			B: st.Pod("p").Labels("app", "x").Tolerate("k").NodeSelector("disk", "ssd").Obj(), Same: true},
		{Name: "values in another order", A: st.Pod("p").RequiredNodeAffinity(zoneAB).Obj(), B: st.Pod("p").RequiredNodeAffinity(zoneBA).Obj(), Same: true},
		{Name: "terms in another order", A: st.Pod("p").RequiredNodeAffinity(zoneAB, disk).Obj(), B: st.Pod("p").RequiredNodeAffinity(disk, zoneAB).Obj(), Same: true},
		{Name: "requirements in another order",
			A: st.Pod("p").RequiredNodeAffinity(labelTerm(expr("zone", in, "a"), expr("disk", in, "ssd"))).Obj(),
			B: st.Pod("p").RequiredNodeAffinity(labelTerm(expr("disk", in, "ssd"), expr("zone", in, "a"))).Obj(), Same: true},
		{Name: "preferred terms in another order",
			A: st.Pod("p").PreferredNodeAffinity(pref(1, zoneAB), pref(5, disk)).Obj(),
			B: st.Pod("p").PreferredNodeAffinity(pref(5, disk), pref(1, zoneBA)).Obj(), Same: true},
		{Name: "another value", A: st.Pod("p").RequiredNodeAffinity(zoneAB).Obj(), B: st.Pod("p").RequiredNodeAffinity(labelTerm(expr("zone", in, "a", "c"))).Obj(), Same: false},
		{Name: "one more term", A: st.Pod("p").RequiredNodeAffinity(zoneAB).Obj(), B: st.Pod("p").RequiredNodeAffinity(zoneAB, disk).Obj(), Same: false},
		{Name: "a label term or a field term",
			A: st.Pod("p").RequiredNodeAffinity(labelTerm(expr("metadata.name", in, "n1"))).Obj(),
			B: st.Pod("p").RequiredNodeAffinity(fieldTerm(nameIs(in, "n1"))).Obj(), Same: false},
		{Name: "required or preferred", A: st.Pod("p").RequiredNodeAffinity(zoneAB).Obj(), B: st.Pod("p").PreferredNodeAffinity(pref(1, zoneAB)).Obj(), Same: false},
		{Name: "another weight", A: st.Pod("p").PreferredNodeAffinity(pref(1, zoneAB)).Obj(), B: st.Pod("p").PreferredNodeAffinity(pref(2, zoneAB)).Obj(), Same: false},
		{Name: "affinity or none", A: st.Pod("p").Obj(), B: st.Pod("p").RequiredNodeAffinity(zoneAB).Obj(), Same: false},
		{Name: "another node selector", A: st.Pod("p").NodeSelector("disk", "ssd").Obj(), B: st.Pod("p").NodeSelector("disk", "hdd").Obj(), Same: false},
		{Name: "a node selector or affinity", A: st.Pod("p").NodeSelector("disk", "ssd").Obj(),
			B: st.Pod("p").RequiredNodeAffinity(labelTerm(expr("disk", in, "ssd"))).Obj(), Same: false},
	}
	t.Run("no args", func(t *testing.T) { signtest.Pairs(t, mustNew(t, ``), keys, pairs) })

	// The added affinity is the profile's, the same for every pod: pods are
	// signed as without it.
	added := `{"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "pool", "operator": "In", "values": ["batch"]}]}]}}}`
	t.Run("added affinity", func(t *testing.T) {
		with := mustNew(t, added)
		signtest.Pairs(t, with, keys, pairs)
		for _, p := range pairs {
			a, _ := signtest.Sign(t, with, p.A)
			b, _ := signtest.Sign(t, mustNew(t, ``), p.A)
			if a != b {
				t.Errorf("%s: signed %s with added affinity, %s without", p.Name, a, b)
			}
		}
	})
}
