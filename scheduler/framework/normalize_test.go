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

package framework

import (
	"slices"
	"testing"
)

func TestNormalizeScores(t *testing.T) {
	tests := []struct {
		name    string
		scores  []int64
		reverse bool
		want    []int64
	}{
		{name: "empty", scores: nil, want: nil},
		{name: "all zero", scores: []int64{0, 0}, want: []int64{0, 0}},
		{name: "all zero, reversed", scores: []int64{0, 0}, reverse: true, want: []int64{100, 100}},
		{name: "scaled to the highest", scores: []int64{1, 2, 4}, want: []int64{25, 50, 100}},
		{name: "scaled and reversed", scores: []int64{1, 2, 4}, reverse: true, want: []int64{75, 50, 0}},
		{name: "rounded down", scores: []int64{1, 3}, want: []int64{33, 100}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list := make(NodeScoreList, len(tt.scores))
			for i, s := range tt.scores {
				list[i] = NodeScore{Name: "n", Score: s}
			}
			NormalizeScores(list, tt.reverse)
			var got []int64
			for _, s := range list {
				got = append(got, s.Score)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("NormalizeScores(%v, %v) = %v, want %v", tt.scores, tt.reverse, got, tt.want)
			}
		})
	}
}
