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

package nodeunschedulable

import (
	"testing"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/internal/signtest"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestSignPod(t *testing.T) {
	pairs := append(signtest.TolerationPairs(),
		signtest.Pair{Name: "tolerating cordoned nodes", A: st.Pod("p").Obj(), B: st.Pod("p").Toleration(tolerateCordon).Obj(), Same: false},
	)
	signtest.Pairs(t, &NodeUnschedulable{}, []string{framework.TolerationsSignKey}, pairs)
}
