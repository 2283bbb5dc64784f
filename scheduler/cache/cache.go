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

// Package cache keeps the scheduler's view of the cluster: nodes, the pods
// bound to them and the pods the scheduler assumed onto them while their
// binding is in flight. Each scheduling cycle reads an incremental Snapshot
// of it.
package cache

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/berth-io/berth/scheduler/framework"
)

// defaultCleanupPeriod is how often Run looks for expired assumed pods.
const defaultCleanupPeriod = time.Second

// Option configures a Cache.
type Option func(*Cache)

// WithClock sets the clock used for assumed-pod deadlines.
func WithClock(c clock.Clock) Option {
	return func(cache *Cache) { cache.clock = c }
}

// WithAssumedPodTTL sets how long an assumed pod whose binding finished may
// wait for the informer to confirm it; 0, the default, means forever.
func WithAssumedPodTTL(d time.Duration) Option {
	return func(cache *Cache) { cache.ttl = d }
}

// WithCleanupPeriod sets how often Run expires assumed pods.
func WithCleanupPeriod(d time.Duration) Option {
	return func(cache *Cache) { cache.period = d }
}

// podState is what the cache knows of one pod.
type podState struct {
	pod *v1.Pod
	// assumed is true until the informer confirms the pod with AddPod.
	assumed bool
	// bindingFinished is set by FinishBinding; only then can the pod expire.
	bindingFinished bool
	// deadline is when an assumed pod expires; zero when it never does.
	deadline time.Time
}

// Cache holds nodes, bound pods and assumed pods. It is safe for concurrent use.
type Cache struct {
	clock  clock.Clock
	ttl    time.Duration
	period time.Duration
	logger logr.Logger

	mu sync.RWMutex
	// generation counts changes; every change stamps the NodeInfo it touched.
	generation int64
	// nodeSetChangedAt is the generation of the last change to the set of
	// nodes or to their zone order.
	nodeSetChangedAt int64
	nodes            map[string]*nodeEntry
	recent           recencyList
	zones            *zoneRing
	images           *imageIndex
	pods             map[types.UID]*podState
	assumed          map[types.UID]struct{}
}

// New returns an empty cache; ctx supplies the logger used by background work.
func New(ctx context.Context, opts ...Option) *Cache {
	c := &Cache{
		clock:   clock.RealClock{},
		period:  defaultCleanupPeriod,
		logger:  klog.FromContext(ctx),
		nodes:   make(map[string]*nodeEntry),
		zones:   newZoneRing(),
		images:  newImageIndex(),
		pods:    make(map[types.UID]*podState),
		assumed: make(map[types.UID]struct{}),
	}
	for _, opt := range opts {
		opt(c)
	}
	return c
}

// touch records a change of e: a new generation, stamped on the NodeInfo,
// and e moved to the head of the recency list.
func (c *Cache) touch(e *nodeEntry) {
	c.generation++
	e.info.Generation = c.generation
	c.recent.touch(e)
}

// entry returns the node's entry, creating a placeholder without a node.
func (c *Cache) entry(name string) *nodeEntry {
	e, ok := c.nodes[name]
	if !ok {
		e = &nodeEntry{name: name, info: framework.NewNodeInfo()}
		c.nodes[name] = e
	}
	return e
}

// dropIfUnused forgets an entry that has neither a node nor pods.
func (c *Cache) dropIfUnused(e *nodeEntry) {
	if e.info.Node() == nil && len(e.info.Pods) == 0 {
		c.recent.remove(e)
		delete(c.nodes, e.name)
	}
}

// AddNode adds the node, or replaces it when known, and returns a copy of its NodeInfo.
func (c *Cache) AddNode(logger logr.Logger, node *v1.Node) *framework.NodeInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.setNode(logger, node)
}

// UpdateNode replaces the node and returns a copy of its NodeInfo; an unknown node is added.
func (c *Cache) UpdateNode(logger logr.Logger, oldNode, newNode *v1.Node) *framework.NodeInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.setNode(logger, newNode)
}

func (c *Cache) setNode(logger logr.Logger, node *v1.Node) *framework.NodeInfo {
	e := c.entry(node.Name)
	c.touch(e)
	c.images.setNode(e.info, node, c.generation)
	e.info.SetNode(node)
	if c.zones.add(node) {
		c.nodeSetChangedAt = c.generation
		logger.V(4).Info("Node placed in zone order", "node", klog.KObj(node))
	}
	return e.info.Clone()
}

