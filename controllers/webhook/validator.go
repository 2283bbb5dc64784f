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
