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
	v1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/node/topology"
)

// zoneRing keeps node names grouped by zone (region and zone labels) so that a
// listing can take one node from each zone in turn: consecutive nodes of the
// listing then sit in different zones whenever the cluster has more than one.
// It is not safe for concurrent use; the cache's mutex guards it.
type zoneRing struct {
	// members maps a zone key to its node names in insertion order.
	members map[string][]string
	// zones lists the zone keys in the order they first appeared.
	zones []string
	// zoneOf remembers each node's zone key, so moves and removals need no node object.
	zoneOf map[string]string
}

func newZoneRing() *zoneRing {
	return &zoneRing{members: make(map[string][]string), zoneOf: make(map[string]string)}
}

// len is the number of nodes in the ring.
func (r *zoneRing) len() int { return len(r.zoneOf) }

// add places the node in its zone, or moves it when its zone changed. It
// reports whether the ring changed.
func (r *zoneRing) add(node *v1.Node) bool {
	zone := topology.GetZoneKey(node)
	if current, ok := r.zoneOf[node.Name]; ok {
		if current == zone {
			return false
		}
		r.remove(node.Name)
	}
	if _, ok := r.members[zone]; !ok {
		r.zones = append(r.zones, zone)
	}
	r.members[zone] = append(r.members[zone], node.Name)
	r.zoneOf[node.Name] = zone
	return true
}

// remove takes the node out of the ring, if it is there.
func (r *zoneRing) remove(name string) {
	zone, ok := r.zoneOf[name]
	if !ok {
		return
	}
	delete(r.zoneOf, name)
	names := r.members[zone]
	for i, n := range names {
		if n == name {
			names = append(names[:i], names[i+1:]...)
			break
		}
	}
	if len(names) > 0 {
		r.members[zone] = names
		return
	}
	delete(r.members, zone)
	for i, z := range r.zones {
		if z == zone {
			r.zones = append(r.zones[:i], r.zones[i+1:]...)
			break
		}
	}
}

// order lists every node name, round robin over the zones: the first node of
// each zone, then the second of each zone that still has one, and so on.
func (r *zoneRing) order() []string {
	out := make([]string, 0, r.len())
	for depth := 0; ; depth++ {
		taken := false
		for _, zone := range r.zones {
			if names := r.members[zone]; depth < len(names) {
				out = append(out, names[depth])
				taken = true
			}
		}
		if !taken {
			return out
		}
	}
}
