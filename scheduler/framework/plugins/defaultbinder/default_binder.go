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

// Package defaultbinder implements DefaultBinder, which binds a pod through
// the pods/binding subresource.
package defaultbinder

import (
	"context"
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/apiwrite"
	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/names"
)

// Name is the plugin's registered name.
const Name = names.DefaultBinder

// DefaultBinder binds pods with the Kubernetes client.
type DefaultBinder struct {
	client kubernetes.Interface
	// poster posts on the client set's core REST client, when it has a
	// real one (fake client sets do not).
	poster *apiwrite.Poster
}

var _ framework.BindPlugin = &DefaultBinder{}

// New is the plugin's factory: it binds with the handle's client set.
func New(_ context.Context, raw []byte, h framework.Handle) (framework.Plugin, error) {
	if _, err := args.Load[args.None]("plugin "+Name, raw); err != nil {
		return nil, err
	}
	if h == nil || h.ClientSet() == nil {
		return nil, errors.New("plugin DefaultBinder needs a client set")
	}
	return NewBinder(h.ClientSet()), nil
}

// NewBinder returns a DefaultBinder that binds with client.
func NewBinder(client kubernetes.Interface) *DefaultBinder {
	b := &DefaultBinder{client: client}
	if rc, ok := client.CoreV1().RESTClient().(*rest.RESTClient); ok {
		// Without a poster, binding goes through the typed client.
		b.poster, _ = apiwrite.NewPoster(rc)
	}
	return b
}

// Name returns the plugin's name.
func (*DefaultBinder) Name() string { return Name }

// Bind posts a Binding of the pod, carrying its UID so that a pod recreated
// under the same name is never bound by mistake, to nodeName.
func (b *DefaultBinder) Bind(ctx context.Context, _ *framework.CycleState, pod *v1.Pod, nodeName string) *framework.Status {
	klog.FromContext(ctx).V(3).Info("binding pod to node", "pod", klog.KObj(pod), "node", klog.KRef("", nodeName))
	binding := &v1.Binding{
		ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
		Target:     v1.ObjectReference{Kind: "Node", Name: nodeName},
	}
	if err := b.post(ctx, binding); err != nil {
		return framework.AsStatus(fmt.Errorf("binding pod %s/%s to node %s: %w", pod.Namespace, pod.Name, nodeName, err))
	}
	return nil
}

// post creates the Binding: with a real REST client as a plain POST that
// reads nothing back, else through the typed client.
func (b *DefaultBinder) post(ctx context.Context, binding *v1.Binding) error {
	if b.poster == nil {
		return b.client.CoreV1().Pods(binding.Namespace).Bind(ctx, binding, metav1.CreateOptions{})
	}
	return b.poster.Post(ctx, "namespaces/"+binding.Namespace+"/pods/"+binding.Name+"/binding", binding, podsResource, binding.Name)
}

var podsResource = schema.GroupResource{Resource: "pods"}
