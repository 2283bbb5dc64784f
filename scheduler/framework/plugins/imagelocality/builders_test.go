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

// pluginFor builds the plugin over a snapshot of the nodes.
func pluginFor(nodes ...*v1.Node) (*ImageLocality, *cache.Snapshot) {
	snap := cache.NewSnapshot(nil, nodes)
	pl, err := New(context.Background(), nil, snapshotHandle{snapshot: snap})
	if err != nil {
		panic(err)
	}
	return pl.(*ImageLocality), snap
}
