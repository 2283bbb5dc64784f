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
	"path/filepath"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-io/berth/api/v1alpha1"
)

// profileBuilder builds SchedulingProfiles for the manager's tests.
type profileBuilder struct{ p v1alpha1.SchedulingProfile }

func makeProfile(name string) *profileBuilder {
	return &profileBuilder{p: v1alpha1.SchedulingProfile{ObjectMeta: metav1.ObjectMeta{Name: name}}}
}

func (b *profileBuilder) schedulerName(n string) *profileBuilder {
	b.p.Spec.SchedulerName = n
	return b
}

// deleting marks the profile as held by a finalizer while being deleted.
func (b *profileBuilder) deleting() *profileBuilder {
	now := metav1.Now()
	b.p.DeletionTimestamp = &now
	b.p.Finalizers = []string{"example.com/hold"}
	return b
}

func (b *profileBuilder) obj() *v1alpha1.SchedulingProfile { return b.p.DeepCopy() }

// repoRoot is the repository root as seen from this package's directory.
var repoRoot = filepath.Join("..", "..")
