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
	"fmt"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
)

// Backoff of waitForAPIServer.
const (
	apiserverFirstRetry = time.Second
	apiserverMaxRetry   = 10 * time.Second
)

// waitForAPIServer returns once the apiserver serves discovery, retrying
// with backoff while it is unreachable or not ready: building the manager
// needs discovery, and a replica started during an apiserver restart would
// otherwise exit and be restarted with the kubelet's growing back-off,
// while kube-scheduler simply waits. Refused credentials end the wait.
func waitForAPIServer(ctx context.Context, cfg *rest.Config, clk clock.Clock, logger logr.Logger) error {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return fmt.Errorf("building the discovery client: %w", err)
	}
	retry := apiserverFirstRetry
	for {
		_, err := dc.ServerGroups()
		switch {
		case err == nil:
			return nil
		case apierrors.IsUnauthorized(err) || apierrors.IsForbidden(err):
			return fmt.Errorf("reading the apiserver's API groups: %w", err)
		}
		logger.Info("Waiting for the apiserver", "error", err.Error(), "retryIn", retry)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-clk.After(retry):
		}
		retry = min(2*retry, apiserverMaxRetry)
	}
}
