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

package runtime

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// trivialPlugin passes every node and scores it by its name's length, so a
// benchmark measures the runtime rather than the plugins.
type trivialPlugin struct{ name string }

func (p trivialPlugin) Name() string { return p.name }

func (trivialPlugin) Filter(context.Context, *framework.CycleState, *v1.Pod, *framework.NodeInfo) *framework.Status {
	return nil
}

func (trivialPlugin) Score(_ context.Context, _ *framework.CycleState, _ *v1.Pod, ni *framework.NodeInfo) (int64, *framework.Status) {
	return int64(len(ni.Node().Name)), nil
}

func (trivialPlugin) ScoreExtensions() framework.ScoreExtensions { return nil }

func BenchmarkFindFeasibleAndScore(b *testing.B) {
	plugins := []framework.Plugin{trivialPlugin{"T1"}, trivialPlugin{"T2"}}
	f, err := NewFramework(context.Background(), registryOf(append(basics(), plugins...)...), "bench", nil,
		WithDefaultPlugins(basicsSet(v1alpha1.Plugin{Name: "T1"}, v1alpha1.Plugin{Name: "T2"})))
	if err != nil {
		b.Fatal(err)
	}
	nodes := nodeNames(5000)
	pod := st.Pod("p").Obj()
	ctx := context.Background()
	start := 0
	b.ReportAllocs()
	for b.Loop() {
		state := framework.NewCycleState()
		if _, s, _ := f.RunPreFilterPlugins(ctx, state, pod); !s.IsSuccess() {
			b.Fatal(s)
		}
		feasible, next, _, err := f.FindFeasibleNodes(ctx, state, pod, nodes, start)
		if err != nil {
			b.Fatal(err)
		}
		start = next
		if s := f.RunPreScorePlugins(ctx, state, pod, feasible); !s.IsSuccess() {
			b.Fatal(s)
		}
		scores, s := f.RunScorePlugins(ctx, state, pod, feasible)
		if !s.IsSuccess() {
			b.Fatal(s)
		}
		if _, err := f.SelectHost(scores); err != nil {
			b.Fatal(err)
		}
	}
}
