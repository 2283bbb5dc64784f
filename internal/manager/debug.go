package manager

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler"
)

// compareCacheOnSignal compares the scheduler's cache with its informers
// each time the process gets SIGUSR2, until ctx ends, as kube-scheduler
// does: an operator, or the fault suite, checks a live replica without
// stopping it.
func compareCacheOnSignal(ctx context.Context, s *scheduler.Scheduler) {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGUSR2)
	defer signal.Stop(signals)
	for {
		select {
		case <-ctx.Done():
			return
		case <-signals:
			if _, err := s.CompareCache(ctx); err != nil {
				klog.FromContext(ctx).Error(err, "Comparing the scheduler's cache with its informers")
			}
		}
	}
}
