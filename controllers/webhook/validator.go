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

// Package webhook validates SchedulingProfiles and PluginWeights at admission
// time, rejecting what the CRD schema cannot: unknown plugins, plugin args
// that do not decode or validate, plugins enabled at an extension point they
// do not implement, and weights on plugins that do not score. The checks
// themselves live in internal/validate, which `berth validate` runs too, so
// that the webhook and the offline check can never disagree.
package webhook

import (
	"github.com/berth-io/berth/internal/validate"
	"github.com/berth-io/berth/scheduler/framework/runtime"
)

// Validator is the webhook's checks: validate.Validator, whose Admit both
// the webhook and `berth validate` call.
type Validator = validate.Validator

// NewValidator returns a Validator that compiles profiles against registry,
// which should be the registry the scheduler itself uses.
func NewValidator(registry runtime.Registry) *Validator {
	return validate.NewValidator(registry)
}
