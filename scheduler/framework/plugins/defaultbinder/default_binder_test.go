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
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// recordingPoster records the Binding it is given and answers fail.
type recordingPoster struct {
	got  *v1.Binding
	fail error
}

func (p *recordingPoster) PostBinding(_ context.Context, b *v1.Binding) error {
	p.got = b
	return p.fail
}

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
			poster := &recordingPoster{fail: tt.fail}
			pl, err := New(context.Background(), nil, &st.Handle{Binder: poster})
			if err != nil {
				t.Fatal(err)
			}
			status := pl.(*DefaultBinder).Bind(context.Background(), framework.NewCycleState(), pod, "node-1")
			if status.Code() != tt.want {
				t.Fatalf("Bind = %v, want %v", status, tt.want)
			}
			if tt.fail != nil && !apierrors.IsConflict(errors.Unwrap(status.AsError())) {
				t.Errorf("error %v does not wrap the API conflict", status.AsError())
			}
			got := poster.got
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

func TestNewNeedsHandle(t *testing.T) {
	if _, err := New(context.Background(), nil, nil); err == nil {
		t.Fatal("New without a handle: want error")
	}
}
