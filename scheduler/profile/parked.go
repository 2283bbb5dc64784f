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

package profile

import (
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Parked holds pending pods whose schedulerName no live profile serves. They
// wait here, out of the scheduling queue, until a profile for their name
// appears.
type Parked struct {
	mu              sync.Mutex
	bySchedulerName map[string]map[types.UID]*v1.Pod
	count           int
}

// NewParked returns an empty Parked set.
func NewParked() *Parked {
	return &Parked{bySchedulerName: make(map[string]map[types.UID]*v1.Pod)}
}

// Put adds or replaces the pod.
func (p *Parked) Put(pod *v1.Pod) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pods := p.bySchedulerName[pod.Spec.SchedulerName]
	if pods == nil {
		pods = make(map[types.UID]*v1.Pod)
		p.bySchedulerName[pod.Spec.SchedulerName] = pods
	}
	if _, ok := pods[pod.UID]; !ok {
		p.count++
	}
	pods[pod.UID] = pod
}

// Remove drops the pod, whichever schedulerName it was parked under, and
// reports whether it was there.
func (p *Parked) Remove(pod *v1.Pod) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.removeLocked(pod.Spec.SchedulerName, pod.UID) {
		return true
	}
	for name := range p.bySchedulerName {
		if p.removeLocked(name, pod.UID) {
			return true
		}
	}
	return false
}

func (p *Parked) removeLocked(schedulerName string, uid types.UID) bool {
	pods := p.bySchedulerName[schedulerName]
	if _, ok := pods[uid]; !ok {
		return false
	}
	delete(pods, uid)
	p.count--
	if len(pods) == 0 {
		delete(p.bySchedulerName, schedulerName)
	}
	return true
}

// Take removes and returns every pod parked under schedulerName.
func (p *Parked) Take(schedulerName string) []*v1.Pod {
	p.mu.Lock()
	defer p.mu.Unlock()
	pods := p.bySchedulerName[schedulerName]
	delete(p.bySchedulerName, schedulerName)
	out := make([]*v1.Pod, 0, len(pods))
	for _, pod := range pods {
		out = append(out, pod)
	}
	p.count -= len(out)
	return out
}

// Has reports whether the pod is parked.
func (p *Parked) Has(pod *v1.Pod) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, pods := range p.bySchedulerName {
		if _, ok := pods[pod.UID]; ok {
			return true
		}
	}
	return false
}

// Len returns the number of parked pods.
func (p *Parked) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.count
}
