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

package runtime

import (
	"context"
	"math"
	goruntime "runtime"
	"sync"
	"sync/atomic"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
)

// DefaultParallelism is the number of goroutines a Parallelizer uses unless told otherwise.
const DefaultParallelism = 16

// Parallelizer runs a function over pieces [0, n) in chunks on a bounded
// number of goroutines. It implements framework.Parallelizer. It also lends
// the framework the per-node score buffers of its parallel work, so a
// cycle's scores reuse the memory of earlier cycles.
type Parallelizer struct {
	parallelism int
	// nodeScores holds *[]framework.NodeScore returned by earlier cycles.
	nodeScores sync.Pool
	// scoreRuns holds *scoreRun, the per-call bookkeeping of
	// RunScorePlugins, returned by earlier calls.
	scoreRuns sync.Pool
	// Cycles run one at a time, so one spare of each per-cycle buffer is
	// enough: spareScores and spareFeasible were handed back by the last
	// cycle; lent and lentFeasible are the last handed out, which the
	// release methods take back when given them.
	spareScores   atomic.Pointer[scoreBuffers]
	lent          atomic.Pointer[scoreBuffers]
	spareFeasible atomic.Pointer[[]*framework.NodeInfo]
	lentFeasible  atomic.Pointer[[]*framework.NodeInfo]
}

// scoreBuffers is the memory of one RunScorePlugins result: a total per
// node and the weighted score of each plugin on each node.
type scoreBuffers struct {
	result   []framework.NodePluginScores
	weighted []framework.PluginScore
}

// scoreRun is one RunScorePlugins call: the pod, state and nodes scored,
// the plugins that run, their weights and names, each plugin's raw scores
// and node scorer, the result being filled and the first error. Its work
// functions are bound once, when the scoreRun is made, so that a call
// allocates none.
type scoreRun struct {
	ctx     context.Context
	state   *framework.CycleState
	pod     *v1.Pod
	nodes   []*framework.NodeInfo
	plugins []framework.ScorePlugin
	weights []int64
	names   []string
	raw     []framework.NodeScoreList
	scorers []framework.NodeScorer

	result   []framework.NodePluginScores
	weighted []framework.PluginScore
	errs     firstError

	scoreNode, normalizePlugin, weighNode func(int)
}

// borrowScoreRun returns an empty scoreRun for plugins score plugins.
func (p *Parallelizer) borrowScoreRun(plugins int) *scoreRun {
	r, ok := p.scoreRuns.Get().(*scoreRun)
	if !ok || cap(r.plugins) < plugins {
		r = &scoreRun{
			plugins: make([]framework.ScorePlugin, 0, plugins),
			weights: make([]int64, 0, plugins),
			names:   make([]string, 0, plugins),
			raw:     make([]framework.NodeScoreList, 0, plugins),
			scorers: make([]framework.NodeScorer, 0, plugins),
		}
		r.scoreNode, r.normalizePlugin, r.weighNode = r.scoreNodeAt, r.normalizePluginAt, r.weighNodeAt
	}
	return r
}

// releaseScoreRun empties r, dropping what it points to, and keeps it for
// a later call.
func (p *Parallelizer) releaseScoreRun(r *scoreRun) {
	clear(r.plugins[:cap(r.plugins)])
	clear(r.raw[:cap(r.raw)])
	clear(r.scorers[:cap(r.scorers)])
	r.plugins, r.weights, r.names, r.raw, r.scorers = r.plugins[:0], r.weights[:0], r.names[:0], r.raw[:0], r.scorers[:0]
	r.ctx, r.state, r.pod, r.nodes, r.result, r.weighted = nil, nil, nil, nil, nil, nil
	r.errs.reset()
	p.scoreRuns.Put(r)
}

// borrowNodeScores returns a slice of n node scores, its contents undefined.
func (p *Parallelizer) borrowNodeScores(n int) *[]framework.NodeScore {
	if buf, ok := p.nodeScores.Get().(*[]framework.NodeScore); ok && cap(*buf) >= n {
		*buf = (*buf)[:n]
		return buf
	}
	buf := make([]framework.NodeScore, n)
	return &buf
}

// borrowScores returns buffers for nodes × plugins scores, contents undefined.
func (p *Parallelizer) borrowScores(nodes, plugins int) *scoreBuffers {
	b := p.spareScores.Swap(nil)
	if b == nil {
		b = &scoreBuffers{}
	}
	if cap(b.result) < nodes {
		b.result = make([]framework.NodePluginScores, nodes)
	}
	if cap(b.weighted) < nodes*plugins {
		b.weighted = make([]framework.PluginScore, nodes*plugins)
	}
	b.result, b.weighted = b.result[:nodes], b.weighted[:nodes*plugins]
	p.lent.Store(b)
	return b
}

// releaseScores takes back the buffers of result if they are the last lent;
// any other result is left to the garbage collector.
func (p *Parallelizer) releaseScores(result []framework.NodePluginScores) {
	b := p.lent.Load()
	if b == nil || len(result) == 0 || len(b.result) == 0 || &b.result[0] != &result[0] {
		return
	}
	if !p.lent.CompareAndSwap(b, nil) {
		return
	}
	clear(b.result)
	p.spareScores.Store(b)
}

