package scheduler

import "context"

// HasSynced reports, without waiting, whether RunInformers or Start has run
// the scheduler's informers and their caches hold the cluster's objects. It
// is false before either, so a replica whose caches are cold is not
// reported ready.
func (s *Scheduler) HasSynced() bool {
	f := s.informerFactory
	// The factory only reports on started informers: an unstarted pod or
	// node informer says that Start has not run them yet.
	if !f.Core().V1().Pods().Informer().HasSynced() || !f.Core().V1().Nodes().Informer().HasSynced() {
		return false
	}
	for _, h := range s.handlers {
		if !h.HasSynced() {
			return false
		}
	}
	done, cancel := context.WithCancel(context.Background())
	cancel()
	for _, synced := range f.WaitForCacheSyncWithContext(done).Synced {
		if !synced {
			return false
		}
	}
	return true
}
