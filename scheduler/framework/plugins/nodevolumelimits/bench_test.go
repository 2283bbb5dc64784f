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

package nodevolumelimits

import (
	"context"
	"strconv"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// BenchmarkFilter filters a pod with one CSI claim against 5,000 nodes,
// each with an ebs limit, ten pods of which two mount CSI claims, and one
// VolumeAttachment.
func BenchmarkFilter(b *testing.B) {
	const nodes, podsPerNode, claimPods = 5000, 10, 2
	objs := []runtime.Object{csiPV("pv-new", ebs, "vol-new"), claim("new", "pv-new", "")}
	infos := make([]*framework.NodeInfo, 0, nodes)
	for n := range nodes {
		name := "node-" + strconv.Itoa(n)
		objs = append(objs, csiNode(name, limit{ebs, 39}))
		var pods []*v1.Pod
		for p := range podsPerNode {
			pb := st.Pod(name + "-p" + strconv.Itoa(p)).NodeName(name).EmptyDir("scratch")
			if p < claimPods {
				c := name + "-c" + strconv.Itoa(p)
				objs = append(objs, csiPV("pv-"+c, ebs, "vol-"+c), claim(c, "pv-"+c, ""))
				pb.PVC(c)
			}
			pods = append(pods, pb.Obj())
		}
		objs = append(objs, csiPV("pv-att-"+name, ebs, "vol-att-"+name), attachment("va-"+name, name, ebs, "pv-att-"+name))
		infos = append(infos, st.NodeInfo(st.Node(name).Obj(), pods...))
	}
	pl := newPlugin(b, objs...)
	pod := st.Pod("p").PVC("new").Obj()
	ctx := context.Background()
	state := framework.NewCycleState()
	if _, status := pl.PreFilter(ctx, state, pod, nil); !status.IsSuccess() {
		b.Fatal(status)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, ni := range infos {
			if status := pl.Filter(ctx, state, pod, ni); !status.IsSuccess() {
				b.Fatal(status)
			}
		}
	}
}
