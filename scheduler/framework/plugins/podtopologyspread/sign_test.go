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

package podtopologyspread

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/internal/signtest"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestSignPod(t *testing.T) {
	constrained := st.Pod("p").Labels("app", "web").Spread(1, zoneKey, v1.DoNotSchedule, match("app", "web")).Obj()
	plain := st.Pod("p").Labels("app", "web").Obj()
	byConstraints := signtest.Refusal{Name: "spread constraints", Pod: constrained, Code: framework.Unschedulable, Reason: reasonConstraintsSignature}

	t.Run("system defaulting", func(t *testing.T) {
		// The default profile's: no pod is signed.
		signtest.Refusals(t, newPlugin(t, nil, newHandle(t, nil)), []signtest.Refusal{
			byConstraints,
			{Name: "no spread constraints", Pod: plain, Code: framework.Unschedulable, Reason: reasonDefaultsSignature},
		})
	})

	t.Run("list defaulting", func(t *testing.T) {
		signtest.Refusals(t, newPlugin(t, listArgs(spread(1, zoneKey, v1.ScheduleAnyway)), newHandle(t, nil)), []signtest.Refusal{
			byConstraints,
			{Name: "no spread constraints", Pod: plain, Code: framework.Unschedulable, Reason: reasonDefaultsSignature},
		})
	})

	t.Run("no default constraints", func(t *testing.T) {
		pl := newPlugin(t, listArgs(), newHandle(t, nil))
		signtest.Pairs(t, pl, nil, []signtest.Pair{
			{Name: "other labels", A: plain, B: st.Pod("q").Labels("app", "db").Obj(), Same: true},
		})
		signtest.Refusals(t, pl, []signtest.Refusal{byConstraints})
	})
}
