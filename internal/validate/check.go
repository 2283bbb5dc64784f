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
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	apiruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/config/crd"
	"github.com/berth-io/berth/controllers"
	"github.com/berth-io/berth/internal/registries"
	"github.com/berth-io/berth/scheduler/rebalance/strategies"
)

// DefaultNamespace is the namespace given to a namespaced object that names
// none, as kubectl gives it its context's namespace.
const DefaultNamespace = metav1.NamespaceDefault

// Stage says which of Berth's checks found a problem.
type Stage string

// The checks, in the order an object meets them in a cluster.
const (
	// StageInput is reading the object: a document that is not a
	// Kubernetes object, or of an unknown Berth kind or version.
	StageInput Stage = "input"
	// StageSchema is the apiserver's validation against the CRD: OpenAPI
	// schema, undeclared fields, metadata and CEL rules.
	StageSchema Stage = "schema"
	// StageWebhook is Berth's validating webhook (Validator.Admit).
	StageWebhook Stage = "webhook"
	// StageController is what a controller rejects, in the object's status:
	// a RebalancePolicy the rebalancer cannot run, and the checks of
	// several objects together (conflicts, weights that do not apply).
	StageController Stage = "controller"
)

// Origin is where an object was read.
type Origin struct {
	// File is the file's path; "-" is stdin.
	File string `json:"file"`
	// Document is the 1-based index of the object's document in File.
	Document int `json:"document"`
	// Documents is how many documents File holds.
	Documents int `json:"-"`
	// Item is the 1-based index of the object in a List document, else 0.
	Item int `json:"item,omitempty"`
	// Line is the line of File where the document starts.
	Line int `json:"line,omitempty"`
}

// Input is one object to check and where it was read.
type Input struct {
	Origin Origin
	// Object is the object; nil when Err says why the document holds none.
	Object *unstructured.Unstructured
	// Err says why the document is not a Kubernetes object; it is reported as is.
	Err error
}

// Finding is one problem of one object.
type Finding struct {
	Origin    Origin `json:"origin"`
	Kind      string `json:"kind,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name,omitempty"`
	Stage     Stage  `json:"stage"`
	// Field is the path of the field at fault, e.g. spec.plugins.filter.enabled[0].name.
	Field string `json:"field,omitempty"`
	// Message says what is wrong, as the apiserver or the controller would.
	Message string `json:"message"`
}

// Report is the outcome of a Check.
type Report struct {
	// Findings lists every problem, in the order of the inputs.
	Findings []Finding `json:"findings"`
	// Checked counts the objects of Berth's API group and the documents that
	// are not Kubernetes objects.
	Checked int `json:"checked"`
	// Invalid counts the inputs with at least one finding.
	Invalid int `json:"invalid"`
	// Skipped counts the objects of other kinds, which are not checked.
	Skipped int `json:"skipped"`
}

// Checker runs, offline, every check an object of Berth's kinds meets from
// `kubectl apply` to going live: the CRD schema, the validating webhook, and
// the controllers' checks, alone and across the objects checked together.
type Checker struct {
	schema     *Schema
	validator  *Validator
	strategies strategies.Registry
	now        time.Time
}

// NewChecker returns a Checker that compiles profiles with reg's plugins
// and policies with its strategies: the binary's own, which its `berth
// manager` runs, against the CRDs embedded in the binary (config/crd).
func NewChecker(reg registries.Set) (*Checker, error) {
	if err := reg.Check(); err != nil {
		return nil, err
	}
	crds, err := crd.CRDs()
	if err != nil {
		return nil, fmt.Errorf("reading the embedded CRDs: %w", err)
	}
	schema, err := NewSchema(crds)
	if err != nil {
		return nil, fmt.Errorf("building the CRDs' validation: %w", err)
	}
	return &Checker{
		schema:     schema,
		validator:  NewValidator(reg.Plugins),
		strategies: reg.Strategies,
		now:        time.Now().Truncate(time.Second),
	}, nil
}

// checked is one input on its way through the checks.
type checked struct {
	in       Input
	typed    apiruntime.Object
	findings []Finding
}

