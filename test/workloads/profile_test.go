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

package workloads

import (
	"encoding/json"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework/plugins/podtopologyspread"
)

func TestSigningProfileBerthSpec(t *testing.T) {
	tests := []struct {
		name     string
		batching bool
		want     v1alpha1.BatchingMode
	}{
		{name: "batching on", batching: true, want: v1alpha1.BatchingEnabled},
		{name: "batching off", batching: false, want: v1alpha1.BatchingDisabled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec, err := SigningProfile().BerthSpec(tt.batching)
			if err != nil {
				t.Fatalf("BerthSpec: %v", err)
			}
			if spec.OpportunisticBatching == nil || *spec.OpportunisticBatching != tt.want {
				t.Errorf("opportunisticBatching = %v, want %s", spec.OpportunisticBatching, tt.want)
			}
			if len(spec.PluginConfig) != 1 || spec.PluginConfig[0].Name != "PodTopologySpread" {
				t.Fatalf("pluginConfig = %+v, want PodTopologySpread's arguments only", spec.PluginConfig)
			}
			var args podtopologyspread.Args
			if err := json.Unmarshal(spec.PluginConfig[0].Args.Raw, &args); err != nil {
				t.Fatalf("PodTopologySpread's arguments: %v", err)
			}
			args.Default()
			if errs := args.Validate(field.NewPath("args")); len(errs) > 0 {
				t.Errorf("PodTopologySpread's arguments are invalid: %v", errs.ToAggregate())
			}
			if args.DefaultingType != podtopologyspread.ListDefaulting || len(args.DefaultConstraints) > 0 {
				t.Errorf("PodTopologySpread's arguments = %+v, want List defaulting with no default constraints", args)
			}
		})
	}
}
