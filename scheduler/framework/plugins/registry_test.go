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

package plugins

import (
	"context"
	"testing"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/berth-io/berth/scheduler/cache"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/dra"
	"github.com/berth-io/berth/scheduler/framework/runtime"
)

// clientHandle is a Handle that provides what plugin factories take: a
// client set, its informers, a snapshot and a parallelizer.
type clientHandle struct {
	framework.Handle
	client  kubernetes.Interface
	factory informers.SharedInformerFactory
}

func (clientHandle) SnapshotSharedLister() framework.SharedLister { return cache.NewEmptySnapshot() }

func (clientHandle) Parallelizer() framework.Parallelizer { return runtime.NewParallelizer(2) }

func (h clientHandle) ClientSet() kubernetes.Interface { return h.client }

func (h clientHandle) SharedInformerFactory() informers.SharedInformerFactory { return h.factory }

func (clientHandle) AllocatedDevices() *dra.AllocatedDevices { return nil }

func (clientHandle) ResourceSlices() dra.SliceSource { return nil }

func (clientHandle) NodeUsage() framework.UsageProvider { return nil }

func TestNewInTreeRegistry(t *testing.T) {
	r := NewInTreeRegistry()
	client := fake.NewClientset()
	h := clientHandle{client: client, factory: informers.NewSharedInformerFactory(client, 0)}
	for name, factory := range r {
		t.Run(name, func(t *testing.T) {
			pl, err := factory(context.Background(), nil, h)
			if err != nil {
				t.Fatalf("factory with default args: %v", err)
			}
			if pl.Name() != name {
				t.Errorf("plugin registered as %q is named %q", name, pl.Name())
			}
			if _, err := factory(context.Background(), []byte(`{"noSuchField":1}`), h); err == nil {
				t.Error("unknown args field: want error")
			}
		})
	}
	r["x"] = nil
	if _, ok := NewInTreeRegistry()["x"]; ok {
		t.Error("registries share state")
	}
}
