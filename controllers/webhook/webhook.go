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

package webhook

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/berth-io/berth/api/v1alpha1"
)

// The markers below generate config/webhook/manifests.yaml (`make manifests`).

// +kubebuilder:webhook:path=/validate-scheduling-berth-io-v1alpha1-schedulingprofile,mutating=false,failurePolicy=fail,sideEffects=None,groups=scheduling.berth.io,resources=schedulingprofiles,verbs=create;update,versions=v1alpha1,name=vschedulingprofile.scheduling.berth.io,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/validate-scheduling-berth-io-v1alpha1-pluginweight,mutating=false,failurePolicy=fail,sideEffects=None,groups=scheduling.berth.io,resources=pluginweights,verbs=create;update,versions=v1alpha1,name=vpluginweight.scheduling.berth.io,admissionReviewVersions=v1

// SetupWithManager serves v's checks of SchedulingProfiles and PluginWeights
// from the manager's webhook server.
func SetupWithManager(mgr ctrl.Manager, v *Validator) error {
	if err := ctrl.NewWebhookManagedBy(mgr, &v1alpha1.SchedulingProfile{}).
		WithValidator(profileAdmission{v}).Complete(); err != nil {
		return fmt.Errorf("registering the SchedulingProfile webhook: %w", err)
	}
	if err := ctrl.NewWebhookManagedBy(mgr, &v1alpha1.PluginWeight{}).
		WithValidator(weightAdmission{v}).Complete(); err != nil {
		return fmt.Errorf("registering the PluginWeight webhook: %w", err)
	}
	return nil
}

// profileAdmission admits SchedulingProfiles that compile.
type profileAdmission struct{ v *Validator }

var _ admission.Validator[*v1alpha1.SchedulingProfile] = profileAdmission{}

// ValidateCreate rejects a new profile that does not compile.
func (a profileAdmission) ValidateCreate(ctx context.Context, p *v1alpha1.SchedulingProfile) (admission.Warnings, error) {
	return nil, invalid(v1alpha1.GroupVersion.WithKind("SchedulingProfile").GroupKind(), p.Name, a.v.Admit(ctx, p))
}

// ValidateUpdate rejects an update whose new spec does not compile; the
// previous generation stays live.
func (a profileAdmission) ValidateUpdate(ctx context.Context, _, p *v1alpha1.SchedulingProfile) (admission.Warnings, error) {
	return a.ValidateCreate(ctx, p)
}

// ValidateDelete admits every deletion.
func (profileAdmission) ValidateDelete(context.Context, *v1alpha1.SchedulingProfile) (admission.Warnings, error) {
	return nil, nil
}

// weightAdmission admits PluginWeights on known score plugins.
type weightAdmission struct{ v *Validator }

var _ admission.Validator[*v1alpha1.PluginWeight] = weightAdmission{}

// ValidateCreate rejects a weight on an unknown or non-scoring plugin.
func (a weightAdmission) ValidateCreate(ctx context.Context, w *v1alpha1.PluginWeight) (admission.Warnings, error) {
	return nil, invalid(v1alpha1.GroupVersion.WithKind("PluginWeight").GroupKind(), w.Name, a.v.Admit(ctx, w))
}

// ValidateUpdate applies the create checks to the new object.
func (a weightAdmission) ValidateUpdate(ctx context.Context, _, w *v1alpha1.PluginWeight) (admission.Warnings, error) {
	return a.ValidateCreate(ctx, w)
}

// ValidateDelete admits every deletion.
func (weightAdmission) ValidateDelete(context.Context, *v1alpha1.PluginWeight) (admission.Warnings, error) {
	return nil, nil
}

// invalid turns field errors into the apiserver's Invalid status, which
// kubectl shows with one line per error; no errors is nil.
func invalid(gk schema.GroupKind, name string, errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(gk, name, errs)
}
