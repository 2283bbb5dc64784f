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

package apiwrite

import (
	"context"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// BindingPoster creates pods' Bindings through the pods/binding
// subresource: as a plain POST that reads nothing back when the client set
// has a real REST client, else through the typed client (fake client sets).
type BindingPoster struct {
	client kubernetes.Interface
	poster *Poster
}

// NewBindingPoster returns a BindingPoster that writes with client.
func NewBindingPoster(client kubernetes.Interface) *BindingPoster {
	b := &BindingPoster{client: client}
	if rc, ok := client.CoreV1().RESTClient().(*rest.RESTClient); ok {
		// Without a poster, binding goes through the typed client.
		b.poster, _ = NewPoster(rc)
	}
	return b
}

// PostBinding creates binding.
func (b *BindingPoster) PostBinding(ctx context.Context, binding *v1.Binding) error {
	if b.poster == nil {
		return b.client.CoreV1().Pods(binding.Namespace).Bind(ctx, binding, metav1.CreateOptions{})
	}
	return b.poster.Post(ctx, "namespaces/"+binding.Namespace+"/pods/"+binding.Name+"/binding", binding, podsResource, binding.Name)
}

var podsResource = schema.GroupResource{Resource: "pods"}
