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
	"github.com/berth-io/berth/scheduler/usage"
)

// UsageBasis says what a plugin reading usage takes a node's use to be.
type UsageBasis string

const (
	// UsageFromSample is the node's sample plus the estimates of the pods
	// the sample does not show yet.
	UsageFromSample UsageBasis = "sample"
	// UsageFromPods is, for a node without a sample the plugin acts on, the
	// estimates of every pod on the node.
	UsageFromPods UsageBasis = "pods"
	// UsageNotJudged is for a node without a sample the plugin acts on,
	// which it then lets through without judging its use.
	UsageNotJudged UsageBasis = "none"
)

// UsageEstimate is what a plugin reading usage adds to one node's sample,
// before the pod it schedules.
type UsageEstimate struct {
	// Basis says what the estimate is added to, or stands for.
	Basis UsageBasis
	// Pods counts the pods estimated: those the sample does not show yet,
	// or every pod on the node with UsageFromPods.
	Pods int
	// MilliCPU is the CPU estimated for them, in millicores.
	MilliCPU float64
	// Memory is the memory estimated for them, in bytes; 0 for a plugin
	// that reads CPU only.
	Memory float64
}

// UsageEstimator is implemented by plugins reading usage that estimate the
// pods a node's sample does not show yet, so that berth explain can show
// what they see of each node.
type UsageEstimator interface {
	UsageReader
	// EstimateUsage returns what the plugin adds to the node's sample in
	// view for the pods the sample does not show yet, as its Filter or
	// Score would; view may be nil.
	EstimateUsage(view usage.View, nodeInfo *NodeInfo) UsageEstimate
}
