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
	"k8s.io/klog/v2"

	"github.com/berth-io/berth/scheduler/args"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/names"
)

// Name is the plugin's registered name.
const Name = names.DefaultBinder

// DefaultBinder binds pods through the Handle's PostBinding.
type DefaultBinder struct {
	handle framework.Handle
}

var _ framework.BindPlugin = &DefaultBinder{}

// New is the plugin's factory: it binds through the handle.
func New(_ context.Context, raw []byte, h framework.Handle) (framework.Plugin, error) {
	if _, err := args.Load[args.None]("plugin "+Name, raw); err != nil {
		return nil, err
	}
	if h == nil {
		return nil, errors.New("plugin DefaultBinder needs a handle")
	}
	return &DefaultBinder{handle: h}, nil
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
	if err := b.handle.PostBinding(ctx, binding); err != nil {
		return framework.AsStatus(fmt.Errorf("binding pod %s/%s to node %s: %w", pod.Namespace, pod.Name, nodeName, err))
	}
	return nil
}