// Check checks inputs as if they were created together, in their order, in
// a cluster holding no other objects of Berth's kinds. Objects of other
// API groups are counted and skipped. Inputs are changed as the apiserver
// changes them (defaults, pruning).
func (c *Checker) Check(ctx context.Context, inputs []Input) *Report {
	r := &Report{}
	order := make([]*checked, 0, len(inputs)) // every input with findings possible, in order
	objects := make([]*checked, 0, len(inputs))
	for i, in := range inputs {
		ch := &checked{in: in}
		if in.Err != nil {
			r.Checked++
			ch.findings = []Finding{{Origin: in.Origin, Stage: StageInput, Message: in.Err.Error()}}
			order = append(order, ch)
			continue
		}
		if !isBerthGroup(in.Object.GroupVersionKind().Group) {
			r.Skipped++
			continue
		}
		r.Checked++
		order = append(order, ch)
		objects = append(objects, ch)
		c.checkOne(ctx, ch, i)
	}
	c.checkTogether(ctx, objects)
	for _, ch := range order {
		if len(ch.findings) > 0 {
			r.Invalid++
			r.Findings = append(r.Findings, ch.findings...)
		}
	}
	return r
}

// isBerthGroup reports whether an API group is, or looks like a misspelling
// of, Berth's: such objects are errors when their kind is unknown.
func isBerthGroup(group string) bool {
	return group == v1alpha1.GroupVersion.Group || strings.HasSuffix(group, ".berth.io")
}

// add records field errors of one stage.
func (ch *checked) add(stage Stage, errs field.ErrorList) {
	for _, e := range errs {
		path := e.Field
		if path == "<nil>" {
			// An error about the whole object, such as the apiserver's note
			// that CEL rules were not run.
			path = ""
		}
		ch.findings = append(ch.findings, ch.finding(stage, path, e.ErrorBody()))
	}
}

func (ch *checked) finding(stage Stage, fieldPath, msg string) Finding {
	return Finding{
		Origin: ch.in.Origin, Kind: ch.in.Object.GetKind(), Namespace: ch.in.Object.GetNamespace(), Name: ch.in.Object.GetName(),
		Stage: stage, Field: fieldPath, Message: msg,
	}
}

// checkOne runs the checks of one object alone: schema, webhook, and the
// RebalancePolicy controller's validation.
func (c *Checker) checkOne(ctx context.Context, ch *checked, index int) {
	u := ch.in.Object
	gvk := u.GroupVersionKind()
	if !c.schema.Knows(gvk) {
		var known []string
		for _, k := range c.schema.Kinds() {
			known = append(known, k.Kind)
		}
		ch.findings = append(ch.findings, ch.finding(StageInput, "",
			fmt.Sprintf("unknown kind %q of apiVersion %q: Berth serves %s of %s", gvk.Kind, gvk.GroupVersion(), strings.Join(known, ", "), v1alpha1.GroupVersion)))
		return
	}
	if c.schema.Namespaced(gvk) && u.GetNamespace() == "" {
		u.SetNamespace(DefaultNamespace)
	}
	if errs := c.schema.Admit(ctx, u); len(errs) > 0 {
		// As in the apiserver, an object the schema rejects goes no further.
		ch.add(StageSchema, errs)
		return
	}
	if ts := u.GetCreationTimestamp(); ts.IsZero() {
		// Of two objects, the one earlier in the input counts as older.
		u.SetCreationTimestamp(metav1.NewTime(c.now.Add(time.Duration(index) * time.Second)))
	}
	typed, err := typedObject(u)
	if err != nil {
		ch.findings = append(ch.findings, ch.finding(StageSchema, "", err.Error()))
		return
	}
	ch.typed = typed
	ch.add(StageWebhook, c.validator.Admit(ctx, typed))
	if p, ok := typed.(*v1alpha1.RebalancePolicy); ok {
		ch.add(StageController, ValidateRebalancePolicySpec(c.strategies, &p.Spec, field.NewPath("spec")))
	}
}

