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
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/controllers"
	"github.com/berth-io/berth/scheduler/framework/runtime"
)

// syncChecker reports whether the scheduler's informer caches have synced;
// *scheduler.Scheduler is one.
type syncChecker interface {
	HasSynced() bool
}

// readiness decides /readyz. A replica, leader or standby, is ready once
// every SchedulingProfile that existed when it started has been compiled at
// least once (valid or not) and the scheduler's informer caches have
// synced: a standby that reports ready can take over at once.
type readiness struct {
	sched    syncChecker
	profiles client.Reader
	retry    time.Duration

	mu sync.Mutex
	// compiled holds the schedulerNames the controllers have compiled.
	compiled map[string]bool
	// waiting holds the schedulerNames of the profiles present at start
	// that have not been compiled yet; nil until they were listed.
	waiting map[string]bool
}

var (
	_ manager.Runnable               = (*readiness)(nil)
	_ manager.LeaderElectionRunnable = (*readiness)(nil)
)

// newReadiness returns the readiness of a replica whose scheduler is sched
// and which reads profiles from profiles.
func newReadiness(sched syncChecker, profiles client.Reader) *readiness {
	return &readiness{sched: sched, profiles: profiles, retry: time.Second, compiled: map[string]bool{}}
}

// NeedLeaderElection is false: every replica reports its readiness.
func (*readiness) NeedLeaderElection() bool { return false }

// Start lists the profiles present at start, retrying until it succeeds or
// ctx ends. The manager starts it once its caches have synced.
func (r *readiness) Start(ctx context.Context) error {
	for {
		err := r.listProfiles(ctx)
		if err == nil {
			return nil
		}
		klog.FromContext(ctx).Error(err, "Listing the SchedulingProfiles present at start; retrying")
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(r.retry):
		}
	}
}

// listProfiles records the schedulerNames the replica waits for.
func (r *readiness) listProfiles(ctx context.Context) error {
	var list v1alpha1.SchedulingProfileList
	if err := r.profiles.List(ctx, &list); err != nil {
		return fmt.Errorf("listing SchedulingProfiles: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.waiting = map[string]bool{}
	for i := range list.Items {
		p := &list.Items[i]
		if p.DeletionTimestamp != nil || p.Spec.ShadowOf != "" {
			// A shadow serves no schedulerName; no pod waits for it.
			continue
		}
		// Profiles that contend for a schedulerName are settled by compiling
		// the name for the oldest of them.
		if name := schedulerNameOf(p); !r.compiled[name] {
			r.waiting[name] = true
		}
	}
	return nil
}

// compiledName records that the controllers compiled a profile for name.
func (r *readiness) compiledName(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.compiled[name] = true
	if r.waiting != nil {
		delete(r.waiting, name)
	}
}

// Check is the /readyz check: nil when the replica is ready.
func (r *readiness) Check(*http.Request) error {
	r.mu.Lock()
	listed, waiting := r.waiting != nil, slices.Sorted(maps.Keys(r.waiting))
	r.mu.Unlock()
	if !listed {
		return errors.New("the SchedulingProfiles present at start have not been listed yet")
	}
	if len(waiting) > 0 {
		const shown = 5
		names := strings.Join(waiting[:min(len(waiting), shown)], ", ")
		if len(waiting) > shown {
			names += fmt.Sprintf(" and %d more", len(waiting)-shown)
		}
		return fmt.Errorf("profiles not compiled yet for schedulerNames %s", names)
	}
	if !r.sched.HasSynced() {
		return errors.New("the scheduler's informer caches have not synced")
	}
	return nil
}

// trackingHost is the scheduler as the controllers see it: it tells
// readiness which schedulerNames have been compiled.
type trackingHost struct {
	controllers.ProfileHost
	ready *readiness
}

// CompileProfile compiles through the scheduler and records the attempt,
// whether or not the spec is valid.
func (h trackingHost) CompileProfile(ctx context.Context, schedulerName string, spec *v1alpha1.SchedulingProfileSpec, opts ...runtime.Option) (*runtime.Framework, error) {
	fwk, err := h.ProfileHost.CompileProfile(ctx, schedulerName, spec, opts...)
	h.ready.compiledName(schedulerName)
	return fwk, err
}

// schedulerNameOf is the schedulerName a profile serves.
func schedulerNameOf(p *v1alpha1.SchedulingProfile) string {
	if p.Spec.SchedulerName != "" {
		return p.Spec.SchedulerName
	}
	return p.Name
}
