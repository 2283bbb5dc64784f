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

package manager

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/berth-io/berth/scheduler/usage"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler"
	"github.com/berth-io/berth/scheduler/framework/runtime"
	"github.com/berth-io/berth/scheduler/profile"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// fakeSync is a scheduler whose informers have synced or not.
type fakeSync bool

func (s fakeSync) HasSynced() bool { return bool(s) }

// fakeHost fails to compile the schedulerNames in invalid.
type fakeHost struct{ invalid map[string]bool }

func (h fakeHost) CompileProfile(_ context.Context, name string, _ *v1alpha1.SchedulingProfileSpec, _ ...runtime.Option) (*runtime.Framework, error) {
	if h.invalid[name] {
		return nil, errors.New("invalid")
	}
	return &runtime.Framework{}, nil
}
func (fakeHost) InstallProfile(context.Context, string, *profile.Profile) {}
func (fakeHost) RemoveProfile(context.Context, string)                    {}
func (fakeHost) CompileShadow(context.Context, string, *v1alpha1.SchedulingProfileSpec, ...runtime.Option) (*runtime.Framework, error) {
	return &runtime.Framework{}, nil
}
func (fakeHost) InstallShadow(context.Context, *scheduler.ShadowProfile) {}
func (fakeHost) RemoveShadow(context.Context, string)                    {}
func (fakeHost) ShadowStats(string) (scheduler.ShadowStats, bool) {
	return scheduler.ShadowStats{}, false
}
func (fakeHost) ForeignBindings(string) (scheduler.ForeignBindings, bool) {
	return scheduler.ForeignBindings{}, false
}
func (fakeHost) UsageState(usage.Source) (time.Time, error) { return time.Time{}, nil }

func TestReadiness(t *testing.T) {
	tests := []struct {
		name     string
		profiles []*v1alpha1.SchedulingProfile
		// compileBefore and compileAfter are compiled before and after the listing.
		compileBefore, compileAfter []string
		invalid                     []string
		skipList, synced            bool
		wantErr                     string
	}{
		{name: "not listed yet", skipList: true, wantErr: "not been listed"},
		{name: "no profiles, caches not synced", wantErr: "informer caches have not synced"},
		{name: "no profiles, caches synced", synced: true},
		{name: "profile not compiled", profiles: []*v1alpha1.SchedulingProfile{st.Profile("p1").Obj()},
			wantErr: "profiles not compiled yet for schedulerNames p1"},
		{name: "profile compiled after listing", profiles: []*v1alpha1.SchedulingProfile{st.Profile("p1").SchedulerName("s1").Obj()},
			compileAfter: []string{"s1"}, synced: true},
		{name: "profile compiled before listing", profiles: []*v1alpha1.SchedulingProfile{st.Profile("p1").Obj()},
			compileBefore: []string{"p1"}, synced: true},
		{name: "invalid profile counts as compiled", profiles: []*v1alpha1.SchedulingProfile{st.Profile("p1").Obj()},
			compileAfter: []string{"p1"}, invalid: []string{"p1"}, synced: true},
		{name: "contenders settle with one compile", profiles: []*v1alpha1.SchedulingProfile{
			st.Profile("old").SchedulerName("s").Obj(), st.Profile("new").SchedulerName("s").Obj()},
			compileAfter: []string{"s"}, synced: true},
		{name: "one of two compiled", profiles: []*v1alpha1.SchedulingProfile{st.Profile("a").Obj(), st.Profile("b").Obj()},
			compileAfter: []string{"a"}, wantErr: "schedulerNames b"},
		{name: "deleting profile ignored", profiles: []*v1alpha1.SchedulingProfile{st.Profile("gone").Terminating(time.Now()).Finalizers("example.com/hold").Obj()}, synced: true},
		{name: "compiled profiles pass, caches still syncing", profiles: []*v1alpha1.SchedulingProfile{st.Profile("p1").Obj()},
			compileAfter: []string{"p1"}, wantErr: "informer caches"},
		{name: "many waiting are summarised", profiles: []*v1alpha1.SchedulingProfile{
			st.Profile("a").Obj(), st.Profile("b").Obj(), st.Profile("c").Obj(), st.Profile("d").Obj(),
			st.Profile("e").Obj(), st.Profile("f").Obj(), st.Profile("g").Obj()},
			wantErr: "a, b, c, d, e and 2 more"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			scheme, err := NewScheme()
			if err != nil {
				t.Fatal(err)
			}
			objs := make([]client.Object, 0, len(tc.profiles))
			for _, p := range tc.profiles {
				objs = append(objs, p)
			}
			c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).Build()
			r := newReadiness(fakeSync(tc.synced), c)
			invalid := map[string]bool{}
			for _, n := range tc.invalid {
				invalid[n] = true
			}
			host := trackingHost{ProfileHost: fakeHost{invalid: invalid}, ready: r}
			ctx := context.Background()
			compile := func(names []string) {
				for _, n := range names {
					_, _ = host.CompileProfile(ctx, n, &v1alpha1.SchedulingProfileSpec{})
				}
			}
			compile(tc.compileBefore)
			if !tc.skipList {
				if err := r.Start(ctx); err != nil {
					t.Fatalf("Start: %v", err)
				}
			}
			compile(tc.compileAfter)
			err = r.Check(nil)
			if tc.wantErr == "" {
				if err != nil {
					t.Errorf("Check() = %v, want ready", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Check() = %v, want an error containing %q", err, tc.wantErr)
			}
		})
	}
}
