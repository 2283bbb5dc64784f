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
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	apiruntime "k8s.io/apimachinery/pkg/runtime"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/internal/algorithm"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// bestNodes returns the feasible nodes with the highest total, the set the
// scheduler picks from at random.
func bestNodes(e *Evaluation) []string {
	var best []string
	var top int64
	for i, s := range e.Scores {
		switch {
		case len(best) == 0 || s.TotalScore > top:
			best, top = []string{e.Feasible[i]}, s.TotalScore
		case s.TotalScore == top:
			best = append(best, e.Feasible[i])
		}
	}
	return best
}

// TestEvaluateAgreesWithTheCycle schedules hundreds of random pods one by
// one on a random cluster with the scheduling cycle (its adaptive search,
// its random tie-break) and, on the same snapshot, evaluates each with
// explain's path: the node the cycle picks is always among the evaluation's
// best, and a pod the cycle cannot place has no feasible node.
func TestEvaluateAgreesWithTheCycle(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, seed))
			spec := &v1alpha1.SchedulingProfileSpec{}
			if seed == 3 {
				spec.PluginConfig = []v1alpha1.PluginConfig{{Name: "NodeResourcesFit", Args: runtimeRaw(
					`{"scoringStrategy":{"type":"MostAllocated","resources":[{"name":"cpu","weight":1},{"name":"memory","weight":1}]}}`)}}
			}
			h := newHarness(t, withOptions(WithSeed(seed)), withProfile(v1.DefaultSchedulerName, "default", spec))
			ctx, s := h.ctx, h.s
			fwk := s.profiles.Get(v1.DefaultSchedulerName).Framework
			logger := logr.Discard()
			for i := range 20 + rng.IntN(20) {
				s.cache.AddNode(logger, st.RandomNode(rng, i))
			}
			placed, ties := 0, 0
			for i := range 300 {
				pod := st.RandomPod(rng, i)
				result, cycleErr := s.schedulePod(ctx, fwk, framework.NewCycleState(), pod, false, 0)
				// The snapshot is the one the cycle just used.
				e, err := algorithm.Evaluate(ctx, fwk, s.snapshot, pod)
				if err != nil {
					t.Fatalf("%s: evaluating: %v", pod.Name, err)
				}
				if cycleErr != nil {
					if len(e.Feasible) > 0 {
						t.Fatalf("%s: the cycle failed (%v) but the evaluation finds %v feasible", pod.Name, cycleErr, e.Feasible)
					}
					continue
				}
				best := bestNodes(e)
				if len(e.Feasible) == 1 {
					best = e.Feasible
				}
				if !slices.Contains(best, result.Host) {
					t.Fatalf("%s: the cycle picked %s, the evaluation's best are %v (feasible %v)", pod.Name, result.Host, best, e.Feasible)
				}
				if len(best) > 1 {
					ties++
				}
				bound := pod.DeepCopy()
				bound.Spec.NodeName = result.Host
				if err := s.cache.AddPod(logger, bound); err != nil {
					t.Fatal(err)
				}
				placed++
			}
			if placed < 100 {
				t.Errorf("only %d of 300 pods placed; the cluster is too small to test much", placed)
			}
			t.Logf("%d pods placed, %d among tied nodes", placed, ties)
		})
	}
}

func runtimeRaw(s string) apiruntime.RawExtension { return apiruntime.RawExtension{Raw: []byte(s)} }
