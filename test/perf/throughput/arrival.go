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

package throughput

import (
	"context"
	"fmt"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/berth-io/berth/internal/localcluster"
)

// warmUpPod names the unmeasured pod that proves the scheduler is up.
const warmUpPod = "bench-warm-up"

// warmUp creates one unmeasured pod and waits until the scheduler binds it.
func warmUp(ctx context.Context, client kubernetes.Interface, proc *localcluster.Process) error {
	pod := makePod(0)
	pod.Name = warmUpPod
	delete(pod.Labels, WorkloadLabel)
	pods := client.CoreV1().Pods(Namespace)
	if _, err := pods.Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating the warm-up pod: %w", err)
	}
	err := wait.PollUntilContextCancel(ctx, 50*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		if proc.Exited() {
			return false, fmt.Errorf("the scheduler exited: %w", proc.Err())
		}
		got, err := pods.Get(ctx, warmUpPod, metav1.GetOptions{})
		return err == nil && got.Spec.NodeName != "", nil
	})
	if err != nil {
		return fmt.Errorf("waiting for the warm-up pod to be bound: %w", err)
	}
	return nil
}

// arrival creates a workload's pods at its rate and records when each
// creation was sent, the start of the pod's creation-to-bind latency.
type arrival struct {
	wg      sync.WaitGroup
	mu      sync.Mutex
	created []time.Time
	err     error
}

// startArrivals creates pod i at i/ArrivalRate seconds from now, each in its
// own goroutine so that a slow call does not delay the next.
func startArrivals(ctx context.Context, client kubernetes.Interface, w Workload) *arrival {
	a := &arrival{created: make([]time.Time, w.Pods)}
	start := time.Now()
	a.wg.Go(func() {
		for i := range w.Pods {
			due := start.Add(time.Duration(i) * time.Second / time.Duration(w.ArrivalRate))
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Until(due)):
			}
			a.wg.Go(func() {
				sent := time.Now()
				_, err := client.CoreV1().Pods(Namespace).Create(ctx, w.pod(i), metav1.CreateOptions{})
				a.mu.Lock()
				defer a.mu.Unlock()
				a.created[i] = sent
				if err != nil && a.err == nil {
					a.err = fmt.Errorf("creating pod %s: %w", podName(i), err)
				}
			})
		}
	})
	return a
}

// wait returns the times the creations were sent, once all have returned.
func (a *arrival) wait() ([]time.Time, error) {
	a.wg.Wait()
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.created, a.err
}
