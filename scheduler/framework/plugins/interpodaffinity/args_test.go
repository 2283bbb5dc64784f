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
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/scheduler/args"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestLoadArgs(t *testing.T) {
	tests := []struct {
		name      string
		raw       string
		want      Args
		wantErrs  []string // fragments of the error; none means valid
		notInErrs []string
	}{
		{name: "no args", raw: ``, want: Args{HardPodAffinityWeight: ptr.To[int32](1)}},
		{name: "null", raw: `null`, want: Args{HardPodAffinityWeight: ptr.To[int32](1)}},
		{name: "empty object defaults the weight", raw: `{}`, want: Args{HardPodAffinityWeight: ptr.To[int32](1)}},
		{name: "explicit zero weight stays zero", raw: `{"hardPodAffinityWeight":0}`, want: Args{HardPodAffinityWeight: ptr.To[int32](0)}},
		{name: "highest weight", raw: `{"hardPodAffinityWeight":100,"ignorePreferredTermsOfExistingPods":true}`,
			want: Args{HardPodAffinityWeight: ptr.To[int32](100), IgnorePreferredTermsOfExistingPods: true}},
		{name: "typed", raw: `{"kind":"InterPodAffinityArgs","apiVersion":"kubescheduler.config.k8s.io/v1","hardPodAffinityWeight":5}`,
			want: Args{HardPodAffinityWeight: ptr.To[int32](5)}},
		{name: "weight above range", raw: `{"hardPodAffinityWeight":101}`,
			wantErrs: []string{"hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]"}},
		{name: "negative weight", raw: `{"hardPodAffinityWeight":-1}`,
			wantErrs: []string{"hardPodAffinityWeight: Invalid value: -1"}},
		{name: "unknown field", raw: `{"hardPodAffinityWeights":1}`, wantErrs: []string{"unknown field"}},
		{name: "every error at once", raw: `{"kind":"NodeAffinityArgs","apiVersion":"example.com/v1","hardPodAffinityWeight":200}`,
			wantErrs: []string{"kind: Invalid value", "apiVersion: Invalid value", "hardPodAffinityWeight: Invalid value: 200"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := args.Load[Args]("plugin "+Name, []byte(tt.raw))
			if len(tt.wantErrs) > 0 {
				if err == nil {
					t.Fatalf("want error, got %+v", got)
				}
				for _, w := range tt.wantErrs {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q lacks %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got.TypeMeta = tt.want.TypeMeta
			if diff := cmp.Diff(tt.want, *got); diff != "" {
				t.Errorf("args (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateArgs(t *testing.T) {
	if errs := DefaultArgs().Validate(nil); len(errs) > 0 {
		t.Errorf("defaults: %v", errs)
	}
	if errs := (&Args{}).Validate(nil); len(errs) != 1 || errs[0].Field != "hardPodAffinityWeight" {
		t.Errorf("undefaulted args: got %v, want hardPodAffinityWeight required", errs)
	}
}

func TestNew(t *testing.T) {
	h := newHandle(t, st.Serial{}, nil)
	if _, err := New(context.Background(), []byte(`{"hardPodAffinityWeight":101}`), h); err == nil {
		t.Error("invalid args: want error")
	}
	if _, err := New(context.Background(), nil, nil); err == nil {
		t.Error("nil handle: want error")
	}
	if _, err := New(context.Background(), nil, &st.Handle{}); err == nil {
		t.Error("handle without snapshot: want error")
	}
	pl := newPlugin(t, `{"hardPodAffinityWeight":7}`, h)
	if pl.Name() != "InterPodAffinity" || pl.hardWeight != 7 || pl.nsLister == nil {
		t.Errorf("plugin %+v", pl)
	}
}