// RemoveNode removes the node. Its NodeInfo stays, without a node and out of
// snapshots, while pods whose deletion has not been seen remain on it.
func (c *Cache) RemoveNode(logger logr.Logger, node *v1.Node) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.nodes[node.Name]
	if !ok || e.info.Node() == nil {
		return fmt.Errorf("node %s is not in the cache", node.Name)
	}
	c.touch(e)
	c.images.setNode(e.info, nil, c.generation)
	e.info.RemoveNode()
	c.zones.remove(node.Name)
	c.nodeSetChangedAt = c.generation
	if n := len(e.info.Pods); n > 0 {
		logger.V(4).Info("Node removed while pods remain on it", "node", klog.KObj(node), "pods", n)
	}
	c.dropIfUnused(e)
	return nil
}

func podUID(pod *v1.Pod) (types.UID, error) {
	if pod.UID == "" {
		return "", fmt.Errorf("pod %s/%s has no UID", pod.Namespace, pod.Name)
	}
	return pod.UID, nil
}

// addPod puts pod on the node named in its spec. The caller holds the lock.
func (c *Cache) addPod(logger logr.Logger, pod *v1.Pod, assumed bool) {
	pi, err := framework.NewPodInfo(pod)
	if err != nil {
		// The resources still count; only the unparsable affinity term is lost.
		logger.Error(err, "Pod has an invalid affinity term", "pod", klog.KObj(pod))
	}
	e := c.entry(pod.Spec.NodeName)
	e.info.AddPodInfo(pi)
	c.touch(e)
	c.pods[pod.UID] = &podState{pod: pod, assumed: assumed}
	if assumed {
		c.assumed[pod.UID] = struct{}{}
	} else {
		delete(c.assumed, pod.UID)
	}
}

// removePod takes the cached version of a pod off its node and out of the
// cache. The caller holds the lock.
func (c *Cache) removePod(logger logr.Logger, cached *v1.Pod) error {
	if e, ok := c.nodes[cached.Spec.NodeName]; ok {
		if err := e.info.RemovePod(cached); err != nil {
			return fmt.Errorf("removing pod from the cache: %w", err)
		}
		c.touch(e)
		c.dropIfUnused(e)
	} else {
		logger.Error(nil, "Node of a cached pod is missing from the cache", "pod", klog.KObj(cached), "node", klog.KRef("", cached.Spec.NodeName))
	}
	delete(c.pods, cached.UID)
	delete(c.assumed, cached.UID)
	return nil
}

