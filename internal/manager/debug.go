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
