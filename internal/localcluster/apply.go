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

package localcluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// FieldManager is the field manager of everything the local cluster applies.
const FieldManager = "berth-local-cluster"

// DecodeManifests splits a multi-document YAML or JSON stream into objects,
// skipping empty documents and kustomize Kustomization files.
func DecodeManifests(r io.Reader) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(r, 4096)
	var objs []*unstructured.Unstructured
	for {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return objs, nil
			}
			return nil, fmt.Errorf("decoding document %d: %w", len(objs)+1, err)
		}
		if len(u.Object) == 0 || u.GetKind() == "Kustomization" {
			continue
		}
		if u.GetKind() == "" || u.GetAPIVersion() == "" || u.GetName() == "" {
			return nil, fmt.Errorf("document %d has no apiVersion, kind or metadata.name", len(objs)+1)
		}
		objs = append(objs, u)
	}
}

// Applier applies objects to a cluster with server-side apply.
type Applier struct {
	dynamic dynamic.Interface
	mapper  meta.RESTMapper
}

// NewApplier returns an Applier for the cluster cfg reaches.
func NewApplier(cfg *rest.Config) (*Applier, error) {
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("building an HTTP client: %w", err)
	}
	mapper, err := apiutil.NewDynamicRESTMapper(cfg, httpClient)
	if err != nil {
		return nil, fmt.Errorf("building a REST mapper: %w", err)
	}
	dyn, err := dynamic.NewForConfigAndClient(cfg, httpClient)
	if err != nil {
		return nil, fmt.Errorf("building a dynamic client: %w", err)
	}
	return &Applier{dynamic: dyn, mapper: mapper}, nil
}

// Apply applies each object in order, owning its fields as FieldManager;
// namespaced objects without a namespace go to "default".
func (a *Applier) Apply(ctx context.Context, objs ...*unstructured.Unstructured) error {
	for _, obj := range objs {
		gvk := obj.GroupVersionKind()
		mapping, err := a.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			return fmt.Errorf("finding the resource of %s %s: %w", gvk.Kind, obj.GetName(), err)
		}
		var res dynamic.ResourceInterface = a.dynamic.Resource(mapping.Resource)
		if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
			if obj.GetNamespace() == "" {
				obj.SetNamespace("default")
			}
			res = a.dynamic.Resource(mapping.Resource).Namespace(obj.GetNamespace())
		}
		if _, err := res.Apply(ctx, obj.GetName(), obj, metav1.ApplyOptions{FieldManager: FieldManager, Force: true}); err != nil {
			return fmt.Errorf("applying %s %s: %w", gvk.Kind, objectKey(obj), err)
		}
	}
	return nil
}

// ApplyFiles decodes and applies the manifests in files, in order.
func (a *Applier) ApplyFiles(ctx context.Context, files ...string) error {
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			return fmt.Errorf("reading %s: %w", file, err)
		}
		objs, err := DecodeManifests(bytes.NewReader(raw))
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		if err := a.Apply(ctx, objs...); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
	}
	return nil
}

func objectKey(obj *unstructured.Unstructured) string {
	if obj.GetNamespace() == "" {
		return obj.GetName()
	}
	return obj.GetNamespace() + "/" + obj.GetName()
}
