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

package framework

// relocationKey keys the mark MarkRelocation leaves in a cycle's state.
const relocationKey StateKey = "berth.io/relocation"

// relocation is the mark itself; it holds nothing.
type relocation struct{}

// Clone returns the mark.
func (relocation) Clone() StateData { return relocation{} }

// MarkRelocation records in state that the cycle asks where a replacement
// of a running pod would fit (the rebalancer's nodeFit), not where to put a
// pending pod. Plugins that hold state the running pod alone owns, and that
// its eviction would release, then count it released: DynamicResources
// allocates afresh the claims that only the pod uses, their devices free.
// Such a cycle is never reserved or bound.
func MarkRelocation(state *CycleState) { state.Write(relocationKey, relocation{}) }

// IsRelocation reports whether MarkRelocation marked the cycle's state.
func IsRelocation(state *CycleState) bool {
	_, err := state.Read(relocationKey)
	return err == nil
}
