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

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Extender is an HTTP scheduler extender in the shape of upstream's
// KubeSchedulerConfiguration v1 extenders entry.
// +kubebuilder:validation:XValidation:rule="!has(self.prioritizeVerb) || size(self.prioritizeVerb) == 0 || (has(self.weight) && self.weight >= 1)",message="weight must be at least 1 when prioritizeVerb is set"
// +kubebuilder:validation:XValidation:rule="!has(self.httpTimeout) || duration(self.httpTimeout) <= duration('30s')",message="httpTimeout must be at most 30s: extenders are called inside the scheduling cycle, which every profile shares"
type Extender struct {
	// urlPrefix is the extender's base URL; each verb is POSTed to urlPrefix/verb.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=2048
	URLPrefix string `json:"urlPrefix"`
	// filterVerb is the path of the filter call; empty means the extender does not filter.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	FilterVerb string `json:"filterVerb,omitempty"`
	// preemptVerb is the path of the preempt call, which DefaultPreemption makes with its candidates before picking one; empty means the extender is not asked.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	PreemptVerb string `json:"preemptVerb,omitempty"`
	// prioritizeVerb is the path of the prioritize call; empty means the extender does not score.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	PrioritizeVerb string `json:"prioritizeVerb,omitempty"`
	// weight multiplies the extender's scores (0–10, scaled to 0–100); required with prioritizeVerb.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1000000
	Weight int64 `json:"weight,omitempty"`
	// bindVerb is the path of the bind call; when set, the extender binds the pods it is interested in.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	BindVerb string `json:"bindVerb,omitempty"`
	// enableHTTPS makes the extender be called over https.
	// +optional
	EnableHTTPS bool `json:"enableHTTPS,omitempty"`
	// tlsConfig configures the TLS client when enableHTTPS is set.
	// +optional
	TLSConfig *ExtenderTLSConfig `json:"tlsConfig,omitempty"`
	// httpTimeout bounds each call to the extender; unset means 5s, as
	// upstream. At most 30s: filter and prioritize calls are made inside the
	// scheduling cycle, which every profile shares.
	// +optional
	HTTPTimeout *metav1.Duration `json:"httpTimeout,omitempty"`
	// nodeCacheCapable means the extender caches nodes, so calls carry node names only.
	// +optional
	NodeCacheCapable bool `json:"nodeCacheCapable,omitempty"`
	// managedResources lists the extended resources the extender manages; when
	// set, only pods requesting one of them are sent to the extender.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	ManagedResources []ExtenderManagedResource `json:"managedResources,omitempty"`
	// ignorable means a failing or unreachable extender is skipped instead of failing the cycle.
	// +optional
	Ignorable bool `json:"ignorable,omitempty"`
}

// ExtenderManagedResource names an extended resource an extender manages.
type ExtenderManagedResource struct {
	// name is the resource's name, for example example.com/gpu.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// ignoredByScheduler is accepted for compatibility; Berth's NodeResourcesFit does not read it yet.
	// +optional
	IgnoredByScheduler bool `json:"ignoredByScheduler,omitempty"`
}

// ExtenderTLSConfig is the TLS client configuration of an extender. A
// private key never goes in it: the client certificate and its key come
// from the Secret secretRef names.
// +kubebuilder:validation:XValidation:rule="!has(self.keyData)",message="keyData would keep a private key in the SchedulingProfile: put tls.crt and tls.key (and ca.crt) in a Secret in Berth's namespace and name it in tlsConfig.secretRef"
// +kubebuilder:validation:XValidation:rule="!has(self.certData)",message="certData is refused with keyData, since the certificate is of no use without its key: put both in a Secret in Berth's namespace (tls.crt, tls.key) and name it in tlsConfig.secretRef"
type ExtenderTLSConfig struct {
	// insecure skips verification of the extender's certificate.
	// +optional
	Insecure bool `json:"insecure,omitempty"`
	// serverName is the name the extender's certificate is verified against.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	ServerName string `json:"serverName,omitempty"`
	// secretRef names the Secret, in Berth's namespace, whose tls.crt and
	// tls.key are the client certificate and its key, and whose ca.crt (when
	// present, else caData) holds the authorities the extender's certificate
	// must chain to. The scheduler follows the Secret: a rotated certificate
	// is used from the next connection on.
	// +optional
	SecretRef *SecretReference `json:"secretRef,omitempty"`
	// certData is refused, as keyData is: the client certificate goes in
	// the Secret secretRef names, with its key. The field stays so that a
	// profile stored before is read.
	// +optional
	CertData []byte `json:"certData,omitempty"`
	// keyData is refused: a private key does not belong in a cluster-scoped
	// object, or in git. Use secretRef. The field stays so that a profile
	// stored before is read, and told why on its next change.
	// +optional
	KeyData []byte `json:"keyData,omitempty"`
	// caData is a PEM bundle of the authorities to trust instead of the system's.
	// +optional
	CAData []byte `json:"caData,omitempty"`
}

// SecretReference names a Secret.
type SecretReference struct {
	// namespace is the Secret's namespace: Berth reads Secrets only in its own.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace"`
	// name is the Secret's name.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}
