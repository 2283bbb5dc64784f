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

	"github.com/berth-io/berth/scheduler/framework"
)

// imageIndex counts, for every image name, the nodes that report it. The
// summaries it holds are shared by the cache's NodeInfos, so a NodeInfo always
// shows the current cluster-wide count.
type imageIndex struct {
	summaries map[string]*framework.ImageStateSummary
	// changedAt is the cache generation of the last change of any count.
	changedAt int64
}

func newImageIndex() *imageIndex {
	return &imageIndex{summaries: make(map[string]*framework.ImageStateSummary)}
}

// imageSizes returns the node's image names with their sizes; an image
// reported twice keeps its first size.
func imageSizes(node *v1.Node) map[string]int64 {
	if node == nil || len(node.Status.Images) == 0 {
		return nil
	}
	out := make(map[string]int64, len(node.Status.Images))
	for _, img := range node.Status.Images {
		for _, name := range img.Names {
			if _, seen := out[name]; !seen {
				out[name] = img.SizeBytes
			}
		}
	}
	return out
}

// setNode replaces what ni records about images with what node reports (nil
// node: no images) and updates the counts; gen stamps a real change. An
// image keeps the size first reported for it, as upstream.
func (x *imageIndex) setNode(ni *framework.NodeInfo, node *v1.Node, gen int64) {
	sizes := imageSizes(node)
	for name := range ni.ImageStates {
		if _, keep := sizes[name]; keep {
			continue
		}
		delete(ni.ImageStates, name)
		s := x.summaries[name]
		if s == nil {
			continue
		}
		s.NumNodes--
		if s.NumNodes <= 0 {
			delete(x.summaries, name)
		}
		x.changedAt = gen
	}
	for name, size := range sizes {
		s := x.summaries[name]
		if s == nil {
			s = &framework.ImageStateSummary{Size: size}
			x.summaries[name] = s
		}
		if _, had := ni.ImageStates[name]; !had {
			s.NumNodes++
			ni.ImageStates[name] = s
			x.changedAt = gen
		}
	}
}
