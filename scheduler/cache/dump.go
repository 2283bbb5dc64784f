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
	"fmt"
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/berth-io/berth/scheduler/framework"
)

// Dump is a copy of the cache's contents for debugging and tests.
type Dump struct {
	// Nodes maps node names to copies of their NodeInfos, placeholders without a node included.
	Nodes map[string]*framework.NodeInfo
	// AssumedPods are the pods assumed and not yet confirmed by the informer.
	AssumedPods []AssumedPod
}

// AssumedPod is an assumed pod with the state of its binding.
type AssumedPod struct {
	// Pod is the pod as it was assumed.
	Pod *v1.Pod
	// BindingFinished is true once FinishBinding was called.
	BindingFinished bool
	// Deadline is when the pod expires; zero when it never does.
	Deadline time.Time
}

// Dump copies the cache's nodes and assumed pods. It is expensive; keep it off hot paths.
func (c *Cache) Dump() *Dump {
	c.mu.RLock()
	defer c.mu.RUnlock()
	d := &Dump{Nodes: make(map[string]*framework.NodeInfo, len(c.nodes))}
	for name, e := range c.nodes {
		d.Nodes[name] = e.info.Clone()
	}
	for uid := range c.assumed {
		if st := c.pods[uid]; st != nil {
			d.AssumedPods = append(d.AssumedPods, AssumedPod{Pod: st.pod, BindingFinished: st.bindingFinished, Deadline: st.deadline})
		}
	}
	slices.SortFunc(d.AssumedPods, func(a, b AssumedPod) int {
		return strings.Compare(framework.PodKey(a.Pod), framework.PodKey(b.Pod))
	})
	return d
}

// MismatchError lists how the cache differs from the apiserver's objects.
// Names are node names and pods' namespace/name keys, sorted.
type MismatchError struct {
	// MissingNodes are nodes the apiserver has and the cache lacks.
	MissingNodes []string
	// ExtraNodes are nodes the cache has and the apiserver lacks.
	ExtraNodes []string
	// MissingPods are bound pods the cache lacks.
	MissingPods []string
	// ExtraPods are cached pods the apiserver lacks (or shows unbound while not assumed).
	ExtraPods []string
	// MisplacedPods are pods the cache holds on another node than the apiserver's.
	MisplacedPods []string
}

// Error summarizes the differences.
func (m *MismatchError) Error() string {
	var parts []string
	add := func(what string, names []string) {
		if len(names) > 0 {
			parts = append(parts, fmt.Sprintf("%s: %s", what, strings.Join(names, ", ")))
		}
	}
	add("missing nodes", m.MissingNodes)
	add("extra nodes", m.ExtraNodes)
	add("missing pods", m.MissingPods)
	add("extra pods", m.ExtraPods)
	add("misplaced pods", m.MisplacedPods)
	return "cache differs from the apiserver: " + strings.Join(parts, "; ")
}

func (m *MismatchError) empty() bool {
	return len(m.MissingNodes)+len(m.ExtraNodes)+len(m.MissingPods)+len(m.ExtraPods)+len(m.MisplacedPods) == 0
}

// Compare checks the cache against the apiserver's nodes and pods and returns
// a *MismatchError when they differ. Pods are matched by UID; an assumed pod
// matches its apiserver pod whether or not that one is bound yet.
func Compare(c *Cache, nodes []*v1.Node, pods []*v1.Pod) error {
	d := c.Dump()
	m := &MismatchError{}

	truthNodes := make(map[string]struct{}, len(nodes))
	for _, n := range nodes {
		truthNodes[n.Name] = struct{}{}
		if ni := d.Nodes[n.Name]; ni == nil || ni.Node() == nil {
			m.MissingNodes = append(m.MissingNodes, n.Name)
		}
	}
	for name, ni := range d.Nodes {
		if _, ok := truthNodes[name]; !ok && ni.Node() != nil {
			m.ExtraNodes = append(m.ExtraNodes, name)
		}
	}

	assumed := make(map[types.UID]struct{}, len(d.AssumedPods))
	for _, a := range d.AssumedPods {
		assumed[a.Pod.UID] = struct{}{}
	}
	cached := make(map[types.UID]*v1.Pod)
	for _, ni := range d.Nodes {
		for _, pi := range ni.Pods {
			cached[pi.Pod.UID] = pi.Pod
		}
	}
	truthPods := make(map[types.UID]*v1.Pod, len(pods))
	for _, p := range pods {
		truthPods[p.UID] = p
		got, inCache := cached[p.UID]
		switch {
		case !inCache && p.Spec.NodeName != "":
			m.MissingPods = append(m.MissingPods, framework.PodKey(p))
		case inCache && p.Spec.NodeName != "" && got.Spec.NodeName != p.Spec.NodeName:
			m.MisplacedPods = append(m.MisplacedPods, fmt.Sprintf("%s (cache %s, apiserver %s)", framework.PodKey(p), got.Spec.NodeName, p.Spec.NodeName))
		}
	}
	for uid, p := range cached {
		truth, ok := truthPods[uid]
		_, isAssumed := assumed[uid]
		if !ok || (truth.Spec.NodeName == "" && !isAssumed) {
			m.ExtraPods = append(m.ExtraPods, framework.PodKey(p))
		}
	}

	if m.empty() {
		return nil
	}
	for _, names := range [][]string{m.MissingNodes, m.ExtraNodes, m.MissingPods, m.ExtraPods, m.MisplacedPods} {
		slices.Sort(names)
	}
	return m
}
