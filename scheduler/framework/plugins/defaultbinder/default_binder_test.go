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

package defaultbinder

import (
	"context"
	"errors"
	"testing"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

func TestBind(t *testing.T) {
	tests := []struct {
		name string
		fail error
		want framework.Code
	}{
		{name: "success", want: framework.Success},
		{name: "conflict", fail: apierrors.NewConflict(schema.GroupResource{Resource: "pods"}, "p", errors.New("uid mismatch")), want: framework.Error},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := st.Pod("p").Namespace("ns").UID("uid-123").Obj()
			client := fake.NewClientset(pod)
			var got *v1.Binding
			client.PrependReactor("create", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
				if a.GetSubresource() != "binding" {
					return false, nil, nil
				}
				got = a.(clienttesting.CreateAction).GetObject().(*v1.Binding)
				return true, got, tt.fail
			})
			status := NewBinder(client).Bind(context.Background(), framework.NewCycleState(), pod, "node-1")
			if status.Code() != tt.want {
				t.Fatalf("Bind = %v, want %v", status, tt.want)
			}
			if tt.fail != nil && !apierrors.IsConflict(errors.Unwrap(status.AsError())) {
				t.Errorf("error %v does not wrap the API conflict", status.AsError())
			}
			if got == nil {
				t.Fatal("no Binding was posted")
			}
			if got.Namespace != "ns" || got.Name != "p" || got.UID != "uid-123" {
				t.Errorf("binding meta = %s/%s uid %s", got.Namespace, got.Name, got.UID)
			}
			if got.Target.Kind != "Node" || got.Target.Name != "node-1" {
				t.Errorf("binding target = %+v", got.Target)
			}
		})
	}
}

func TestNewNeedsClient(t *testing.T) {
	if _, err := New(context.Background(), nil, nil); err == nil {
		t.Fatal("New without a handle: want error")
	}
}
