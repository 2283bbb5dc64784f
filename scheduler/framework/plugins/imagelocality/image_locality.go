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

// Package imagelocality implements ImageLocality, which prefers nodes that
// already hold the images a pod needs, weighting each image by its size and
// discounting images that most nodes have anyway.
package imagelocality

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/names"
)

// Name is the plugin's registered name.
const Name = names.ImageLocality

// Score thresholds, as upstream: below minThreshold bytes of local images a
// node scores 0; at maxContainerThreshold bytes per image it scores the maximum.
const (
	mb                    int64 = 1024 * 1024
	minThreshold          int64 = 23 * mb
	maxContainerThreshold int64 = 1000 * mb
)

const preScoreKey framework.StateKey = "PreScore" + Name

var (
	errNoHandle   = errors.New("plugin built without a framework handle")
	errNoSnapshot = errors.New("framework handle has no snapshot")
)

// ImageLocality scores nodes by the pod's images they already have.
type ImageLocality struct {
	handle framework.Handle
}

var (
	_ framework.PreScorePlugin   = &ImageLocality{}
	_ framework.CycleScorePlugin = &ImageLocality{}
	_ framework.SignPlugin       = &ImageLocality{}
)

// New is the plugin's factory; ImageLocality takes no args and reads the
// cycle's snapshot through h.
func New(_ context.Context, raw []byte, h framework.Handle) (framework.Plugin, error) {
	if _, err := args.Load[args.None]("plugin "+Name, raw); err != nil {
		return nil, err
	}
	return &ImageLocality{handle: h}, nil
}

// Name returns the plugin's name.
func (*ImageLocality) Name() string { return Name }

// SignPod signs the pod by the images of its containers and init
// containers, normalized as Score looks them up, each once and sorted.
// Image volumes are left out, as upstream leaves them: plugins signing by
// volumes cover them.
func (*ImageLocality) SignPod(_ context.Context, pod *v1.Pod) ([]framework.SignFragment, *framework.Status) {
	images := make([]string, 0, len(pod.Spec.Containers)+len(pod.Spec.InitContainers))
	for _, list := range [][]v1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for i := range list {
			images = append(images, NormalizedImageName(list[i].Image))
		}
	}
	slices.Sort(images)
	return []framework.SignFragment{{Key: framework.ImageNamesSignKey, Value: slices.Compact(images)}}, nil
}

// imageState is the pod's image names, normalized, and the size of the
// cluster, computed once per cycle. present lists the images that some
// node in the snapshot has: only those can add to a node's score, so when
// there are none Score does not look at the node at all.
type imageState struct {
	images     []string
	present    []string
	totalNodes int
}

// imageCounter is implemented by snapshots that know on how many nodes an
// image is (the scheduler cache's snapshot does).
type imageCounter interface {
	// ImageNumNodes returns how many nodes have the normalized image.
	ImageNumNodes(name string) int
}

// Clone returns the state itself: it is never changed after PreScore.
func (s *imageState) Clone() framework.StateData { return s }

// NormalizedImageName gives an untagged image name the implicit ":latest"
// tag, so it matches the names nodes report.
func NormalizedImageName(name string) string {
	if strings.LastIndex(name, ":") <= strings.LastIndex(name, "/") {
		return name + ":latest"
	}
	return name
}

// podImages lists the normalized images of the pod's init containers,
// containers and image volumes, one entry per use.
func podImages(pod *v1.Pod) []string {
	out := make([]string, 0, len(pod.Spec.InitContainers)+len(pod.Spec.Containers))
	for i := range pod.Spec.InitContainers {
		out = append(out, NormalizedImageName(pod.Spec.InitContainers[i].Image))
	}
	for i := range pod.Spec.Containers {
		out = append(out, NormalizedImageName(pod.Spec.Containers[i].Image))
	}
	for i := range pod.Spec.Volumes {
		if img := pod.Spec.Volumes[i].Image; img != nil {
			out = append(out, NormalizedImageName(img.Reference))
		}
	}
	return out
}

func (pl *ImageLocality) newState(pod *v1.Pod) (*imageState, error) {
	if pl.handle == nil {
		return nil, errNoHandle
	}
	lister := pl.handle.SnapshotSharedLister()
	if lister == nil {
		return nil, errNoSnapshot
	}
	nodes, err := lister.NodeInfos().List()
	if err != nil {
		return nil, fmt.Errorf("listing nodes: %w", err)
	}
	st := &imageState{images: podImages(pod), totalNodes: len(nodes)}
	st.present = st.images
	if counter, ok := lister.(imageCounter); ok {
		st.present = nil
		for _, name := range st.images {
			if counter.ImageNumNodes(name) > 0 {
				st.present = append(st.present, name)
			}
		}
	}
	return st, nil
}

// PreScore normalizes the pod's image names and counts the snapshot's nodes.
func (pl *ImageLocality) PreScore(_ context.Context, state *framework.CycleState, pod *v1.Pod, _ []*framework.NodeInfo) *framework.Status {
	s, err := pl.newState(pod)
	if err != nil {
		return framework.AsStatus(err)
	}
	state.Write(preScoreKey, s)
	return nil
}

// Score gives 0 to MaxNodeScore by the size of the pod's images already on
// the node, each scaled by the fraction of nodes that have it.
func (pl *ImageLocality) Score(_ context.Context, state *framework.CycleState, pod *v1.Pod, nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
	s, err := pl.scoreState(state, pod)
	if err != nil {
		return 0, framework.AsStatus(err)
	}
	return priority(localBytes(nodeInfo, s), len(s.images)), nil
}

// NodeScorer scores like Score with the pod's images read once.
func (pl *ImageLocality) NodeScorer(_ context.Context, state *framework.CycleState, pod *v1.Pod) (framework.NodeScorer, *framework.Status) {
	s, err := pl.scoreState(state, pod)
	if err != nil {
		return nil, framework.AsStatus(err)
	}
	return func(nodeInfo *framework.NodeInfo) (int64, *framework.Status) {
		return priority(localBytes(nodeInfo, s), len(s.images)), nil
	}, nil
}

// scoreState returns what PreScore stored or, when PreScore is disabled in
// this profile, computes it now.
func (pl *ImageLocality) scoreState(state *framework.CycleState, pod *v1.Pod) (*imageState, error) {
	if s, err := framework.ReadState[*imageState](state, preScoreKey); err == nil {
		return s, nil
	}
	return pl.newState(pod)
}

// localBytes sums the spread-scaled sizes of the pod's images on the node.
func localBytes(nodeInfo *framework.NodeInfo, s *imageState) int64 {
	if s.totalNodes == 0 {
		return 0
	}
	var sum int64
	for _, name := range s.present {
		if img, ok := nodeInfo.ImageStates[name]; ok {
			spread := float64(img.NumNodes) / float64(s.totalNodes)
			sum += int64(float64(img.Size) * spread)
		}
	}
	return sum
}

// priority maps the local bytes linearly onto [0, MaxNodeScore] between
// minThreshold and maxContainerThreshold per image.
func priority(sum int64, images int) int64 {
	maxThreshold := maxContainerThreshold * int64(images)
	sum = max(sum, minThreshold)
	sum = min(sum, maxThreshold)
	if maxThreshold <= minThreshold {
		return 0
	}
	return framework.MaxNodeScore * (sum - minThreshold) / (maxThreshold - minThreshold)
}

// ScoreExtensions returns nil: scores are already in range.
func (*ImageLocality) ScoreExtensions() framework.ScoreExtensions { return nil }
