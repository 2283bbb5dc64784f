package removepodsviolatingnodetaints

import (
	"context"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	st "github.com/berth-io/berth/scheduler/rebalance/strategies/strategytest"
)

func TestArgs(t *testing.T) {
	for args, wantErr := range map[string]bool{
		`{}`:                             false,
		`{"excludedTaints":["a","b=c"]}`: false,
		`{"includedTaints":["a"],"excludedTaints":["b"]}`: true,
		`{"excludedTaints":["=v"]}`:                       true,
	} {
		if _, err := New([]byte(args)); (err != nil) != wantErr {
			t.Errorf("New(%s) = %v, want error %v", args, err, wantErr)
		}
	}
}

func TestRun(t *testing.T) {
	nodes := []*v1.Node{
		st.Node("hard").Taint("dedicated", "gpu", v1.TaintEffectNoSchedule).Obj(),
		st.Node("soft").Taint("spot", "", v1.TaintEffectPreferNoSchedule).Obj(),
		st.Node("clean").Obj(),
	}
	pods := []*v1.Pod{
		st.Pod("on-hard").Node("hard").Obj(),
		st.Pod("tolerates-hard").Node("hard").Toleration("dedicated").Obj(),
		st.Pod("on-soft").Node("soft").Obj(),
		st.Pod("on-clean").Node("clean").Obj(),
	}
	tests := []struct {
		args string
		want []string
	}{
		{args: `{}`, want: []string{"on-hard"}},
		{args: `{"includePreferNoSchedule":true}`, want: []string{"on-hard", "on-soft"}},
		{args: `{"excludedTaints":["dedicated"]}`, want: nil},
		{args: `{"excludedTaints":["dedicated=cpu"]}`, want: []string{"on-hard"}},
		{args: `{"includedTaints":["dedicated=gpu"]}`, want: []string{"on-hard"}},
		{args: `{"includedTaints":["other"]}`, want: nil},
		{args: `{"namespaces":{"include":["other"]}}`, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			s, err := New([]byte(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			h := st.NewHandle(time.Now(), pods, nodes)
			if err := s.Run(context.Background(), h); err != nil {
				t.Fatal(err)
			}
			slices.Sort(h.Evicted)
			if !slices.Equal(h.Evicted, tt.want) {
				t.Errorf("evicted %v, want %v", h.Evicted, tt.want)
			}
		})
	}
}
