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

package webhook

import (
	"context"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins"
	fwkruntime "github.com/berth-io/berth/scheduler/framework/runtime"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// makeWeight returns a PluginWeight of the plugin on the default-scheduler profile.
func makeWeight(name, plugin string, w int32) *v1alpha1.PluginWeight {
	return st.PluginWeight(name, plugin, w).Profile("default-scheduler").Obj()
}

// fifoSort is an out-of-tree QueueSort plugin, to test the shared-queue rule.
type fifoSort struct{}

func (fifoSort) Name() string { return "FifoSort" }

func (fifoSort) Less(a, b *framework.QueuedPodInfo) bool { return a.Timestamp.Before(b.Timestamp) }

// testRegistry is the in-tree registry plus fifoSort.
func testRegistry() fwkruntime.Registry {
	r := fwkruntime.Registry(plugins.NewInTreeRegistry())
	_ = r.Register("FifoSort", func(context.Context, []byte, framework.Handle) (framework.Plugin, error) {
		return fifoSort{}, nil
	})
	return r
}
