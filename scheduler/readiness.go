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
	for _, synced := range s.alsoSynced() {
		if !synced() {
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
