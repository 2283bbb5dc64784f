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
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/berth-io/berth/api/v1alpha1"
)

// Profile is a change to the default scheduler profile that a scenario can
// be played under on both schedulers: the same plugin arguments in
// kube-scheduler's configuration and in Berth's SchedulingProfile.
type Profile struct {
	// Name names the profile in test names and reports.
	Name string
	// PluginConfig holds plugin arguments, by plugin, in the shape both
	// kubescheduler.config.k8s.io/v1 and SchedulingProfile take them.
	PluginConfig []PluginArgs
}

// PluginArgs is one plugin's arguments.
type PluginArgs struct {
	// Name is the plugin's name.
	Name string `json:"name"`
	// Args are its arguments as their JSON or YAML fields.
	Args map[string]any `json:"args"`
}

// SigningProfile is the default profile with PodTopologySpread's defaulting
// type List and no default constraints. kube-scheduler's default system
// constraints make PodTopologySpread refuse to sign every pod, so under the
// default profile opportunistic batching never reuses a search; under this
// one a pod without spread constraints or pod (anti-)affinity is signed,
// and consecutive pods of one signature are batched.
func SigningProfile() Profile {
	return Profile{
		Name: "signing",
		PluginConfig: []PluginArgs{{
			Name: "PodTopologySpread",
			Args: map[string]any{"defaultingType": "List"},
		}},
	}
}

// BerthSpec returns the SchedulingProfile spec that plays p on Berth, with
// opportunistic batching as batching says.
func (p Profile) BerthSpec(batching bool) (*v1alpha1.SchedulingProfileSpec, error) {
	mode := v1alpha1.BatchingDisabled
	if batching {
		mode = v1alpha1.BatchingEnabled
	}
	spec := &v1alpha1.SchedulingProfileSpec{OpportunisticBatching: &mode}
	for _, pc := range p.PluginConfig {
		raw, err := json.Marshal(pc.Args)
		if err != nil {
			return nil, fmt.Errorf("encoding %s's arguments of profile %s: %w", pc.Name, p.Name, err)
		}
		spec.PluginConfig = append(spec.PluginConfig, v1alpha1.PluginConfig{Name: pc.Name, Args: runtime.RawExtension{Raw: raw}})
	}
	return spec, nil
}
