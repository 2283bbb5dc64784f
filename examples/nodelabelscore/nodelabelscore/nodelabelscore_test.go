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

package nodelabelscore

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

const tier = "example.com/tier"

func TestNew(t *testing.T) {
	tests := []struct {
		name       string
		raw        string
		want       *NodeLabelScore
		wantErr    string   // a fragment of an error that is not about a field
		wantFields []string // the invalid fields, under the args
	}{
		{name: "label only", raw: `{"label":"example.com/tier"}`, want: &NodeLabelScore{label: tier, preferHigher: true}},
		{name: "prefer lower", raw: `{"label":"tier","preferHigher":false}`, want: &NodeLabelScore{label: "tier", preferHigher: false}},
		{name: "no args", raw: ``, wantFields: []string{"label"}},
		{name: "empty label", raw: `{"label":""}`, wantFields: []string{"label"}},
		{name: "not a label key", raw: `{"label":"a/b/c"}`, wantFields: []string{"label"}},
		{name: "unknown field", raw: `{"label":"tier","prefer":"high"}`, wantErr: `json: unknown field "prefer"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := New(context.Background(), []byte(tt.raw), &st.Handle{})
			var invalid *args.InvalidError
			switch {
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("New = %v, want an error containing %q", err, tt.wantErr)
				}
			case tt.wantFields != nil:
				if !errors.As(err, &invalid) {
					t.Fatalf("New = %v, want an *args.InvalidError", err)
				}
				var fields []string
				for _, e := range invalid.Errs {
					fields = append(fields, e.Field)
				}
				if diff := cmp.Diff(tt.wantFields, fields); diff != "" {
					t.Errorf("invalid fields (-want +got):\n%s", diff)
				}
			default:
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(NodeLabelScore{})); diff != "" {
					t.Errorf("plugin (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// scores runs Score on every node, then NormalizeScore, as the framework does.
func scores(t *testing.T, p *NodeLabelScore, nodes ...*v1.Node) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	pod := st.Pod("web").Obj()
	var list framework.NodeScoreList
	for _, ni := range st.NodeInfos(nodes) {
		s, status := p.Score(ctx, framework.NewCycleState(), pod, ni)
		if !status.IsSuccess() {
			t.Fatalf("Score(%s) = %v", ni.Node().Name, status)
		}
		list = append(list, framework.NodeScore{Name: ni.Node().Name, Score: s})
	}
	if status := p.ScoreExtensions().NormalizeScore(ctx, framework.NewCycleState(), pod, list); !status.IsSuccess() {
		t.Fatalf("NormalizeScore = %v", status)
	}
	out := map[string]int64{}
	for _, s := range list {
		out[s.Name] = s.Score
	}
	return out
}

func TestScore(t *testing.T) {
	ranked := []*v1.Node{
		st.Node("low").Label(tier, "1").Obj(),
		st.Node("mid").Label(tier, "3").Obj(),
		st.Node("high").Label(tier, "5").Obj(),
		st.Node("none").Obj(),
		st.Node("word").Label(tier, "gold").Obj(),
	}
	tests := []struct {
		name         string
		preferHigher bool
		nodes        []*v1.Node
		want         map[string]int64
	}{
		{name: "higher first", preferHigher: true, nodes: ranked,
			want: map[string]int64{"low": 1, "mid": 51, "high": 100, "none": 0, "word": 0}},
		{name: "lower first", preferHigher: false, nodes: ranked,
			want: map[string]int64{"low": 100, "mid": 51, "high": 1, "none": 0, "word": 0}},
		{name: "equal values", preferHigher: true,
			nodes: []*v1.Node{st.Node("a").Label(tier, "7").Obj(), st.Node("b").Label(tier, "7").Obj(), st.Node("c").Obj()},
			want:  map[string]int64{"a": 100, "b": 100, "c": 0}},
		{name: "no node has the label", preferHigher: true,
			nodes: []*v1.Node{st.Node("a").Obj(), st.Node("b").Obj()},
			want:  map[string]int64{"a": 0, "b": 0}},
		{name: "the extremes of int64", preferHigher: true,
			nodes: []*v1.Node{st.Node("min").Label(tier, "-9223372036854775808").Obj(), st.Node("max").Label(tier, "9223372036854775807").Obj()},
			want:  map[string]int64{"min": 1, "max": 100}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &NodeLabelScore{label: tier, preferHigher: tt.preferHigher}
			if diff := cmp.Diff(tt.want, scores(t, p, tt.nodes...)); diff != "" {
				t.Errorf("scores (-want +got):\n%s", diff)
			}
		})
	}
}
