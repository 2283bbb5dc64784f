package runtime

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
)

// DefaultParallelism is the number of goroutines a Parallelizer uses unless told otherwise.
const DefaultParallelism = 16

// Parallelizer runs a function over pieces [0, n) in chunks on a bounded
// number of goroutines. It implements framework.Parallelizer.
type Parallelizer struct {
	parallelism int
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
	if pieces <= 0 {
		return
	}
	size := chunkSize(pieces, p.parallelism)
	chunks := (pieces + size - 1) / size
	workers := min(p.parallelism, chunks)
	done := ctx.Done()
	var next atomic.Int64
	work := func() {
		for {
			c := int(next.Add(1) - 1)
			if c >= chunks {
				return
			}
			end := min((c+1)*size, pieces)
			for i := c * size; i < end; i++ {
				select {
				case <-done:
					return
				default:
				}
				do(i)
			}
		}
	}
	if workers == 1 {
		work()
		return
	}
	var wg sync.WaitGroup
	wg.Add(workers - 1)
	for range workers - 1 {
		go func() {
			defer wg.Done()
			work()
		}()
	}
	work()
	wg.Wait()
}
