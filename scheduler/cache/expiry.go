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
