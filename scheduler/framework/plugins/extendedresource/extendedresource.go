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

// Package extendedresource tells which DeviceClass serves an extended
// resource through dynamic resource allocation, as kube-scheduler v1.37
// does for DRAExtendedResource: a class serves the name in its
// spec.extendedResourceName and, always, the implicit
// deviceclass.resource.kubernetes.io/<class name>. When two classes name
// the same extended resource, the one created last serves it (the lower
// name on a tie), so that a migration to a new class takes effect when it
// is created.
//
// It reads the DeviceClass informer when asked, instead of keeping a map
// that event handlers update, so that it cannot drift from the informer the
// allocator reads; classes are few, and only pods that request extended
// resources ask.
package extendedresource

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	resourcelisters "k8s.io/client-go/listers/resource/v1"
)

// IsDRAName reports whether a DeviceClass may serve the resource: an
// extended resource name (fully qualified outside kubernetes.io) or a
// class's implicit name.
func IsDRAName(name v1.ResourceName) bool {
	return isImplicit(name) || isExtended(name)
}

// isImplicit reports whether name is deviceclass.resource.kubernetes.io/<class>.
func isImplicit(name v1.ResourceName) bool {
	return strings.HasPrefix(string(name), resourceapi.ResourceDeviceClassPrefix)
}

// isExtended reports whether name is an extended resource name: qualified
// by a domain outside kubernetes.io and not a quota name.
func isExtended(name v1.ResourceName) bool {
	s := string(name)
	domain, _, ok := strings.Cut(s, "/")
	return ok && domain != "" && !strings.Contains(s, v1.ResourceDefaultNamespacePrefix) &&
		!strings.HasPrefix(s, v1.DefaultResourceRequestsPrefix)
}

// Classes resolves extended resource names to the DeviceClasses serving
// them. A nil *Classes serves nothing.
type Classes struct {
	lister resourcelisters.DeviceClassLister
}

// NewClasses returns a resolver over the DeviceClasses lister reads.
func NewClasses(lister resourcelisters.DeviceClassLister) *Classes {
	return &Classes{lister: lister}
}

// Resolve returns the classes serving those of names that a class serves,
// keyed by name; it returns nil when none is. It lists the classes only when
// a name could be an explicit spec.extendedResourceName.
func (c *Classes) Resolve(names ...v1.ResourceName) (map[v1.ResourceName]*resourceapi.DeviceClass, error) {
	if c == nil {
		return nil, nil
	}
	var out map[v1.ResourceName]*resourceapi.DeviceClass
	set := func(name v1.ResourceName, class *resourceapi.DeviceClass) {
		if out == nil {
			out = make(map[v1.ResourceName]*resourceapi.DeviceClass, len(names))
		}
		out[name] = class
	}
	var explicit []v1.ResourceName
	for _, name := range names {
		switch {
		case isImplicit(name):
			class, err := c.lister.Get(strings.TrimPrefix(string(name), resourceapi.ResourceDeviceClassPrefix))
			switch {
			case apierrors.IsNotFound(err):
			case err != nil:
				return nil, fmt.Errorf("reading the device class of %s: %w", name, err)
			default:
				set(name, class)
			}
		case isExtended(name):
			explicit = append(explicit, name)
		}
	}
	if len(explicit) == 0 {
		return out, nil
	}
	classes, err := c.lister.List(labels.Everything())
	if err != nil {
		return nil, fmt.Errorf("listing device classes: %w", err)
	}
	for _, name := range explicit {
		var best *resourceapi.DeviceClass
		for _, class := range classes {
			if n := class.Spec.ExtendedResourceName; n != nil && v1.ResourceName(*n) == name && preferred(class, best) {
				best = class
			}
		}
		if best != nil {
			set(name, best)
		}
	}
	return out, nil
}

// preferred reports whether class serves an extended resource name rather
// than current: it was created later, or at the same time with a lower name.
func preferred(class, current *resourceapi.DeviceClass) bool {
	if current == nil {
		return true
	}
	a, b := class.CreationTimestamp, current.CreationTimestamp
	if !a.Equal(&b) {
		return b.Before(&a)
	}
	return class.Name < current.Name
}
