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

// Package defaultprofile gives a Berth install a SchedulingProfile to start
// with, as kube-scheduler starts with default-scheduler: the manager's
// --default-profile=NAME creates the profile NAME with an empty spec
// (upstream's default plugins, schedulerName NAME) when no profile of that
// name exists. It never changes or re-creates a profile that exists, so the
// profile is the user's to edit, or to delete with the flag unset.
package defaultprofile

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/berth-io/berth/api/v1alpha1"
)

// +kubebuilder:rbac:groups=scheduling.berth.io,resources=schedulingprofiles,verbs=create

// CreatedByAnnotation marks a profile this package created, naming the flag that asked for it.
const CreatedByAnnotation = "scheduling.berth.io/created-by"

// Creator is a manager runnable that creates the default SchedulingProfile
// once, on the elected leader.
type Creator struct {
	client  client.Client
	name    string
	backoff wait.Backoff
}

// Option configures a Creator.
type Option func(*Creator)

// WithBackoff sets how the Creator retries a create that failed, for
// example because Berth's webhook, which admits the profile, is not ready yet.
func WithBackoff(b wait.Backoff) Option { return func(c *Creator) { c.backoff = b } }

// New returns a Creator of the SchedulingProfile name.
func New(c client.Client, name string, opts ...Option) *Creator {
	cr := &Creator{
		client: c,
		name:   name,
		// Retries go on until the manager stops: 0.5 s, 1 s, 2 s, ... then every 30 s.
		backoff: wait.Backoff{Duration: 500 * time.Millisecond, Factor: 2, Jitter: 0.1, Steps: 1 << 30, Cap: 30 * time.Second},
	}
	for _, opt := range opts {
		opt(cr)
	}
	return cr
}

// NeedLeaderElection makes the manager run the Creator on the leader only.
func (c *Creator) NeedLeaderElection() bool { return true }

// Start creates the profile unless it exists, retrying failures with
// backoff until it succeeds or ctx ends. It returns nil either way: a
// missing default profile is reported in the log, it does not stop Berth.
func (c *Creator) Start(ctx context.Context) error {
	logger := log.FromContext(ctx).WithValues("schedulingProfile", klog.KRef("", c.name))
	var lastErr error
	err := wait.ExponentialBackoffWithContext(ctx, c.backoff, func(ctx context.Context) (bool, error) {
		created, err := c.ensure(ctx)
		if err != nil {
			if lastErr == nil || lastErr.Error() != err.Error() {
				logger.Info("Cannot create the default SchedulingProfile yet; retrying", "reason", err.Error())
			}
			lastErr = err
			return false, nil
		}
		if created {
			logger.Info("Created the default SchedulingProfile", "schedulerName", c.name)
		} else {
			logger.V(1).Info("The default SchedulingProfile exists; leaving it as it is")
		}
		return true, nil
	})
	if err != nil && ctx.Err() == nil {
		logger.Error(err, "Gave up creating the default SchedulingProfile")
	}
	return nil
}

// ensure creates the profile when it is missing and reports whether it did.
func (c *Creator) ensure(ctx context.Context) (bool, error) {
	existing := &v1alpha1.SchedulingProfile{}
	err := c.client.Get(ctx, client.ObjectKey{Name: c.name}, existing)
	if err == nil {
		return false, nil
	}
	if !apierrors.IsNotFound(err) {
		return false, fmt.Errorf("reading SchedulingProfile %s: %w", c.name, err)
	}
	profile := &v1alpha1.SchedulingProfile{ObjectMeta: metav1.ObjectMeta{
		Name:        c.name,
		Annotations: map[string]string{CreatedByAnnotation: "berth manager --default-profile"},
	}}
	if err := c.client.Create(ctx, profile); err != nil {
		if apierrors.IsAlreadyExists(err) {
			return false, nil
		}
		return false, fmt.Errorf("creating SchedulingProfile %s: %w", c.name, err)
	}
	return true, nil
}
