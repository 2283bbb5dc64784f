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
	"encoding/json"
	"fmt"
	"strings"

	"github.com/go-logr/logr"
	"gomodules.xyz/jsonpatch/v2"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	corelisters "k8s.io/client-go/listers/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/controllers"
)

// NamespaceDefaultPath is where the webhook server serves the namespace default.
const NamespaceDefaultPath = "/mutate-v1-pod-scheduler-name"

// The apiserver calls the namespace default only for pods created in
// namespaces that carry the label, never in kube-system or berth-system
// (Berth's namespace in the default install; the chart puts its release
// namespace there). It fails open and waits at most two seconds: a Berth
// that is down must not stop pods from being created.
// +kubebuilder:webhook:path=/mutate-v1-pod-scheduler-name,mutating=true,failurePolicy=ignore,sideEffects=None,timeoutSeconds=2,groups="",resources=pods,verbs=create,versions=v1,name=mpod-scheduler-name.scheduling.berth.io,admissionReviewVersions=v1,reinvocationPolicy=Never,patch=`{"namespaceSelector":{"matchExpressions":[{"key":"scheduling.berth.io/scheduler-name","operator":"Exists"},{"key":"kubernetes.io/metadata.name","operator":"NotIn","values":["kube-system","berth-system"]}]}}`

// defaultSchedulerName is the schedulerName the apiserver gives a pod that names none.
const defaultSchedulerName = corev1.DefaultSchedulerName

// NamespaceGetter returns the namespace of that name.
type NamespaceGetter func(ctx context.Context, name string) (*corev1.Namespace, error)

// CachedNamespaces reads namespaces from lister and, when it has not seen
// the namespace or its label yet (the apiserver calls the webhook only for
// labelled namespaces, so the cache is behind), from live.
func CachedNamespaces(lister corelisters.NamespaceLister, live client.Reader) NamespaceGetter {
	return func(ctx context.Context, name string) (*corev1.Namespace, error) {
		ns, err := lister.Get(name)
		if err == nil {
			if _, ok := ns.Labels[v1alpha1.SchedulerNameLabel]; ok {
				return ns, nil
			}
		} else if !apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("reading namespace %s from the cache: %w", name, err)
		}
		ns = &corev1.Namespace{}
		if err := live.Get(ctx, client.ObjectKey{Name: name}, ns); err != nil {
			return nil, fmt.Errorf("reading namespace %s: %w", name, err)
		}
		return ns, nil
	}
}

// NamespaceDefaulter gives pods created in a namespace labelled
// scheduling.berth.io/scheduler-name the schedulerName of the label, when
// they name no scheduler or name default-scheduler.
type NamespaceDefaulter struct {
	namespaces     NamespaceGetter
	profiles       client.Reader
	berthNamespace string
}

// DefaulterOption configures a NamespaceDefaulter.
type DefaulterOption func(*NamespaceDefaulter)

// WithBerthNamespace names the namespace Berth runs in, whose pods the
// defaulter never changes, as it never changes kube-system's.
func WithBerthNamespace(ns string) DefaulterOption {
	return func(d *NamespaceDefaulter) { d.berthNamespace = ns }
}

// WithProfiles lets the defaulter warn, through profiles, when no
// SchedulingProfile serves the schedulerName it sets.
func WithProfiles(profiles client.Reader) DefaulterOption {
	return func(d *NamespaceDefaulter) { d.profiles = profiles }
}

// NewNamespaceDefaulter returns a defaulter that reads namespaces through namespaces.
func NewNamespaceDefaulter(namespaces NamespaceGetter, opts ...DefaulterOption) *NamespaceDefaulter {
	d := &NamespaceDefaulter{namespaces: namespaces}
	for _, o := range opts {
		o(d)
	}
	return d
}

// SetupNamespaceDefaultWithManager serves d at NamespaceDefaultPath on the
// manager's webhook server.
func SetupNamespaceDefaultWithManager(mgr ctrl.Manager, d *NamespaceDefaulter) {
	mgr.GetWebhookServer().Register(NamespaceDefaultPath, &admission.Webhook{Handler: d})
}

var _ admission.Handler = (*NamespaceDefaulter)(nil)

