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

package berthtest

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/berth-io/berth/api/v1alpha1"
)

// pollInterval is how often the profile helpers read the profile again.
const pollInterval = 10 * time.Millisecond

// WaitForProfileReady waits until the SchedulingProfile's current generation
// is live in the scheduler (Ready=True, activeGeneration = generation) and
// returns it. It fails at once when the profile reports Stalled (an invalid
// spec or a schedulerName conflict), with the controller's message. Without
// a deadline on ctx it gives up after the Env's wait timeout.
func (e *Env) WaitForProfileReady(ctx context.Context, name string) (*v1alpha1.SchedulingProfile, error) {
	ctx, cancel := e.waitContext(ctx)
	defer cancel()
	p := &v1alpha1.SchedulingProfile{}
	for {
		if err := e.Client.Get(ctx, client.ObjectKey{Name: name}, p); err != nil {
			return nil, fmt.Errorf("waiting for SchedulingProfile %s: %w", name, err)
		}
		st := p.Status
		if st.ObservedGeneration == p.Generation {
			if c := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionStalled); c != nil && c.Status == metav1.ConditionTrue {
				return p, fmt.Errorf("SchedulingProfile %s is stalled at generation %d: %s: %s", name, p.Generation, c.Reason, c.Message)
			}
			if meta.IsStatusConditionTrue(st.Conditions, v1alpha1.ConditionReady) && st.ActiveGeneration == p.Generation {
				return p, nil
			}
		}
		select {
		case <-ctx.Done():
			return p, fmt.Errorf("SchedulingProfile %s is not ready (generation %d, observed %d, active %d, conditions %s): %w",
				name, p.Generation, st.ObservedGeneration, st.ActiveGeneration, conditionSummary(st.Conditions), context.Cause(ctx))
		case <-time.After(pollInterval):
		}
	}
}

// conditionSummary renders conditions as Type=Status(Reason) for errors.
func conditionSummary(conditions []metav1.Condition) string {
	out := "["
	for i, c := range conditions {
		if i > 0 {
			out += " "
		}
		out += fmt.Sprintf("%s=%s(%s)", c.Type, c.Status, c.Reason)
	}
	return out + "]"
}

// waitContext applies the Env's wait timeout to a ctx without a deadline.
func (e *Env) waitContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, e.waitTimeout)
}
