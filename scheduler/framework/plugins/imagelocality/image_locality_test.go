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
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestNew(t *testing.T) {
	if _, err := New(context.Background(), []byte(`{"x":1}`), nil); err == nil {
		t.Error("unknown field: want error")
	}
}

func TestNormalizedImageName(t *testing.T) {
	tests := map[string]string{
		"nginx":                        "nginx:latest",
		"nginx:1.25":                   "nginx:1.25",
		"registry:5000/team/app":       "registry:5000/team/app:latest",
		"registry:5000/team/app:v2":    "registry:5000/team/app:v2",
		"gcr.io/x/y@sha256:abc":        "gcr.io/x/y@sha256:abc",
		"docker.io/library/busybox:1":  "docker.io/library/busybox:1",
		"localhost/only-path-no-tag/x": "localhost/only-path-no-tag/x:latest",
	}
	for in, want := range tests {
		if got := NormalizedImageName(in); got != want {
			t.Errorf("NormalizedImageName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestScore(t *testing.T) {
	// Sizes in MiB; the score is 100 * (sum - 23) / (1000*images - 23), sum clamped.
	big := img(3000, "big:latest")
	half := img(500, "half:v1")
	small := img(10, "small:latest")
	tests := []struct {
		name  string
		pod   *v1.Pod
		nodes []*v1.Node
		want  []int64
	}{
		{"no images anywhere", st.Pod("p").Images("big").Obj(), []*v1.Node{node("a"), node("b")}, []int64{0, 0}},
		{"image above the max threshold on every node", st.Pod("p").Images("big").Obj(),
			[]*v1.Node{node("a", big), node("b", big)}, []int64{100, 100}},
		{"image spread over half the nodes", st.Pod("p").Images("big").Obj(),
			[]*v1.Node{node("a", big), node("b")}, // 1500 MiB scaled, clamped to 1000
			[]int64{100, 0}},
		{"spread scales the size", st.Pod("p").Images("half:v1").Obj(),
			[]*v1.Node{node("a", half), node("b", half), node("c"), node("d")}, // 250 MiB
			[]int64{100 * (250 - 23) / (1000 - 23), 100 * (250 - 23) / (1000 - 23), 0, 0}},
		{"below the min threshold", st.Pod("p").Images("small").Obj(), []*v1.Node{node("a", small)}, []int64{0}},
		{"thresholds grow with the image count", st.Pod("p").Images("half:v1").Images("other").Obj(),
			[]*v1.Node{node("a", half)}, []int64{100 * (500 - 23) / (2000 - 23)}},
		{"init containers and image volumes count", st.Pod("p").InitImages("half:v1").Images("x").Volume("v", v1.VolumeSource{Image: &v1.ImageVolumeSource{Reference: "big"}}).Obj(),
			[]*v1.Node{node("a", half, big)}, []int64{100 * (3000 - 23) / (3000 - 23)}},
		{"image used twice counts twice", st.Pod("p").Images("half:v1").Images("half:v1").Obj(),
			[]*v1.Node{node("a", half)}, []int64{100 * (1000 - 23) / (2000 - 23)}},
		{"tag must match", st.Pod("p").Images("half:v2").Obj(), []*v1.Node{node("a", half)}, []int64{0}},
		{"untagged means latest", st.Pod("p").Images("big:latest").Images("small").Obj(),
			[]*v1.Node{node("a", big, small)}, []int64{100 * (2000 - 23) / (2000 - 23)}},
	}
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl, snap := pluginFor(tt.nodes...)
			uncounted := &ImageLocality{handle: snapshotHandle{snapshot: listerOnly{snap}}}
			state := framework.NewCycleState()
			if s := pl.PreScore(ctx, state, tt.pod, nil); !s.IsSuccess() {
				t.Fatalf("PreScore = %v", s)
			}
			for i, n := range tt.nodes {
				ni, err := snap.Get(n.Name)
				if err != nil {
					t.Fatal(err)
				}
				got, s := pl.Score(ctx, state, tt.pod, ni)
				if !s.IsSuccess() || got != tt.want[i] {
					t.Errorf("Score(%s) = %d, %v; want %d", n.Name, got, s, tt.want[i])
				}
				if fallback, _ := pl.Score(ctx, framework.NewCycleState(), tt.pod, ni); fallback != got {
					t.Errorf("Score(%s) without PreScore = %d, want %d", n.Name, fallback, got)
				}
				for _, status := range []*framework.CycleState{state, framework.NewCycleState()} {
					scoreNode, s := pl.NodeScorer(ctx, status, tt.pod)
					if !s.IsSuccess() {
						t.Fatalf("NodeScorer = %v", s)
					}
					if viaScorer, _ := scoreNode(ni); viaScorer != got {
						t.Errorf("NodeScorer's score of %s = %d, want %d", n.Name, viaScorer, got)
					}
				}
				// A snapshot that cannot count images per node gives the same scores.
				if plain, _ := uncounted.Score(ctx, framework.NewCycleState(), tt.pod, ni); plain != got {
					t.Errorf("Score(%s) without image counts = %d, want %d", n.Name, plain, got)
				}
			}
		})
	}
	if pl := (&ImageLocality{}); pl.PreScore(ctx, framework.NewCycleState(), st.Pod("p").Obj(), nil).Code() != framework.Error {
		t.Error("PreScore without a handle: want Error")
	}
	if pl := (&ImageLocality{handle: snapshotHandle{}}); pl.PreScore(ctx, framework.NewCycleState(), st.Pod("p").Obj(), nil).Code() != framework.Error {
		t.Error("PreScore without a snapshot: want Error")
	}
}

func TestPreScoreKeepsOnlyImagesSomeNodeHas(t *testing.T) {
	pl, _ := pluginFor(node("a", img(500, "half:v1")), node("b"))
	state := framework.NewCycleState()
	pod := st.Pod("p").Images("half:v1").Images("nowhere").InitImages("big").Obj()
	if s := pl.PreScore(context.Background(), state, pod, nil); !s.IsSuccess() {
		t.Fatal(s)
	}
	status, err := framework.ReadState[*imageState](state, preScoreKey)
	if err != nil {
		t.Fatal(err)
	}
	if len(status.images) != 3 || len(status.present) != 1 || status.present[0] != "half:v1" {
		t.Errorf("images %v, present %v; want 3 images of which half:v1 present", status.images, status.present)
	}
}

func TestPriority(t *testing.T) {
	tests := []struct {
		sum    int64
		images int
		want   int64
	}{
		{0, 1, 0}, {minThreshold, 1, 0}, {maxContainerThreshold, 1, 100}, {5 * maxContainerThreshold, 1, 100},
		{0, 0, 0}, {maxContainerThreshold, 0, 0},
	}
	for _, tt := range tests {
		if got := priority(tt.sum, tt.images); got != tt.want {
			t.Errorf("priority(%d, %d) = %d, want %d", tt.sum, tt.images, got, tt.want)
		}
	}
}

func BenchmarkScore(b *testing.B) {
	pl, snap := pluginFor(node("a", img(300, "app:v1"), img(800, "sidecar:latest")), node("b"))
	p := st.Pod("p").Images("app:v1").Images("sidecar").Obj()
	ni, _ := snap.Get("a")
	ctx, state := context.Background(), framework.NewCycleState()
	pl.PreScore(ctx, state, p, nil)
	b.ReportAllocs()
	for b.Loop() {
		if got, _ := pl.Score(ctx, state, p, ni); got == 0 {
			b.Fatal("score 0")
		}
	}
}