// typedObject decodes an object the schema admitted into its Go type.
func typedObject(u *unstructured.Unstructured) (apiruntime.Object, error) {
	var obj apiruntime.Object
	switch u.GetKind() {
	case "SchedulingProfile":
		obj = &v1alpha1.SchedulingProfile{}
	case "PluginWeight":
		obj = &v1alpha1.PluginWeight{}
	case "RebalancePolicy":
		obj = &v1alpha1.RebalancePolicy{}
	case "PodGroup":
		obj = &v1alpha1.PodGroup{}
	default:
		return nil, fmt.Errorf("no Go type in Berth for kind %q", u.GetKind())
	}
	if err := apiruntime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj); err != nil {
		return nil, fmt.Errorf("decoding the %s: %w", u.GetKind(), err)
	}
	return obj, nil
}

// checkTogether runs the checks that need several objects: one object
// defined twice, and what the SchedulingProfile and PluginWeight
// controllers would report of the valid profiles and weights together.
func (c *Checker) checkTogether(ctx context.Context, all []*checked) {
	type key struct{ kind, namespace, name string }
	first := make(map[key]*checked)
	var profiles []v1alpha1.SchedulingProfile
	var weights []v1alpha1.PluginWeight
	byProfile := make(map[string]*checked)
	byWeight := make(map[string]*checked)
	for _, ch := range all {
		u := ch.in.Object
		k := key{u.GetKind(), u.GetNamespace(), u.GetName()}
		if prev, dup := first[k]; dup && u.GetName() != "" {
			ch.findings = append(ch.findings, ch.finding(StageInput, "metadata.name",
				fmt.Sprintf("Duplicate value: %q: %s already defines this %s; applying both keeps only the last", u.GetName(), prev.in.Origin, u.GetKind())))
			continue
		}
		first[k] = ch
		if len(ch.findings) > 0 {
			// The webhook or the apiserver would have kept it out of the cluster.
			continue
		}
		switch o := ch.typed.(type) {
		case *v1alpha1.SchedulingProfile:
			profiles = append(profiles, *o)
			byProfile[o.Name] = ch
		case *v1alpha1.PluginWeight:
			weights = append(weights, *o)
			byWeight[o.Name] = ch
		}
	}
	profileStatuses, weightStatuses := controllers.OfflineStatuses(ctx, c.validator.Compile, profiles, weights, metav1.NewTime(c.now))
	for _, p := range profiles {
		ch := byProfile[p.Name]
		cond := meta.FindStatusCondition(profileStatuses[p.Name].Conditions, v1alpha1.ConditionReady)
		if cond == nil || cond.Status == metav1.ConditionTrue {
			continue
		}
		path := "spec.schedulerName"
		if p.Spec.SchedulerName == "" {
			path = "metadata.name"
		}
		if cond.Reason != v1alpha1.ReasonConflict {
			path = "spec"
		}
		ch.findings = append(ch.findings, ch.finding(StageController, path, fmt.Sprintf("%s: %s", cond.Reason, cond.Message)))
	}
	plan := controllers.PlanWeights(profiles, weights)
	for _, w := range weights {
		ch := byWeight[w.Name]
		if _, selectorErr := plan.Targets(w.Name); selectorErr != nil {
			ch.findings = append(ch.findings, ch.finding(StageController, "spec.profileSelector", selectorErr.Error()))
			continue
		}
		cond := meta.FindStatusCondition(weightStatuses[w.Name].Conditions, v1alpha1.ConditionApplied)
		if cond == nil || cond.Status == metav1.ConditionTrue {
			continue
		}
		switch cond.Reason {
		case v1alpha1.ReasonConflict, controllers.ReasonPluginNotScoring:
			ch.findings = append(ch.findings, ch.finding(StageController, "spec.plugin", fmt.Sprintf("%s: %s", cond.Reason, cond.Message)))
		}
		// NoMatchingProfile and Pending are no error offline: the profile
		// may be in the cluster, or is invalid and reported on its own.
	}
}

// String names the origin as file, with the document when the file holds several.
func (o Origin) String() string {
	name := o.File
	if name == "-" {
		name = "<stdin>"
	}
	switch {
	case o.Item > 0:
		return fmt.Sprintf("%s (document %d, item %d)", name, o.Document, o.Item)
	case o.Documents > 1:
		return fmt.Sprintf("%s (document %d)", name, o.Document)
	}
	return name
}
