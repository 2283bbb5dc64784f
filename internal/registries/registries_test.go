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

package registries

import (
	"context"
	"strings"
	"testing"

	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/plugins/names"
	"github.com/berth-io/berth/scheduler/rebalance/strategies"
)

func newPlugin(context.Context, []byte, framework.Handle) (framework.Plugin, error) { return nil, nil }

func newStrategy([]byte) (strategies.Strategy, error) { return nil, nil }

func TestAdd(t *testing.T) {
	tests := []struct {
		name       string
		plugins    []Plugin
		strategies []Strategy
		wantErr    string
	}{
		{name: "nothing added"},
		{name: "a plugin and a strategy", plugins: []Plugin{{Name: "NodeLabel", Factory: newPlugin}},
			strategies: []Strategy{{Name: "DrainByLabel", Factory: newStrategy}}},
		{name: "an in-tree plugin's name", plugins: []Plugin{{Name: names.NodeResourcesFit, Factory: newPlugin}},
			wantErr: `adding plugin "NodeResourcesFit": plugin "NodeResourcesFit" is already registered`},
		{name: "a plugin added twice", plugins: []Plugin{{Name: "NodeLabel", Factory: newPlugin}, {Name: "NodeLabel", Factory: newPlugin}},
			wantErr: `adding plugin "NodeLabel": plugin "NodeLabel" is already registered`},
		{name: "an in-tree strategy's name", strategies: []Strategy{{Name: "RemoveDuplicates", Factory: newStrategy}},
			wantErr: `adding strategy "RemoveDuplicates": strategy "RemoveDuplicates" is already registered`},
		{name: "a plugin without a name", plugins: []Plugin{{Factory: newPlugin}}, wantErr: "a plugin needs a name and a factory"},
		{name: "a plugin without a factory", plugins: []Plugin{{Name: "NodeLabel"}}, wantErr: "a plugin needs a name and a factory"},
		{name: "a strategy without a factory", strategies: []Strategy{{Name: "DrainByLabel"}}, wantErr: "a strategy needs a name and a factory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := InTree()
			inTree := len(s.Plugins) + len(s.Strategies)
			err := s.Add(tt.plugins, tt.strategies)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Add = %v, want an error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got, want := len(s.Plugins)+len(s.Strategies), inTree+len(tt.plugins)+len(tt.strategies); got != want {
				t.Errorf("%d plugins and strategies, want %d", got, want)
			}
			for _, p := range tt.plugins {
				if s.Plugins[p.Name] == nil {
					t.Errorf("plugin %s missing", p.Name)
				}
			}
			for _, st := range tt.strategies {
				if s.Strategies[st.Name] == nil {
					t.Errorf("strategy %s missing", st.Name)
				}
			}
		})
	}
}

func TestInTreeIsNewEachTime(t *testing.T) {
	a := InTree()
	if err := a.Add([]Plugin{{Name: "NodeLabel", Factory: newPlugin}}, nil); err != nil {
		t.Fatal(err)
	}
	if _, ok := InTree().Plugins["NodeLabel"]; ok {
		t.Error("a plugin added to one Set shows in the next InTree")
	}
}

func TestCheck(t *testing.T) {
	if err := InTree().Check(); err != nil {
		t.Errorf("InTree().Check() = %v", err)
	}
	if err := (Set{Plugins: InTree().Plugins}).Check(); err == nil {
		t.Error("a Set without strategies passes Check")
	}
}
