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

// Package decisions keeps a live profile's last placements, with the
// scores that decided them, for the profile's status and berth explain.
package decisions

import (
	"cmp"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/berth-io/berth/scheduler/framework"
)

// MaxNodes is how many scored nodes a Decision keeps: the chosen one and
// its best runners-up.
const MaxNodes = 3

// Decision is one placement.
type Decision struct {
	// Pod is the pod's namespace/name.
	Pod string
	// UID is the pod's UID.
	UID types.UID
	// Node is where the pod was bound.
	Node string
	// Generation is the profile generation that placed the pod.
	Generation int64
	// Time is when the pod was bound.
	Time time.Time
	// Feasible and Evaluated count the nodes that passed Filter and the
	// nodes filtered.
	Feasible, Evaluated int
	// Nodes are the chosen node first, then the best runners-up by total
	// (then name); nil when nothing was scored.
	Nodes []framework.NodePluginScores
	// Group, for a member that its PodGroup's cycle placed, is how that
	// cycle chose where the group goes; the members it bound share it.
	Group *Group
}

// Group is how a PodGroup's cycle chose the placement of its members: the
// placements it tried, those where the group fitted, and their ranking by
// the PlacementScore plugins (PodGroupPodsCount).
type Group struct {
	// PodGroup is the group's namespace/name.
	PodGroup string
	// TopologyKey is the node label the group is kept within one value
	// of; "" when it has no topology constraint.
	TopologyKey string
	// Placement names the placement chosen: its topology value, or ""
	// for the one placement of every node.
	Placement string
	// Tried and Feasible count the placements the cycle tried and those
	// where the whole group fitted.
	Tried, Feasible int
	// Placements are the chosen placement first, then the best other
	// feasible ones by total (then name), with their weighted
	// PlacementScore scores; at most MaxNodes.
	Placements []framework.NodePluginScores
}

// Top returns the chosen node's scores and those of the best others, at
// most MaxNodes in all, copied out of scores so that the framework may
// reuse them. It runs on the scheduling loop: one pass over the nodes.
func Top(scores []framework.NodePluginScores, chosen string) []framework.NodePluginScores {
	var best [MaxNodes]*framework.NodePluginScores
	n := 0
	for i := range scores {
		s := &scores[i]
		if s.Name == chosen {
			best[0] = s
			continue
		}
		// Keep the best MaxNodes-1 others in best[1:], best first.
		at := 1 + n
		if n == MaxNodes-1 {
			if !better(s, best[MaxNodes-1]) {
				continue
			}
			at = MaxNodes - 1
		} else {
			n++
		}
		for at > 1 && better(s, best[at-1]) {
			best[at] = best[at-1]
			at--
		}
		best[at] = s
	}
	if best[0] == nil {
		return nil
	}
	out := make([]framework.NodePluginScores, 0, 1+n)
	for _, s := range best[:1+n] {
		out = append(out, framework.NodePluginScores{Name: s.Name, TotalScore: s.TotalScore, Scores: slices.Clone(s.Scores)})
	}
	return out
}

// better orders nodes by total, highest first, then by name.
func better(a, b *framework.NodePluginScores) bool {
	if a.TotalScore != b.TotalScore {
		return a.TotalScore > b.TotalScore
	}
	return cmp.Less(a.Name, b.Name)
}

// Recorder keeps the last decisions of one profile. It is safe for
// concurrent use: binding goroutines add, the status writer reads.
type Recorder struct {
	mu sync.Mutex
	// ring holds the decisions; next is where the following one goes.
	ring    []Decision
	next    int
	full    bool
	version uint64
}

// NewRecorder returns a Recorder that keeps the last size decisions.
func NewRecorder(size int) *Recorder {
	return &Recorder{ring: make([]Decision, max(size, 1))}
}

// Size returns how many decisions r keeps.
func (r *Recorder) Size() int { return len(r.ring) }

// Add records d, dropping the oldest decision when r is full.
func (r *Recorder) Add(d Decision) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.addLocked(d)
}

func (r *Recorder) addLocked(d Decision) {
	r.ring[r.next] = d
	r.next++
	if r.next == len(r.ring) {
		r.next, r.full = 0, true
	}
	r.version++
}

// Recent returns the decisions kept, newest first.
func (r *Recorder) Recent() []Decision {
	r.mu.Lock()
	defer r.mu.Unlock()
	count := r.next
	if r.full {
		count = len(r.ring)
	}
	out := make([]Decision, 0, count)
	for i := 1; i <= count; i++ {
		out = append(out, r.ring[(r.next-i+len(r.ring))%len(r.ring)])
	}
	return out
}

// Version changes whenever a decision is added.
func (r *Recorder) Version() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.version
}
