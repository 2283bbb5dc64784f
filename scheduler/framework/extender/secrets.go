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

package extender

import (
	"errors"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	corev1informers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/berth-io/berth/api/v1alpha1"
)

// NamespaceSecrets gives extenders the Secrets their tlsConfig.secretRef
// names, from an informer on the Secrets of one namespace, Berth's (of
// every namespace when given none, as in tests), so that a rotated
// certificate reaches them without an API call per connection.
type NamespaceSecrets struct {
	namespace string
	lister    corelisters.SecretLister
}

var _ SecretSource = (*NamespaceSecrets)(nil)

// NewNamespaceSecrets registers the Secret informer with factory, which
// starts and syncs it with the others.
func NewNamespaceSecrets(factory informers.SharedInformerFactory, namespace string) *NamespaceSecrets {
	informer := factory.InformerFor(&v1.Secret{}, func(c kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
		return corev1informers.NewFilteredSecretInformer(c, namespace, resync, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}, nil)
	})
	return &NamespaceSecrets{namespace: namespace, lister: corelisters.NewSecretLister(informer.GetIndexer())}
}

// Secret returns the data and resourceVersion of the Secret.
func (s *NamespaceSecrets) Secret(namespace, name string) (map[string][]byte, string, bool) {
	if s.namespace != "" && namespace != s.namespace {
		return nil, "", false
	}
	secret, err := s.lister.Secrets(namespace).Get(name)
	if err != nil {
		return nil, "", false
	}
	return secret.Data, secret.ResourceVersion, true
}

// Check refuses a profile whose extenders name Secrets outside the
// namespace Berth reads Secrets in.
func (s *NamespaceSecrets) Check(spec *v1alpha1.SchedulingProfileSpec) error {
	if s.namespace == "" {
		return nil
	}
	var errs []error
	for i, e := range spec.Extenders {
		if c := e.TLSConfig; c != nil && c.SecretRef != nil && c.SecretRef.Namespace != s.namespace {
			errs = append(errs, fmt.Errorf("extenders[%d].tlsConfig.secretRef: Secret %s/%s is outside namespace %s, the only one Berth reads Secrets in",
				i, c.SecretRef.Namespace, c.SecretRef.Name, s.namespace))
		}
	}
	return errors.Join(errs...)
}
