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

package dynamicresources

import (
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/labels"
	resourcelisters "k8s.io/client-go/listers/resource/v1"
)

// listerSource is the SliceSource of a plugin built without the
// scheduler's: the slices as the informer has them, with the taints their
// drivers published and no DeviceTaintRule applied.
type listerSource struct {
	lister resourcelisters.ResourceSliceLister
}

func (s listerSource) ListPatchedResourceSlices() ([]*resourceapi.ResourceSlice, error) {
	return s.lister.List(labels.Everything())
}
