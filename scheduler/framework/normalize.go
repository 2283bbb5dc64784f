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

// NormalizeScores scales scores in place so that the highest becomes
// MaxNodeScore and the others keep their proportion to it. With reverse,
// the scale is turned over: the highest becomes 0 and a score of 0 becomes
// MaxNodeScore. When every score is 0 they stay 0, or, with reverse, all
// become MaxNodeScore.
func NormalizeScores(scores NodeScoreList, reverse bool) {
	var highest int64
	for i := range scores {
		highest = max(highest, scores[i].Score)
	}
	for i := range scores {
		s := int64(0)
		if highest > 0 {
			s = MaxNodeScore * scores[i].Score / highest
		}
		if reverse {
			s = MaxNodeScore - s
		}
		scores[i].Score = s
	}
}
