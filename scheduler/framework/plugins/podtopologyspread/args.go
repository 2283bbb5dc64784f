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
	"fmt"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/berth-io/berth/scheduler/args"
)

// Defaulting types of Args.DefaultingType, as in kubescheduler.config.k8s.io/v1.
const (
	// SystemDefaulting spreads pods without constraints of their own over
	// hostnames (maxSkew 3) and zones (maxSkew 5), softly.
	SystemDefaulting = "System"
	// ListDefaulting applies Args.DefaultConstraints as given.
	ListDefaulting = "List"
)

// Args are the args of PodTopologySpread, as PodTopologySpreadArgs in
// kubescheduler.config.k8s.io/v1.
type Args struct {
	metav1.TypeMeta `json:",inline"`
	// DefaultConstraints apply to pods that declare no constraints of their
	// own; their selectors come from the pod's Services and controllers, so
	// they must not set labelSelector. Only allowed with DefaultingType List.
	DefaultConstraints []v1.TopologySpreadConstraint `json:"defaultConstraints,omitempty"`
	// DefaultingType is System or List; it defaults to System.
	DefaultingType string `json:"defaultingType,omitempty"`
}

// DefaultArgs returns the args a profile without pluginConfig gets.
func DefaultArgs() *Args {
	a := &Args{}
	a.Default()
	return a
}

// Default sets the System defaulting when none is given.
func (a *Args) Default() {
	if a.DefaultingType == "" {
		a.DefaultingType = SystemDefaulting
	}
}

// Validate reports every problem of defaulted args, under path.
func (a *Args) Validate(path *field.Path) field.ErrorList {
	errs := args.Kind(path, a.Kind, "PodTopologySpreadArgs")
	typePath := path.Child("defaultingType")
	switch a.DefaultingType {
	case ListDefaulting:
	case SystemDefaulting:
		if len(a.DefaultConstraints) > 0 {
			errs = append(errs, field.Invalid(typePath, a.DefaultingType, "when .defaultConstraints are not empty"))
		}
	default:
		errs = append(errs, field.NotSupported(typePath, a.DefaultingType, []string{SystemDefaulting, ListDefaulting}))
	}
	listPath := path.Child("defaultConstraints")
	for i := range a.DefaultConstraints {
		errs = append(errs, validateDefaultConstraint(listPath, a.DefaultConstraints, i)...)
	}
	return errs
}

func validateDefaultConstraint(listPath *field.Path, all []v1.TopologySpreadConstraint, i int) field.ErrorList {
	var errs field.ErrorList
	c := &all[i]
	p := listPath.Index(i)
	if c.MaxSkew <= 0 {
		errs = append(errs, field.Invalid(p.Child("maxSkew"), c.MaxSkew, "not in valid range (0, inf)"))
	}
	if c.TopologyKey == "" {
		errs = append(errs, field.Required(p.Child("topologyKey"), "can not be empty"))
	} else {
		errs = append(errs, metav1validation.ValidateLabelName(c.TopologyKey, p.Child("topologyKey"))...)
	}
	switch c.WhenUnsatisfiable {
	case v1.DoNotSchedule, v1.ScheduleAnyway:
	case "":
		errs = append(errs, field.Required(p.Child("whenUnsatisfiable"), "can not be empty"))
	default:
		errs = append(errs, field.NotSupported(p.Child("whenUnsatisfiable"), c.WhenUnsatisfiable,
			[]string{string(v1.DoNotSchedule), string(v1.ScheduleAnyway)}))
	}
	if c.LabelSelector != nil {
		errs = append(errs, field.Forbidden(p.Child("labelSelector"),
			"constraint must not define a selector, as they deduced for each pod"))
	}
	for j := range all[:i] {
		if all[j].TopologyKey == c.TopologyKey && all[j].WhenUnsatisfiable == c.WhenUnsatisfiable {
			errs = append(errs, field.Duplicate(p, fmt.Sprintf("{%v, %v}", c.TopologyKey, c.WhenUnsatisfiable)))
			break
		}
	}
	return errs
}
