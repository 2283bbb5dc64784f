package nodechanges

import (
	"math/rand"
	"testing"

	"github.com/berth-io/berth/scheduler/framework"
)

// TestPositionTableMatchesMap puts, moves and removes random NodeInfos,
// growing the table from its smallest size, and compares every lookup with
// a Go map's after each step.
func TestPositionTableMatchesMap(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	pool := make([]*framework.NodeInfo, 300)
	for i := range pool {
		pool[i] = framework.NewNodeInfo()
	}
	table, want := newPositionTable(0), map[*framework.NodeInfo]int32{}
	for step := range 5000 {
		ni := pool[rng.Intn(len(pool))]
		if rng.Intn(3) == 0 {
			table.remove(ni)
			delete(want, ni)
		} else {
			pos := int32(rng.Intn(1000))
			table.put(ni, pos)
			want[ni] = pos
		}
		if table.count != len(want) {
			t.Fatalf("step %d: %d entries, want %d", step, table.count, len(want))
		}
		for i, p := range pool {
			w, ok := want[p]
			if !ok {
				w = -1
			}
			if got := table.get(p); got != int(w) {
				t.Fatalf("step %d: NodeInfo %d at %d, want %d", step, i, got, w)
			}
		}
	}
	if 2*table.count > len(table.slots) {
		t.Errorf("%d entries in %d slots: more than half full", table.count, len(table.slots))
	}
}