// Handle sets the pod's schedulerName when its namespace asks for one. It
// admits every pod: a namespace it cannot read, or a pod it cannot decode,
// leaves the pod as it came, with a warning.
func (d *NamespaceDefaulter) Handle(ctx context.Context, req admission.Request) admission.Response {
	if req.Operation != admissionv1.Create || req.Kind.Group != "" || req.Kind.Kind != "Pod" || req.SubResource != "" {
		return admission.Allowed("")
	}
	log := logr.FromContextOrDiscard(ctx).WithValues("namespace", req.Namespace)
	var pod podFields
	if err := json.Unmarshal(req.Object.Raw, &pod); err != nil {
		// Fail open here too: an error response would refuse the pod.
		log.Error(err, "Decoding the pod")
		return admission.Allowed("").WithWarnings(fmt.Sprintf("Berth could not decode the pod, so it keeps its schedulerName: %v", err))
	}
	if skipNamespace(req.Namespace, d.berthNamespace) {
		return admission.Allowed("")
	}
	ns, err := d.namespaces(ctx, req.Namespace)
	if err != nil {
		log.Error(err, "Leaving the pod's schedulerName as it is")
		return admission.Allowed("").WithWarnings(fmt.Sprintf(
			"Berth could not read namespace %s, so the pod keeps schedulerName %q: %v", req.Namespace, pod.schedulerName(), err))
	}
	out := decide(req.Namespace, d.berthNamespace, ns.Labels, pod)
	if out.schedulerName == "" {
		return admission.Allowed("").WithWarnings(out.warnings...)
	}
	if w := d.unserved(ctx, out.schedulerName); w != "" {
		out.warnings = append(out.warnings, w)
	}
	log.V(4).Info("Setting the pod's schedulerName from its namespace", "schedulerName", out.schedulerName)
	return admission.Patched("", jsonpatch.NewOperation("add", "/spec/schedulerName", out.schedulerName)).
		WithWarnings(out.warnings...)
}

// unserved returns a warning when no SchedulingProfile serves
// schedulerName, or "" when one does or the defaulter cannot tell.
func (d *NamespaceDefaulter) unserved(ctx context.Context, schedulerName string) string {
	if d.profiles == nil {
		return ""
	}
	var profiles v1alpha1.SchedulingProfileList
	// The cache's own objects, uncopied: they are only read.
	if err := d.profiles.List(ctx, &profiles, client.UnsafeDisableDeepCopy); err != nil {
		logr.FromContextOrDiscard(ctx).Error(err, "Listing SchedulingProfiles")
		return ""
	}
	if controllers.ServingProfile(schedulerName, profiles.Items) != nil {
		return ""
	}
	return fmt.Sprintf("no SchedulingProfile serves schedulerName %q yet: the pod stays Pending until one does", schedulerName)
}

// podFields are the parts of a pod the defaulter reads.
type podFields struct {
	Spec struct {
		SchedulerName string `json:"schedulerName"`
		NodeName      string `json:"nodeName"`
	} `json:"spec"`
}

// schedulerName is the pod's schedulerName as the apiserver defaults it.
func (p podFields) schedulerName() string {
	if p.Spec.SchedulerName == "" {
		return defaultSchedulerName
	}
	return p.Spec.SchedulerName
}

// defaulting is what the defaulter does with one pod.
type defaulting struct {
	// schedulerName is the pod's new schedulerName; empty leaves it as it is.
	schedulerName string
	// warnings go back to the client that created the pod.
	warnings []string
}

// skipNamespace reports whether pods of namespace are never changed:
// kube-system's and Berth's own.
func skipNamespace(namespace, berthNamespace string) bool {
	return namespace == metav1.NamespaceSystem || (berthNamespace != "" && namespace == berthNamespace)
}

// decide is the namespace default for a pod created in namespace, whose
// labels are labels: the pod gets the label's schedulerName when it names
// none or default-scheduler, is not bound yet, and the namespace is neither
// kube-system nor berthNamespace. A label that is not a valid schedulerName
// changes nothing and says why.
func decide(namespace, berthNamespace string, labels map[string]string, pod podFields) defaulting {
	if skipNamespace(namespace, berthNamespace) {
		return defaulting{}
	}
	want, ok := labels[v1alpha1.SchedulerNameLabel]
	if !ok {
		return defaulting{}
	}
	if msgs := validation.IsDNS1123Subdomain(want); len(msgs) > 0 {
		return defaulting{warnings: []string{fmt.Sprintf(
			"namespace %s: label %s=%q is not a schedulerName (%s), so the pod keeps schedulerName %q",
			namespace, v1alpha1.SchedulerNameLabel, want, strings.Join(msgs, "; "), pod.schedulerName())}}
	}
	// A pod with a node already set is not scheduled by anyone.
	if pod.Spec.NodeName != "" || pod.schedulerName() != defaultSchedulerName || want == defaultSchedulerName {
		return defaulting{}
	}
	return defaulting{schedulerName: want}
}
