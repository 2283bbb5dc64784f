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

package podtopologyspread

import (
	"context"
	"fmt"
	"sync"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// TestParallelMatchesSerial counts with one goroutine per node and checks
// that Filter and Score, run concurrently on a shared state, agree with a
// serial run; run with -race.
func TestParallelMatchesSerial(t *testing.T) {
	var nodes []*v1.Node
	var pods []*v1.Pod
	for i := range 40 {
		name := fmt.Sprintf("n%02d", i)
		nodes = append(nodes, zoned(name, fmt.Sprintf("z%d", i%4)))
		pods = append(pods, placed(i%3, name, "app", "web")...)
	}
	nis := nodeInfos(nodes, pods...)
	web := match("app", "web")
	p := st.Pod("p").Labels("app", "web").
		Spread(4, zoneKey, hard, web).Spread(2, hostKey, hard, web).
		Spread(1, zoneKey, soft, web).Spread(1, hostKey, soft, web).Obj()

	run := func(h *st.Handle, concurrent bool) ([]framework.Code, []int64) {
		pl := newPlugin(t, nil, h)
		ctx, state := context.Background(), framework.NewCycleState()
		if _, s := pl.PreFilter(ctx, state, p, nis); !s.IsSuccess() {
			t.Fatal(s)
		}
		if s := pl.PreScore(ctx, state, p, nis); !s.IsSuccess() {
			t.Fatal(s)
		}
		codes, scores := make([]framework.Code, len(nis)), make([]int64, len(nis))
		var wg sync.WaitGroup
		for i := range nis {
			work := func() {
				codes[i] = pl.Filter(ctx, state, p, nis[i]).Code()
				scores[i], _ = pl.Score(ctx, state, p, nis[i])
			}
			if !concurrent {
				work()
				continue
			}
			wg.Add(1)
			go func() { defer wg.Done(); work() }()
		}
		wg.Wait()
		return codes, scores
	}
	serialCodes, serialScores := run(newHandle(t, nis), false)
	h := newHandle(t, nis)
	h.Parallel = st.Concurrent{}
	codes, scores := run(h, true)
	rejected := 0
	for i := range nis {
		if codes[i] != serialCodes[i] || scores[i] != serialScores[i] {
			t.Errorf("node %d: parallel %v/%d, serial %v/%d", i, codes[i], scores[i], serialCodes[i], serialScores[i])
		}
		if codes[i] != framework.Success {
			rejected++
		}
	}
	if rejected == 0 || rejected == len(nis) {
		t.Errorf("%d of %d nodes rejected; the test wants a mix", rejected, len(nis))
	}
}
