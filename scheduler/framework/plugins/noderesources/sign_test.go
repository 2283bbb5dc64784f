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

package noderesources

import (
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/internal/signtest"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// resourcePairs are pods that Fit and BalancedAllocation sign alike
// exactly when their effective requests are equal.
func resourcePairs() []signtest.Pair {
	secret := v1.VolumeSource{Secret: &v1.SecretVolumeSource{SecretName: "s"}}
	return []signtest.Pair{
		{Name: "another name", A: st.Pod("a").Container("cpu", "1", "memory", "1Gi").Obj(), B: st.Pod("b").Container("cpu", "1", "memory", "1Gi").Obj(), Same: true},
		{Name: "a secret volume and labels", A: pod("cpu", "1"), B: st.Pod("p").Labels("app", "x").Container("cpu", "1").Volume("s", secret).Obj(), Same: true},
		{Name: "the same sum over two containers", A: pod("cpu", "2", "memory", "2Gi"), B: st.Pod("p").Container("cpu", "1", "memory", "1Gi").Container("cpu", "1", "memory", "1Gi").Obj(), Same: true},
		{Name: "the same quantity written otherwise", A: pod("cpu", "1"), B: pod("cpu", "1000m"), Same: true},
		{Name: "limits only of a container", A: pod("cpu", "1"), B: st.Pod("p").Container("cpu", "1").Limit("cpu", "4").Obj(), Same: true},
		{Name: "more cpu", A: pod("cpu", "1"), B: pod("cpu", "2"), Same: false},
		{Name: "more memory", A: pod("memory", "1Gi"), B: pod("memory", "2Gi"), Same: false},
		{Name: "an extended resource", A: pod("cpu", "1"), B: pod("cpu", "1", "example.com/foo", "1"), Same: false},
		{Name: "a larger init container", A: pod("cpu", "1"), B: st.Pod("p").Container("cpu", "1").Init("cpu", "3").Obj(), Same: false},
		{Name: "a smaller init container", A: pod("cpu", "1"), B: st.Pod("p").Container("cpu", "1").Init("cpu", "500m").Obj(), Same: true},
		{Name: "a sidecar", A: pod("cpu", "1"), B: st.Pod("p").Container("cpu", "1").Sidecar("cpu", "500m").Obj(), Same: false},
		{Name: "overhead", A: pod("cpu", "1"), B: st.Pod("p").Container("cpu", "1").Overhead("cpu", "250m").Obj(), Same: false},
		{Name: "pod-level resources", A: pod("cpu", "1"), B: st.Pod("p").Container("cpu", "1").PodLevel("cpu", "3").Obj(), Same: false},
	}
}

func TestFitSignPod(t *testing.T) {
	keys := []string{framework.ResourcesSignKey}
	t.Run("without device classes", func(t *testing.T) {
		pl := fitWith(t, nil)
		pairs := append(resourcePairs(),
			signtest.Pair{Name: "an extended resource no class could serve", A: pod("example.com/gpu", "1"), B: pod("example.com/gpu", "1"), Same: true})
		signtest.Pairs(t, pl, keys, pairs)
	})

	classes := draClasses(t, draClass("gpu-class", "example.com/gpu"))
	pl := fitWith(t, classes)
	t.Run("with device classes", func(t *testing.T) {
		pairs := append(resourcePairs(),
			signtest.Pair{Name: "an extended resource no class serves", A: pod("example.com/fpga", "1"), B: pod("example.com/fpga", "2"), Same: false},
			signtest.Pair{Name: "a served resource requested at zero", A: pod("cpu", "1", "example.com/gpu", "0"), B: pod("cpu", "1", "example.com/gpu", "0"), Same: true})
		signtest.Pairs(t, pl, keys, pairs)
	})
	signtest.Refusals(t, pl, []signtest.Refusal{
		{Name: "the class's extended resource", Pod: pod("cpu", "1", "example.com/gpu", "1"), Code: framework.Unschedulable, Reason: reasonDRASignature},
		{Name: "the class's implicit resource", Pod: pod(implicitGPU, "1"), Code: framework.Unschedulable, Reason: reasonDRASignature},
		{Name: "in an init container", Pod: st.Pod("p").Container("cpu", "1").Init("example.com/gpu", "1").Obj(), Code: framework.Unschedulable, Reason: reasonDRASignature},
	})
	t.Run("ignored resources are signed", func(t *testing.T) {
		signtest.Pairs(t, mustFit(t, `{"ignoredResources": ["example.com/foo"]}`), keys, []signtest.Pair{
			{Name: "an ignored resource", A: pod("cpu", "1"), B: pod("cpu", "1", "example.com/foo", "1"), Same: false},
		})
	})
}

func TestBalancedAllocationSignPod(t *testing.T) {
	pl := mustBalanced(t, "")
	pairs := append(resourcePairs(),
		// Unlike Fit, BalancedAllocation signs these: it never scores by DRA devices.
		signtest.Pair{Name: "an extended resource a class may serve", A: pod("example.com/gpu", "1"), B: pod("example.com/gpu", "2"), Same: false})
	signtest.Pairs(t, pl, []string{framework.ResourcesSignKey}, pairs)
}

// TestFitAndBalancedAllocationSignAlike checks that the two plugins give
// the same value under their shared key, so that a profile with both
// signs a pod consistently whichever runs last.
func TestFitAndBalancedAllocationSignAlike(t *testing.T) {
	fit, balanced := fitWith(t, nil), mustBalanced(t, "")
	for _, p := range resourcePairs() {
		for _, pod := range []*v1.Pod{p.A, p.B} {
			a, _ := signtest.Sign(t, fit, pod)
			b, _ := signtest.Sign(t, balanced, pod)
			if a != b {
				t.Errorf("%s: Fit signs %s, BalancedAllocation %s", p.Name, a, b)
			}
		}
	}
}
