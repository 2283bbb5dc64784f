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

package interpodaffinity

import (
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-io/berth/scheduler/framework"
)

// indexedNodes returns n NodeInfos named n0, n1, ...
func indexedNodes(n int) []*framework.NodeInfo {
	out := make([]*framework.NodeInfo, n)
	for i := range out {
		out[i] = framework.NewNodeInfo()
		out[i].SetNode(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("n%d", i)}})
	}
	return out
}

func TestNodeIndexPosition(t *testing.T) {
	nodes := indexedNodes(3)
	idx := newNodeIndex(nodes)
	// A later list with the same names: new NodeInfos, placed or not by a
	// snapshot, at the right position or a stale one.
	later := indexedNodes(4)
	tests := []struct {
		name  string
		ni    *framework.NodeInfo
		place int
		want  int32
	}{
		{name: "a NodeInfo of the indexed list", ni: nodes[1], place: -1, want: 1},
		{name: "a later NodeInfo placed by a snapshot", ni: later[2], place: 2, want: 2},
		{name: "a later NodeInfo placed nowhere", ni: later[0], place: -1, want: 0},
		{name: "a later NodeInfo placed elsewhere", ni: later[1], place: 0, want: 1},
		{name: "a placement past the index", ni: later[2], place: 7, want: 2},
		{name: "a node the index lacks", ni: later[3], place: 3, want: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.place >= 0 {
				tt.ni.SetSnapshotIndex(tt.place)
			}
			if got := idx.position(tt.ni, tt.ni.Node()); got != tt.want {
				t.Errorf("position = %d, want %d", got, tt.want)
			}
		})
	}
}