// AssumePod counts a pod on the node in its spec before the binding is
// confirmed; the pod must not be in the cache yet.
func (c *Cache) AssumePod(logger logr.Logger, pod *v1.Pod) error {
	uid, err := podUID(pod)
	if err != nil {
		return err
	}
	if pod.Spec.NodeName == "" {
		return fmt.Errorf("pod %s/%s has no node to be assumed on", pod.Namespace, pod.Name)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.pods[uid]; ok {
		return fmt.Errorf("pod %s/%s is already in the cache and cannot be assumed", pod.Namespace, pod.Name)
	}
	c.addPod(logger, pod, true)
	return nil
}

// FinishBinding marks the end of an assumed pod's binding; from now on the pod
// expires after the assumed-pod TTL unless the informer confirms it.
func (c *Cache) FinishBinding(logger logr.Logger, pod *v1.Pod) error {
	uid, err := podUID(pod)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	st, ok := c.pods[uid]
	if !ok || !st.assumed {
		return nil
	}
	st.bindingFinished = true
	if c.ttl > 0 {
		st.deadline = c.clock.Now().Add(c.ttl)
	}
	logger.V(5).Info("Binding finished for assumed pod", "pod", klog.KObj(pod))
	return nil
}

// ForgetPod undoes AssumePod. A pod no longer in the cache is ignored; a pod
// that is not assumed, or assumed on another node, is an error.
func (c *Cache) ForgetPod(logger logr.Logger, pod *v1.Pod) error {
	uid, err := podUID(pod)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	st, ok := c.pods[uid]
	if !ok {
		return nil
	}
	if !st.assumed {
		return fmt.Errorf("pod %s/%s is not assumed and cannot be forgotten", pod.Namespace, pod.Name)
	}
	if st.pod.Spec.NodeName != pod.Spec.NodeName {
		return fmt.Errorf("pod %s/%s was assumed on %q, not %q", pod.Namespace, pod.Name, st.pod.Spec.NodeName, pod.Spec.NodeName)
	}
	return c.removePod(logger, st.pod)
}

// AddPod records a pod the informer shows bound. It confirms an assumed pod,
// moving it when the informer shows it on another node.
func (c *Cache) AddPod(logger logr.Logger, pod *v1.Pod) error {
	uid, err := podUID(pod)
	if err != nil {
		return err
	}
	if pod.Spec.NodeName == "" {
		return fmt.Errorf("pod %s/%s is not bound to a node", pod.Namespace, pod.Name)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	st, ok := c.pods[uid]
	switch {
	case !ok:
		c.addPod(logger, pod, false)
		return nil
	case st.assumed:
		if st.pod.Spec.NodeName != pod.Spec.NodeName {
			logger.Info("Pod was bound to another node than the one it was assumed on", "pod", klog.KObj(pod),
				"assumedNode", klog.KRef("", st.pod.Spec.NodeName), "node", klog.KRef("", pod.Spec.NodeName))
		}
		if err := c.removePod(logger, st.pod); err != nil {
			return err
		}
		c.addPod(logger, pod, false)
		return nil
	default:
		return fmt.Errorf("pod %s/%s was already added to the cache", pod.Namespace, pod.Name)
	}
}

// UpdatePod replaces a bound pod. An update that shows the pod on another
// node means the cache missed events; the pod is moved and the mismatch logged.
func (c *Cache) UpdatePod(logger logr.Logger, oldPod, newPod *v1.Pod) error {
	uid, err := podUID(oldPod)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	st, ok := c.pods[uid]
	if !ok {
		return fmt.Errorf("pod %s/%s is not in the cache and cannot be updated", oldPod.Namespace, oldPod.Name)
	}
	if st.assumed {
		return fmt.Errorf("pod %s/%s is assumed and must be added before it is updated", oldPod.Namespace, oldPod.Name)
	}
	if newPod.Spec.NodeName == "" {
		return fmt.Errorf("pod %s/%s update has no node", newPod.Namespace, newPod.Name)
	}
	if st.pod.Spec.NodeName != newPod.Spec.NodeName {
		logger.Error(nil, "Pod update moved it to another node; the cache missed events", "pod", klog.KObj(newPod),
			"cachedNode", klog.KRef("", st.pod.Spec.NodeName), "node", klog.KRef("", newPod.Spec.NodeName))
	}
	if err := c.removePod(logger, st.pod); err != nil {
		return err
	}
	c.addPod(logger, newPod, false)
	return nil
}

// RemovePod removes a pod. A pod that was only assumed is removed as well (its
// binding will never be confirmed); an unknown pod is an error.
func (c *Cache) RemovePod(logger logr.Logger, pod *v1.Pod) error {
	uid, err := podUID(pod)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	st, ok := c.pods[uid]
	if !ok {
		return fmt.Errorf("pod %s/%s is not in the cache and cannot be removed", pod.Namespace, pod.Name)
	}
	if st.assumed {
		logger.V(2).Info("Removing a pod that was only assumed", "pod", klog.KObj(pod), "node", klog.KRef("", st.pod.Spec.NodeName))
	} else if pod.Spec.NodeName != "" && pod.Spec.NodeName != st.pod.Spec.NodeName {
		logger.Error(nil, "Removed pod is cached on another node; the cache missed events", "pod", klog.KObj(pod),
			"cachedNode", klog.KRef("", st.pod.Spec.NodeName), "node", klog.KRef("", pod.Spec.NodeName))
	}
	return c.removePod(logger, st.pod)
}

// IsAssumedPod reports whether the pod is assumed and not yet confirmed.
func (c *Cache) IsAssumedPod(pod *v1.Pod) (bool, error) {
	uid, err := podUID(pod)
	if err != nil {
		return false, err
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	_, ok := c.assumed[uid]
	return ok, nil
}

// GetPod returns the cached version of the pod, which may sit on a removed node.
func (c *Cache) GetPod(pod *v1.Pod) (*v1.Pod, error) {
	uid, err := podUID(pod)
	if err != nil {
		return nil, err
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	st, ok := c.pods[uid]
	if !ok {
		return nil, fmt.Errorf("pod %s/%s is not in the cache", pod.Namespace, pod.Name)
	}
	return st.pod, nil
}

// NodeOf returns the node the cache holds the pod on, assumed or bound,
// or "" when it does not hold the pod. Unlike GetPod it builds no error
// for a pod it does not hold, which a gang's Permit asks about for every
// member not yet placed.
func (c *Cache) NodeOf(pod *v1.Pod) string {
	if pod.UID == "" {
		return ""
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	if st, ok := c.pods[pod.UID]; ok {
		return st.pod.Spec.NodeName
	}
	return ""
}

// NodeCount returns the number of NodeInfos, placeholders for unknown or removed nodes included.
func (c *Cache) NodeCount() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.nodes)
}

// Sizes returns the number of NodeInfos (placeholders included), of pods
// (assumed ones included) and of assumed pods.
func (c *Cache) Sizes() (nodes, pods, assumed int) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.nodes), len(c.pods), len(c.assumed)
}

// PodCount returns the number of pods, assumed ones included.
func (c *Cache) PodCount() (int, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.pods), nil
}
