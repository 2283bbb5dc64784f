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

package queuesort

import (
	"context"
	"testing"
	"time"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func queued(b *st.PodBuilder, ts time.Time) *framework.QueuedPodInfo {
	return &framework.QueuedPodInfo{PodInfo: b.Info(), Timestamp: ts}
}

func TestLess(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	t1 := t0.Add(time.Second)
	tests := []struct {
		name string
		a, b *framework.QueuedPodInfo
		want bool
	}{
		{"higher priority first", queued(st.Pod("a").Priority(10), t1), queued(st.Pod("b").Priority(5), t0), true},
		{"lower priority later", queued(st.Pod("a").Priority(5), t0), queued(st.Pod("b").Priority(10), t1), false},
		{"equal priority older first", queued(st.Pod("a").Priority(5), t0), queued(st.Pod("b").Priority(5), t1), true},
		{"equal priority newer later", queued(st.Pod("a").Priority(5), t1), queued(st.Pod("b").Priority(5), t0), false},
		{"nil priority counts as zero", queued(st.Pod("a"), t0), queued(st.Pod("b").Priority(0), t1), true},
		{"negative below nil", queued(st.Pod("a").Priority(-1), t0), queued(st.Pod("b"), t1), false},
		{"same timestamp is not less", queued(st.Pod("a"), t0), queued(st.Pod("b"), t0), false},
	}
	pl := &PrioritySort{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pl.Less(tt.a, tt.b); got != tt.want {
				t.Errorf("Less = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestNew(t *testing.T) {
	if _, err := New(context.Background(), nil, nil); err != nil {
		t.Fatalf("New(nil args): %v", err)
	}
	if _, err := New(context.Background(), []byte(`{"bogus":1}`), nil); err == nil {
		t.Fatal("New with unknown args: want error")
	}
}
