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

package convert

import (
	"encoding/json"

	"github.com/berth-io/berth/api/v1alpha1"
)

// The upstream group, version and kind convert reads.
const (
	upstreamAPIVersion = "kubescheduler.config.k8s.io/v1"
	upstreamKind       = "KubeSchedulerConfiguration"
)

// schedulerConfiguration is the part of upstream's KubeSchedulerConfiguration
// (kubescheduler.config.k8s.io/v1) that convert reads. Every upstream field
// is listed, so strict decoding rejects only real typos; fields that belong
// to the manager are kept raw, since convert only warns about them.
type schedulerConfiguration struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`

	Parallelism               *int32          `json:"parallelism,omitempty"`
	LeaderElection            json.RawMessage `json:"leaderElection,omitempty"`
	ClientConnection          json.RawMessage `json:"clientConnection,omitempty"`
	EnableProfiling           *bool           `json:"enableProfiling,omitempty"`
	EnableContentionProfiling *bool           `json:"enableContentionProfiling,omitempty"`
	PercentageOfNodesToScore  *int32          `json:"percentageOfNodesToScore,omitempty"`
	PodInitialBackoffSeconds  *int64          `json:"podInitialBackoffSeconds,omitempty"`
	PodMaxBackoffSeconds      *int64          `json:"podMaxBackoffSeconds,omitempty"`
	Profiles                  []profile       `json:"profiles,omitempty"`
	Extenders                 []extender      `json:"extenders,omitempty"`
	DelayCacheUntilActive     bool            `json:"delayCacheUntilActive,omitempty"`
}

// profile is upstream's KubeSchedulerProfile.
type profile struct {
	SchedulerName            *string                 `json:"schedulerName,omitempty"`
	PercentageOfNodesToScore *int32                  `json:"percentageOfNodesToScore,omitempty"`
	Plugins                  *upstreamPlugins        `json:"plugins,omitempty"`
	PluginConfig             []v1alpha1.PluginConfig `json:"pluginConfig,omitempty"`
}

// upstreamPlugins is upstream's Plugins, whose extension points Berth's share.
type upstreamPlugins struct {
	v1alpha1.Plugins `json:",inline"`
}

// extender is upstream's Extender: Berth's shape plus the TLS file paths,
// which a cluster-scoped object cannot carry.
type extender struct {
	v1alpha1.Extender `json:",inline"`

	// TLSConfig shadows the embedded field to read the file paths too.
	TLSConfig *extenderTLSConfig `json:"tlsConfig,omitempty"`
}

// extenderTLSConfig is upstream's ExtenderTLSConfig.
type extenderTLSConfig struct {
	v1alpha1.ExtenderTLSConfig `json:",inline"`

	CertFile string `json:"certFile,omitempty"`
	KeyFile  string `json:"keyFile,omitempty"`
	CAFile   string `json:"caFile,omitempty"`
}

// profileDocument is one SchedulingProfile as convert writes it: no status,
// no server-set metadata.
type profileDocument struct {
	APIVersion string                         `json:"apiVersion"`
	Kind       string                         `json:"kind"`
	Metadata   documentMetadata               `json:"metadata"`
	Spec       v1alpha1.SchedulingProfileSpec `json:"spec"`
}

// documentMetadata is the metadata convert sets.
type documentMetadata struct {
	Name string `json:"name"`
}
