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

package validate

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/api/operation"
	metavalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/features"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
)

// unknownFieldDetail is the message of a field the CRD does not declare.
const unknownFieldDetail = "unknown field: the CRD does not declare it " +
	"(kubectl apply rejects it; with --validate=false the apiserver drops it)"

// Schema checks objects against Berth's CustomResourceDefinitions as the
// apiserver does on create: it drops undeclared fields (reporting them, as
// kubectl's default strict field validation does), applies the schema's
// defaults, then validates the object's metadata, its OpenAPI schema, its
// list types and its x-kubernetes-validations (CEL) rules.
type Schema struct {
	kinds map[schema.GroupVersionKind]*kindSchema
}

// kindSchema is what the apiserver builds from one served version of a CRD.
type kindSchema struct {
	namespaced bool
	hasStatus  bool
	structural *structuralschema.Structural
	validator  apiservervalidation.SchemaValidator
	cel        *cel.Validator
}

// NewSchema builds a Schema for every served version of crds.
func NewSchema(crds []*apiextensionsv1.CustomResourceDefinition) (*Schema, error) {
	s := &Schema{kinds: make(map[schema.GroupVersionKind]*kindSchema)}
	for _, crd := range crds {
		for i := range crd.Spec.Versions {
			v := &crd.Spec.Versions[i]
			if !v.Served {
				continue
			}
			ks, err := newKindSchema(crd, v)
			if err != nil {
				return nil, fmt.Errorf("CRD %s, version %s: %w", crd.Name, v.Name, err)
			}
			s.kinds[schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}] = ks
		}
	}
	return s, nil
}

func newKindSchema(crd *apiextensionsv1.CustomResourceDefinition, v *apiextensionsv1.CustomResourceDefinitionVersion) (*kindSchema, error) {
	if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
		return nil, errors.New("no schema")
	}
	internal := &apiextensions.CustomResourceValidation{}
	if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(v.Schema, internal, nil); err != nil {
		return nil, fmt.Errorf("converting the schema: %w", err)
	}
	structural, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
	if err != nil {
		return nil, fmt.Errorf("the schema is not structural: %w", err)
	}
	// As the apiserver: defaults are pruned, and the schema is ours to change.
	structural = structural.DeepCopy()
	if err := defaulting.PruneDefaults(structural); err != nil {
		return nil, fmt.Errorf("pruning the defaults: %w", err)
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(internal.OpenAPIV3Schema)
	if err != nil {
		return nil, fmt.Errorf("building the schema validator: %w", err)
	}
	return &kindSchema{
		namespaced: crd.Spec.Scope == apiextensionsv1.NamespaceScoped,
		hasStatus:  v.Subresources != nil && v.Subresources.Status != nil,
		structural: structural,
		validator:  validator,
		cel:        cel.NewValidator(structural, true, celconfig.PerCallLimit),
	}, nil
}

