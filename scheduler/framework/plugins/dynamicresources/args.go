package dynamicresources

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Args mirrors upstream's DynamicResourcesArgs.
type Args struct {
	metav1.TypeMeta `json:",inline"`
	// FilterTimeout bounds the time spent per node in Filter upstream; Berth ignores it.
	FilterTimeout *metav1.Duration `json:"filterTimeout,omitempty"`
	// BindingTimeout bounds the wait for device binding upstream; Berth ignores it.
	BindingTimeout *metav1.Duration `json:"bindingTimeout,omitempty"`
}

// ValidateArgs applies upstream's limits (filterTimeout not negative,
// bindingTimeout at least one second) and reports every violation.
func ValidateArgs(a *Args) error {
	var errs field.ErrorList
	if a.Kind != "" && a.Kind != "DynamicResourcesArgs" {
		errs = append(errs, field.Invalid(field.NewPath("kind"), a.Kind, "must be DynamicResourcesArgs"))
	}
	if a.FilterTimeout != nil && a.FilterTimeout.Duration < 0 {
		errs = append(errs, field.Invalid(field.NewPath("filterTimeout"), a.FilterTimeout, "must be zero or positive"))
	}
	if a.BindingTimeout != nil && a.BindingTimeout.Duration < time.Second {
		errs = append(errs, field.Invalid(field.NewPath("bindingTimeout"), a.BindingTimeout, "must be at least 1 second"))
	}
	return errs.ToAggregate()
}
