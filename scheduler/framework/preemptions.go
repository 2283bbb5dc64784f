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

import (
	"sync"

	"k8s.io/apimachinery/pkg/types"
)

// PreemptionsInFlight records, by preemptor, the preemptions whose victims
// are still being evicted in the background, and the victim evicted last
// once its turn has come. The scheduler holds one for all its profiles and
// their generations: a profile swapped while one of its pods' preemptions
// runs must still hold that pod back, or the pod would be tried again and
// pick more victims.
type PreemptionsInFlight struct {
	mu      sync.Mutex
	running map[types.UID]*types.NamespacedName
}

// NewPreemptionsInFlight returns an empty record.
func NewPreemptionsInFlight() *PreemptionsInFlight {
	return &PreemptionsInFlight{running: make(map[types.UID]*types.NamespacedName)}
}

// Start records that the preemptor's victims are being evicted.
func (p *PreemptionsInFlight) Start(preemptor types.UID) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running[preemptor] = nil
}

// SetLastVictim records the victim evicted last, once the others are gone.
func (p *PreemptionsInFlight) SetLastVictim(preemptor types.UID, victim types.NamespacedName) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running[preemptor] = &victim
}

// Finish records that the preemptor's preemption ended, done or failed.
func (p *PreemptionsInFlight) Finish(preemptor types.UID) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.running, preemptor)
}

// Get reports whether the preemptor's preemption runs and, once its turn
// has come, its last victim.
func (p *PreemptionsInFlight) Get(preemptor types.UID) (lastVictim *types.NamespacedName, running bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	last, ok := p.running[preemptor]
	return last, ok
}