// Kinds lists the kinds the Schema validates, sorted.
func (s *Schema) Kinds() []schema.GroupVersionKind {
	out := make([]schema.GroupVersionKind, 0, len(s.kinds))
	for gvk := range s.kinds {
		out = append(out, gvk)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// Knows reports whether gvk is a served kind of the Schema's CRDs.
func (s *Schema) Knows(gvk schema.GroupVersionKind) bool {
	_, ok := s.kinds[gvk]
	return ok
}

// Namespaced reports whether gvk is a namespaced kind.
func (s *Schema) Namespaced(gvk schema.GroupVersionKind) bool {
	ks, ok := s.kinds[gvk]
	return ok && ks.namespaced
}

// Admit prepares u as the apiserver does on create and returns every way it
// breaks its CRD. It changes u: undeclared fields are dropped, defaults
// applied, status cleared (it is a subresource), generation set to 1, and
// the namespace of a cluster-scoped object cleared.
func (s *Schema) Admit(ctx context.Context, u *unstructured.Unstructured) field.ErrorList {
	gvk := u.GroupVersionKind()
	ks, ok := s.kinds[gvk]
	if !ok {
		return field.ErrorList{field.NotSupported(field.NewPath("kind"), gvk.String(), s.kindNames())}
	}
	errs := ks.decode(u)
	defaulting.Default(u.Object, ks.structural)
	if ks.hasStatus {
		delete(u.Object, "status")
	}
	u.SetGeneration(1)
	if !ks.namespaced {
		u.SetNamespace(metav1.NamespaceNone)
	}
	return append(errs, ks.validate(ctx, u)...)
}

func (s *Schema) kindNames() []string {
	var out []string
	for _, gvk := range s.Kinds() {
		out = append(out, gvk.String())
	}
	return out
}

// decode drops what the schema does not declare, as the apiserver's decoder
// does, and returns each dropped field as an error.
func (ks *kindSchema) decode(u *unstructured.Unstructured) field.ErrorList {
	kind, apiVersion := u.GetKind(), u.GetAPIVersion()
	meta, hasMeta, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(u.Object, schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
	if err != nil {
		return field.ErrorList{field.Invalid(field.NewPath("metadata"), field.OmitValueType{}, err.Error())}
	}
	unknown = append(unknown, pruning.PruneWithOptions(u.Object, ks.structural, true,
		structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
	defaulting.PruneNonNullableNullsWithoutDefaults(u.Object, ks.structural)
	var errs field.ErrorList
	fieldErr, paths := schemaobjectmeta.CoerceWithOptions(nil, u.Object, ks.structural, false,
		schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true})
	if fieldErr != nil {
		errs = append(errs, fieldErr)
	}
	unknown = append(unknown, paths...)
	u.SetKind(kind)
	u.SetAPIVersion(apiVersion)
	if hasMeta {
		if err := schemaobjectmeta.SetObjectMeta(u.Object, meta); err != nil {
			errs = append(errs, field.Invalid(field.NewPath("metadata"), field.OmitValueType{}, err.Error()))
		}
	}
	sort.Strings(unknown)
	for _, p := range unknown {
		errs = append(errs, &field.Error{Type: field.ErrorTypeForbidden, Field: p, BadValue: "", Detail: unknownFieldDetail})
	}
	return errs
}

// validate is the apiserver's validation of a custom resource on create.
func (ks *kindSchema) validate(ctx context.Context, u *unstructured.Unstructured) field.ErrorList {
	var errs field.ErrorList
	meta := &metav1.ObjectMeta{}
	if raw, ok := u.Object["metadata"].(map[string]any); ok {
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(raw, meta); err != nil {
			return field.ErrorList{field.Invalid(field.NewPath("metadata"), field.OmitValueType{}, err.Error())}
		}
	}
	errs = append(errs, metavalidation.ValidateObjectMetaDeclaratively(ctx, operation.Create, meta, nil, ks.namespaced,
		metavalidation.NameIsDNSSubdomain, field.NewPath("metadata"),
		utilfeature.DefaultFeatureGate.Enabled(features.DeclarativeValidationBeta))...)
	errs = append(errs, apiservervalidation.ValidateCustomResource(nil, u.UnstructuredContent(), ks.validator)...)
	errs = append(errs, schemaobjectmeta.Validate(ctx, nil, u.Object, ks.structural, false)...)
	errs = append(errs, listtype.ValidateListSetsAndMaps(nil, ks.structural, u.Object)...)
	if ks.cel == nil {
		return errs
	}
	if blocked := blocksCEL(errs); blocked != nil {
		return append(errs, blocked)
	}
	celErrs, _ := ks.cel.Validate(ctx, nil, ks.structural, u.Object, nil, celconfig.RuntimeCELCostBudget)
	return append(errs, celErrs...)
}

// blocksCEL returns the apiserver's note when errs keep the CEL rules from
// running: an object of the wrong shape or size is not given to them.
func blocksCEL(errs field.ErrorList) *field.Error {
	for _, e := range errs {
		switch e.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return field.Invalid(nil, field.OmitValueType{}, "some validation rules were not checked because the object was invalid; "+
				"correct the existing errors to complete validation")
		}
	}
	return nil
}
