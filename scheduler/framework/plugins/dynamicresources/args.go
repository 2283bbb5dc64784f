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

package dynamicresources

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/berth-io/berth/scheduler/args"
)

// Upstream's defaults for the args (kube-scheduler v1.37 with its default
// feature gates).
const (
	// DefaultFilterTimeout bounds one node's allocation attempt in Filter.
	DefaultFilterTimeout = 10 * time.Second
	// DefaultBindingTimeout bounds PreBind's wait for devices' binding conditions.
	DefaultBindingTimeout = 600 * time.Second
)

// Args mirrors upstream's DynamicResourcesArgs.
type Args struct {
	metav1.TypeMeta `json:",inline"`
	// FilterTimeout bounds the time the allocator may spend on one node in
	// Filter; zero means no bound. Default 10s.
	FilterTimeout *metav1.Duration `json:"filterTimeout,omitempty"`
	// BindingTimeout bounds how long PreBind waits for the binding
	// conditions of allocated devices, and how long an allocation may wait
	// for them before Filter gives up on it. Default 600s.
	BindingTimeout *metav1.Duration `json:"bindingTimeout,omitempty"`
}

// Default fills the timeouts a profile left unset with upstream's.
func (a *Args) Default() {
	if a.FilterTimeout == nil {
		a.FilterTimeout = &metav1.Duration{Duration: DefaultFilterTimeout}
	}
	if a.BindingTimeout == nil {
		a.BindingTimeout = &metav1.Duration{Duration: DefaultBindingTimeout}
	}
}

// Validate applies upstream's limits (filterTimeout not negative,
// bindingTimeout at least one second) to defaulted args and reports every
// violation, under path.
func (a *Args) Validate(path *field.Path) field.ErrorList {
	errs := args.Kind(path, a.Kind, "DynamicResourcesArgs")
	switch fp := path.Child("filterTimeout"); {
	case a.FilterTimeout == nil:
		errs = append(errs, field.Required(fp, "must be set"))
	case a.FilterTimeout.Duration < 0:
		errs = append(errs, field.Invalid(fp, a.FilterTimeout, "must be zero or positive"))
	}
	switch bp := path.Child("bindingTimeout"); {
	case a.BindingTimeout == nil:
		errs = append(errs, field.Required(bp, "must be set"))
	case a.BindingTimeout.Duration < time.Second:
		errs = append(errs, field.Invalid(bp, a.BindingTimeout, "must be at least 1 second"))
	}
	return errs
}
