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

package cache

import (
	"context"
	"time"

	"k8s.io/klog/v2"
)

// Run expires assumed pods whose binding finished more than the assumed-pod
// TTL ago, until ctx is done. Without a TTL it returns at once.
func (c *Cache) Run(ctx context.Context) {
	if c.ttl <= 0 {
		return
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.clock.After(c.period):
			c.expireAssumedPods(c.clock.Now())
		}
	}
}

// expireAssumedPods removes the assumed pods whose deadline is before now.
func (c *Cache) expireAssumedPods(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for uid := range c.assumed {
		st := c.pods[uid]
		if st == nil || !st.bindingFinished || st.deadline.IsZero() || !now.After(st.deadline) {
			continue
		}
		c.logger.Info("Assumed pod expired before the informer confirmed its binding", "pod", klog.KObj(st.pod), "node", klog.KRef("", st.pod.Spec.NodeName))
		if err := c.removePod(c.logger, st.pod); err != nil {
			c.logger.Error(err, "Could not expire assumed pod", "pod", klog.KObj(st.pod))
		}
	}
}
