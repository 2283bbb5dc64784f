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

package defaultprofile

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/berth-io/berth/api/v1alpha1"
)

func newProfile(name string, percentage int32) *v1alpha1.SchedulingProfile {
	return &v1alpha1.SchedulingProfile{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       v1alpha1.SchedulingProfileSpec{PercentageOfNodesToScore: ptr.To(percentage)},
	}
}

func TestCreator(t *testing.T) {
	transient := apierrors.NewServiceUnavailable("webhook not ready")
	tests := []struct {
		name     string
		existing []client.Object
		// failCreates and failGets fail that many calls before the real one.
		failCreates, failGets int
		createErr             error
		cancelled             bool
		wantCreates           int
		wantSpec              *v1alpha1.SchedulingProfileSpec
		wantAnnotated         bool
	}{
		{name: "absent: created with an empty spec", wantCreates: 1, wantSpec: &v1alpha1.SchedulingProfileSpec{}, wantAnnotated: true},
		{name: "present: left as the user made it", existing: []client.Object{newProfile("berth", 30)},
			wantSpec: &newProfile("berth", 30).Spec},
		{name: "created meanwhile by someone else", createErr: apierrors.NewAlreadyExists(schema.GroupResource{}, "berth"), wantCreates: 1},
		{name: "a refused create is retried", failCreates: 2, wantCreates: 3, wantSpec: &v1alpha1.SchedulingProfileSpec{}, wantAnnotated: true},
		{name: "a failed read is retried", failGets: 2, wantCreates: 1, wantSpec: &v1alpha1.SchedulingProfileSpec{}, wantAnnotated: true},
		{name: "stopping while it fails creates nothing", failCreates: 1 << 20, cancelled: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scheme := runtime.NewScheme()
			if err := v1alpha1.AddToScheme(scheme); err != nil {
				t.Fatal(err)
			}
			creates, gets := 0, 0
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(tt.existing...).WithInterceptorFuncs(interceptor.Funcs{
				Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
					if gets++; gets <= tt.failGets {
						return transient
					}
					return c.Get(ctx, key, obj, opts...)
				},
				Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
					creates++
					if tt.cancelled && creates == 3 {
						cancel()
					}
					if creates <= tt.failCreates {
						return transient
					}
					if tt.createErr != nil {
						return tt.createErr
					}
					return c.Create(ctx, obj, opts...)
				},
			}).Build()

			cr := New(c, "berth", WithBackoff(wait.Backoff{Duration: time.Millisecond, Factor: 1, Steps: 1 << 30}))
			if !cr.NeedLeaderElection() {
				t.Error("the Creator must run on the leader only")
			}
			if err := cr.Start(ctx); err != nil {
				t.Fatalf("Start: %v", err)
			}
			if tt.cancelled {
				if creates < 3 {
					t.Fatalf("%d creates before stopping, want at least 3", creates)
				}
			} else if creates != tt.wantCreates {
				t.Errorf("%d creates, want %d", creates, tt.wantCreates)
			}

			got := &v1alpha1.SchedulingProfile{}
			err := c.Get(context.Background(), client.ObjectKey{Name: "berth"}, got)
			if tt.wantSpec == nil {
				if !apierrors.IsNotFound(err) {
					t.Fatalf("want no profile, got %v (err %v)", got.Spec, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(*tt.wantSpec, got.Spec); diff != "" {
				t.Errorf("spec (-want +got):\n%s", diff)
			}
			if _, annotated := got.Annotations[CreatedByAnnotation]; annotated != tt.wantAnnotated {
				t.Errorf("annotated %s = %v, want %v", CreatedByAnnotation, annotated, tt.wantAnnotated)
			}
		})
	}
}
