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
	v1 "k8s.io/api/core/v1"

	st "github.com/berth-io/berth/scheduler/schedtest"
)

// taint returns a taint key=value with the effect.
func taint(key, value string, effect v1.TaintEffect) v1.Taint {
	return v1.Taint{Key: key, Value: value, Effect: effect}
}

// tol returns an Equal toleration of key=value for the effect ("" for all).
func tol(key, value string, effect v1.TaintEffect) v1.Toleration {
	return v1.Toleration{Key: key, Operator: v1.TolerationOpEqual, Value: value, Effect: effect}
}

// node returns a node named name carrying the taints.
func node(name string, taints ...v1.Taint) *v1.Node {
	n := st.Node(name).Obj()
	n.Spec.Taints = taints
	return n
}

// pod returns pod p with the tolerations.
func pod(tols ...v1.Toleration) *v1.Pod {
	b := st.Pod("p")
	for _, t := range tols {
		b.Toleration(t)
	}
	return b.Obj()
}
