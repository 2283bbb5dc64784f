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

package tainttoleration

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/internal/signtest"
)

func TestSignPod(t *testing.T) {
	pairs := append(signtest.TolerationPairs(),
		signtest.Pair{Name: "every effect or one", A: pod(tol("k", "v", "")), B: pod(tol("k", "v", v1.TaintEffectNoSchedule)), Same: false},
		signtest.Pair{Name: "three in another order", A: pod(tol("c", "", ""), tol("a", "1", ""), tol("b", "", "")),
			B: pod(tol("b", "", ""), tol("c", "", ""), tol("a", "1", "")), Same: true},
	)
	signtest.Pairs(t, &TaintToleration{}, []string{framework.TolerationsSignKey}, pairs)
}