// borrowFeasible returns a slice of n nil NodeInfo pointers for the
// feasible nodes of a cycle.
func (p *Parallelizer) borrowFeasible(n int) []*framework.NodeInfo {
	buf := p.spareFeasible.Swap(nil)
	if buf == nil || cap(*buf) < n {
		fresh := make([]*framework.NodeInfo, n)
		buf = &fresh
	}
	*buf = (*buf)[:n]
	p.lentFeasible.Store(buf)
	return *buf
}

// releaseFeasible takes back nodes if it is the last slice borrowFeasible
// lent (or a prefix of it); any other slice is left to the garbage collector.
func (p *Parallelizer) releaseFeasible(nodes []*framework.NodeInfo) {
	buf := p.lentFeasible.Load()
	if buf == nil || len(nodes) == 0 || len(*buf) == 0 || &(*buf)[0] != &nodes[0] {
		return
	}
	if !p.lentFeasible.CompareAndSwap(buf, nil) {
		return
	}
	// The pointers would keep old snapshots' NodeInfos alive.
	clear((*buf)[:cap(*buf)])
	p.spareFeasible.Store(buf)
}

// NewParallelizer returns a Parallelizer with the given parallelism (at least 1).
func NewParallelizer(parallelism int) *Parallelizer {
	return &Parallelizer{parallelism: max(parallelism, 1)}
}

// Parallelism returns the number of goroutines used at most.
func (p *Parallelizer) Parallelism() int { return p.parallelism }

// chunkSize picks about sqrt(n) pieces per chunk, but not more than an even
// share per worker, so small inputs still spread over all workers and large
// ones do not pay for one handoff per piece.
func chunkSize(pieces, parallelism int) int {
	size := int(math.Sqrt(float64(pieces)))
	if share := pieces/parallelism + 1; size > share {
		size = share
	}
	return max(size, 1)
}

// Until calls do for each piece in [0, pieces) and returns when all calls
// are done or, once ctx is cancelled, when the calls in flight are done.
// The calling goroutine takes part in the work. operation names the work for
// profiling and future metrics.
func (p *Parallelizer) Until(ctx context.Context, pieces int, do func(i int), operation string) {
	_ = operation
	p.until(ctx, pieces, do, p.parallelism, nil)
}

// untilCPU is Until for work that only computes, such as Filter and Score
// over nodes: it uses no more goroutines than can run at once
// (GOMAXPROCS), since more would only add start-up and switching costs.
// Plugins' own Until calls, which may wait on the API, keep the full
// parallelism.
func (p *Parallelizer) untilCPU(ctx context.Context, pieces int, do func(i int)) {
	p.untilCPUOrStop(ctx, pieces, nil, do)
}

// untilCPUOrStop is untilCPU that also ends, as it does when ctx is
// cancelled, once stop (when not nil) is set: work that ends itself early
// needs no context of its own to cancel.
func (p *Parallelizer) untilCPUOrStop(ctx context.Context, pieces int, stop *atomic.Bool, do func(i int)) {
	parallelism := min(p.parallelism, goruntime.GOMAXPROCS(0))
	if pieces < minParallelPieces {
		// Too little work to pay for starting and waking helpers: a
		// group's cycle searches many placements of a few dozen nodes.
		parallelism = 1
	}
	p.until(ctx, pieces, do, parallelism, stop)
}

// minParallelPieces is the fewest pieces untilCPU shares among goroutines.
const minParallelPieces = 128

func (p *Parallelizer) until(ctx context.Context, pieces int, do func(i int), parallelism int, stop *atomic.Bool) {
	if pieces <= 0 {
		return
	}
	size := chunkSize(pieces, parallelism)
	chunks := (pieces + size - 1) / size
	workers := min(parallelism, chunks)
	if workers == 1 {
		r := untilRun{pieces: pieces, size: size, chunks: chunks, done: ctx.Done(), stop: stop, do: do}
		r.work()
		return
	}
	// One allocation holds what the workers share.
	r := &untilRun{pieces: pieces, size: size, chunks: chunks, done: ctx.Done(), stop: stop, do: do}
	r.wg.Add(workers - 1)
	for range workers - 1 {
		go r.helper()
	}
	r.work()
	r.wg.Wait()
}

// untilRun is one call of until: its pieces in chunks of size, and the
// next chunk to take.
type untilRun struct {
	pieces, size, chunks int
	done                 <-chan struct{}
	stop                 *atomic.Bool
	do                   func(i int)
	next                 atomic.Int64
	wg                   sync.WaitGroup
}

// work takes chunks and calls do on their pieces until none is left or
// the run is cancelled.
func (r *untilRun) work() {
	for {
		c := int(r.next.Add(1) - 1)
		if c >= r.chunks {
			return
		}
		end := min((c+1)*r.size, r.pieces)
		for i := c * r.size; i < end; i++ {
			select {
			case <-r.done:
				return
			default:
			}
			if r.stop != nil && r.stop.Load() {
				return
			}
			r.do(i)
		}
	}
}

// helper is work on a goroutine of its own.
func (r *untilRun) helper() {
	defer r.wg.Done()
	r.work()
}
