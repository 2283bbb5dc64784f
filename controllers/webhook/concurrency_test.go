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

package webhook

import (
	"sync"
	"testing"

	st "github.com/berth-io/berth/scheduler/schedtest"
)

// TestValidatorIsSafeForConcurrentUse runs admission checks in parallel, as
// the webhook server does; run with -race.
func TestValidatorIsSafeForConcurrentUse(t *testing.T) {
	v := NewValidator(testRegistry())
	good := st.Profile("good").PluginArgs("NodeResourcesFit", `{"scoringStrategy":{"type":"MostAllocated"}}`).Obj()
	bad := st.Profile("bad").Enable("filter", "Nope").Obj()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 5 {
				if errs := v.ValidateProfile(t.Context(), good); len(errs) != 0 {
					t.Errorf("good profile rejected: %v", errs)
				}
				if errs := v.ValidateProfile(t.Context(), bad); len(errs) != 1 {
					t.Errorf("bad profile: got %v, want one error", errs)
				}
				if errs := v.ValidatePluginWeight(t.Context(), makeWeight("w", "NodeName", 2)); len(errs) != 1 {
					t.Errorf("weight on NodeName: got %v, want one error", errs)
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkValidateProfile measures one admission check of a profile, the
// latency the webhook adds to kubectl apply.
func BenchmarkValidateProfile(b *testing.B) {
	v := NewValidator(testRegistry())
	p := st.Profile("bin-packing").Weight("multiPoint", "NodeResourcesFit", 3).
		Disable("score", "NodeResourcesBalancedAllocation").
		PluginArgs("NodeResourcesFit", `{"scoringStrategy":{"type":"MostAllocated"}}`).Obj()
	b.ReportAllocs()
	for b.Loop() {
		if errs := v.ValidateProfile(b.Context(), p); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}
