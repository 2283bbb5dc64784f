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

package volumebinding

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/berth-io/berth/scheduler/args"
)

// Bounds of the utilization shape, as in kubescheduler.config.k8s.io/v1.
const (
	// MaxCustomPriorityScore is the highest score a shape point may give; it
	// is scaled to framework.MaxNodeScore when scoring.
	MaxCustomPriorityScore int32 = 10
	// maxUtilization is the highest utilization a shape point may name, in percent.
	maxUtilization = 100
	// DefaultBindTimeoutSeconds is how long PreBind waits for the claims to bind by default.
	DefaultBindTimeoutSeconds int64 = 600
)

// UtilizationShapePoint is one point of the storage-capacity scoring shape.
type UtilizationShapePoint struct {
	// Utilization is the utilization of a storage class on the node in percent, 0-100.
	Utilization int32 `json:"utilization"`
	// Score is the score at that utilization, 0-10.
	Score int32 `json:"score"`
}

// VolumeBindingArgs are the args of VolumeBinding, as in kubescheduler.config.k8s.io/v1.
type VolumeBindingArgs struct {
	metav1.TypeMeta `json:",inline"`
	// BindTimeoutSeconds is how long PreBind waits for the PV controller to
	// finish binding; 0 gives up after the first check.
	BindTimeoutSeconds *int64 `json:"bindTimeoutSeconds,omitempty"`
	// Shape maps a storage class's utilization on a node to a score; it is
	// sorted by utilization. StorageCapacityScoring is beta and on by default
	// in v1.37, so an empty shape is defaulted and the shape is always checked.
	Shape []UtilizationShapePoint `json:"shape,omitempty"`
}

// defaultShape prefers nodes whose storage is least used, as upstream's
// default shape does since StorageCapacityScoring went beta.
func defaultShape() []UtilizationShapePoint {
	return []UtilizationShapePoint{{Utilization: 0, Score: MaxCustomPriorityScore}, {Utilization: maxUtilization, Score: 0}}
}

// DefaultArgs returns the args a profile without pluginConfig gets.
func DefaultArgs() *VolumeBindingArgs {
	a := &VolumeBindingArgs{}
	a.Default()
	return a
}

// Default fills unset fields as kube-scheduler's v1 defaulting does; an
// explicit bindTimeoutSeconds of 0 stays 0.
func (a *VolumeBindingArgs) Default() {
	if a.BindTimeoutSeconds == nil {
		t := DefaultBindTimeoutSeconds
		a.BindTimeoutSeconds = &t
	}
	if len(a.Shape) == 0 {
		a.Shape = defaultShape()
	}
}

// Validate reports every problem of defaulted args, under path.
func (a *VolumeBindingArgs) Validate(path *field.Path) field.ErrorList {
	errs := args.Kind(path, a.Kind, "VolumeBindingArgs")
	tp := path.Child("bindTimeoutSeconds")
	switch t := a.BindTimeoutSeconds; {
	case t == nil:
		errs = append(errs, field.Required(tp, "must be set"))
	case *t < 0:
		errs = append(errs, field.Invalid(tp, *t, "invalid BindTimeoutSeconds, should not be a negative value"))
	}
	return append(errs, validateShape(a.Shape, path.Child("shape"))...)
}

func validateShape(shape []UtilizationShapePoint, path *field.Path) field.ErrorList {
	if len(shape) == 0 {
		return field.ErrorList{field.Required(path, "at least one point must be specified")}
	}
	var errs field.ErrorList
	for i := 1; i < len(shape); i++ {
		if shape[i].Utilization <= shape[i-1].Utilization {
			errs = append(errs, field.Invalid(path.Index(i).Child("utilization"), shape[i].Utilization, "values must be sorted in increasing order"))
			break
		}
	}
	for i, p := range shape {
		if p.Utilization < 0 || p.Utilization > maxUtilization {
			errs = append(errs, field.Invalid(path.Index(i).Child("utilization"), p.Utilization, fmt.Sprintf("not in valid range [0, %d]", maxUtilization)))
		}
		if p.Score < 0 || p.Score > MaxCustomPriorityScore {
			errs = append(errs, field.Invalid(path.Index(i).Child("score"), p.Score, fmt.Sprintf("not in valid range [0, %d]", MaxCustomPriorityScore)))
		}
	}
	return errs
}
