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

package berthtest

import (
	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/api/v1alpha1"
	berthwebhook "github.com/berth-io/berth/controllers/webhook"
)

// validatingWebhooks is Berth's ValidatingWebhookConfiguration
// (config/webhook/manifests.yaml) for envtest, which points the client
// configs at the manager's local webhook server.
func validatingWebhooks() []*admissionv1.ValidatingWebhookConfiguration {
	hook := func(resource, kind string) admissionv1.ValidatingWebhook {
		path := "/validate-scheduling-berth-io-" + v1alpha1.GroupVersion.Version + "-" + kind
		return admissionv1.ValidatingWebhook{
			Name:                    "v" + kind + "." + v1alpha1.GroupVersion.Group,
			AdmissionReviewVersions: []string{"v1"},
			ClientConfig: admissionv1.WebhookClientConfig{
				Service: &admissionv1.ServiceReference{Name: "webhook-service", Namespace: "system", Path: &path},
			},
			FailurePolicy: ptr.To(admissionv1.Fail),
			SideEffects:   ptr.To(admissionv1.SideEffectClassNone),
			Rules: []admissionv1.RuleWithOperations{{
				Operations: []admissionv1.OperationType{admissionv1.Create, admissionv1.Update},
				Rule: admissionv1.Rule{
					APIGroups:   []string{v1alpha1.GroupVersion.Group},
					APIVersions: []string{v1alpha1.GroupVersion.Version},
					Resources:   []string{resource},
				},
			}},
		}
	}
	return []*admissionv1.ValidatingWebhookConfiguration{{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration"},
		ObjectMeta: metav1.ObjectMeta{Name: "validating-webhook-configuration"},
		Webhooks: []admissionv1.ValidatingWebhook{
			hook("pluginweights", "pluginweight"),
			hook("schedulingprofiles", "schedulingprofile"),
		},
	}}
}

// mutatingWebhooks is Berth's MutatingWebhookConfiguration, the namespace
// default (config/webhook/manifests.yaml), for envtest.
func mutatingWebhooks() []*admissionv1.MutatingWebhookConfiguration {
	path := berthwebhook.NamespaceDefaultPath
	return []*admissionv1.MutatingWebhookConfiguration{{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingWebhookConfiguration"},
		ObjectMeta: metav1.ObjectMeta{Name: "mutating-webhook-configuration"},
		Webhooks: []admissionv1.MutatingWebhook{{
			Name:                    "mpod-scheduler-name." + v1alpha1.GroupVersion.Group,
			AdmissionReviewVersions: []string{"v1"},
			ClientConfig: admissionv1.WebhookClientConfig{
				Service: &admissionv1.ServiceReference{Name: "webhook-service", Namespace: "system", Path: &path},
			},
			FailurePolicy:      ptr.To(admissionv1.Ignore),
			SideEffects:        ptr.To(admissionv1.SideEffectClassNone),
			TimeoutSeconds:     ptr.To[int32](2),
			ReinvocationPolicy: ptr.To(admissionv1.NeverReinvocationPolicy),
			NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: v1alpha1.SchedulerNameLabel, Operator: metav1.LabelSelectorOpExists},
				{Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpNotIn, Values: []string{metav1.NamespaceSystem, "berth-system"}},
			}},
			Rules: []admissionv1.RuleWithOperations{{
				Operations: []admissionv1.OperationType{admissionv1.Create},
				Rule:       admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
			}},
		}},
	}}
}
