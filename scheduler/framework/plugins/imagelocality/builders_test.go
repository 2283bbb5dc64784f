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

package imagelocality

import (
	"context"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/cache"
	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// snapshotHandle is a Handle that only provides a snapshot.
type snapshotHandle struct {
	framework.Handle
	snapshot framework.SharedLister
}

func (h snapshotHandle) SnapshotSharedLister() framework.SharedLister { return h.snapshot }

// listerOnly hides every method of a snapshot but the SharedLister ones.
type listerOnly struct{ framework.SharedLister }

// img is an image a node reports, with its names and size in MiB.
func img(mib int64, names ...string) v1.ContainerImage {
	return v1.ContainerImage{Names: names, SizeBytes: mib * mb}
}

// node returns a node reporting the images.
func node(name string, images ...v1.ContainerImage) *v1.Node {
	n := st.Node(name).Obj()
	n.Status.Images = images
	return n
}

// podBuilder builds a pod's images.
type podBuilder struct{ pod *v1.Pod }

func makePod() *podBuilder { return &podBuilder{pod: st.Pod("p").Obj()} }

func (b *podBuilder) container(image string) *podBuilder {
	b.pod.Spec.Containers = append(b.pod.Spec.Containers, v1.Container{Name: "c", Image: image})
	return b
}

func (b *podBuilder) init(image string) *podBuilder {
	b.pod.Spec.InitContainers = append(b.pod.Spec.InitContainers, v1.Container{Name: "i", Image: image})
	return b
}

func (b *podBuilder) imageVolume(ref string) *podBuilder {
	b.pod.Spec.Volumes = append(b.pod.Spec.Volumes, v1.Volume{Name: "v",
		VolumeSource: v1.VolumeSource{Image: &v1.ImageVolumeSource{Reference: ref}}})
	return b
}

func (b *podBuilder) obj() *v1.Pod { return b.pod }

// pluginFor builds the plugin over a snapshot of the nodes.
func pluginFor(nodes ...*v1.Node) (*ImageLocality, *cache.Snapshot) {
	snap := cache.NewSnapshot(nil, nodes)
	pl, err := New(context.Background(), nil, snapshotHandle{snapshot: snap})
	if err != nil {
		panic(err)
	}
	return pl.(*ImageLocality), snap
}
