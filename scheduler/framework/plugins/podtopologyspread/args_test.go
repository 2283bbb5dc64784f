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

package podtopologyspread

import (
	"context"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/args"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestLoadArgs(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		want    *Args
		wantErr string
	}{
		{name: "nil gives System", raw: "", want: &Args{DefaultingType: SystemDefaulting}},
		{name: "empty object gives System", raw: "{}", want: &Args{DefaultingType: SystemDefaulting}},
		{
			name: "List with constraints",
			raw:  `{"defaultingType":"List","defaultConstraints":[{"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone","whenUnsatisfiable":"DoNotSchedule"}]}`,
			want: listArgs(spread(1, zoneKey, hard)),
		},
		{name: "List without constraints", raw: `{"defaultingType":"List"}`, want: listArgs()},
		{name: "unknown field", raw: `{"defaultingTyp":"List"}`, wantErr: "unknown field"},
		{
			name:    "constraints need List",
			raw:     `{"defaultConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule"}]}`,
			wantErr: "defaultingType: Invalid value",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := args.Load[Args]("plugin "+Name, []byte(tt.raw))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.DefaultingType != tt.want.DefaultingType || len(got.DefaultConstraints) != len(tt.want.DefaultConstraints) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
	if DefaultArgs().DefaultingType != SystemDefaulting {
		t.Errorf("DefaultArgs = %+v", DefaultArgs())
	}
}

func TestValidateArgs(t *testing.T) {
	withSelector := spread(1, hostKey, soft)
	withSelector.LabelSelector = match("a", "b")
	tests := []struct {
		name string
		args *Args
		want []string // each error's field and type, in order
	}{
		{name: "System", args: DefaultArgs()},
		{name: "List with both actions on one key", args: listArgs(spread(1, zoneKey, hard), spread(3, zoneKey, soft))},
		{
			name: "unknown defaulting type",
			args: &Args{DefaultingType: "Sometimes"},
			want: []string{"defaultingType: Unsupported value"},
		},
		{
			name: "System with constraints",
			args: &Args{DefaultingType: SystemDefaulting, DefaultConstraints: []v1.TopologySpreadConstraint{spread(1, zoneKey, hard)}},
			want: []string{"defaultingType: Invalid value"},
		},
		{
			name: "every constraint problem at once",
			args: listArgs(
				spread(0, "", "Maybe"),
				withSelector,
				spread(1, "not a/valid/key", hard),
				spread(2, hostKey, soft),
				spread(1, zoneKey, ""),
			),
			want: []string{
				"defaultConstraints[0].maxSkew: Invalid value",
				"defaultConstraints[0].topologyKey: Required value",
				"defaultConstraints[0].whenUnsatisfiable: Unsupported value",
				"defaultConstraints[1].labelSelector: Forbidden",
				"defaultConstraints[2].topologyKey: Invalid value",
				"defaultConstraints[3]: Duplicate value",
				"defaultConstraints[4].whenUnsatisfiable: Required value",
			},
		},
		{
			name: "wrong kind",
			args: func() *Args { a := DefaultArgs(); a.Kind = "NodeAffinityArgs"; return a }(),
			want: []string{"kind: Invalid value"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := tt.args.Validate(nil)
			if len(errs) != len(tt.want) {
				t.Fatalf("got %d errors, want %d: %v", len(errs), len(tt.want), errs)
			}
			for i, w := range tt.want {
				if !strings.Contains(errs[i].Error(), w) {
					t.Errorf("error %d = %q, want it to contain %q", i, errs[i], w)
				}
			}
		})
	}
}

func TestNew(t *testing.T) {
	ctx := context.Background()
	h := newHandle(t, nil)
	pl, err := New(ctx, nil, h)
	if err != nil {
		t.Fatal(err)
	}
	p := pl.(*PodTopologySpread)
	if !p.systemDefaulted || len(p.defaults) != 2 || p.replicaSets == nil || p.services == nil {
		t.Errorf("System plugin = %+v", p)
	}
	pl, err = New(ctx, []byte(`{"defaultingType":"List"}`), h)
	if err != nil {
		t.Fatal(err)
	}
	if p := pl.(*PodTopologySpread); p.systemDefaulted || len(p.defaults) != 0 || p.services != nil {
		t.Errorf("List plugin without constraints = %+v", p)
	}
	if _, err := New(ctx, []byte(`{"defaultingType":"x"}`), h); err == nil {
		t.Error("invalid args: want error")
	}
	if _, err := New(ctx, nil, nil); err == nil {
		t.Error("nil handle: want error")
	}
	if _, err := New(ctx, nil, &st.Handle{}); err == nil {
		t.Error("defaults without informer factory: want error")
	}
	if _, err := New(ctx, []byte(`{"defaultingType":"List"}`), &st.Handle{}); err != nil {
		t.Errorf("no defaults need no informer factory: %v", err)
	}
}
