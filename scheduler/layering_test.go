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

package scheduler

import (
	"go/build"
	"strings"
	"testing"
)

// TestLoopImportsNoPlugin keeps the scheduling loop from reaching into a
// plugin: it may import the registry of in-tree plugins and their names,
// and reaches plugins only through the framework (Handle methods and
// runtime options).
func TestLoopImportsNoPlugin(t *testing.T) {
	const plugins = "github.com/berth-io/berth/scheduler/framework/plugins"
	allowed := map[string]bool{plugins: true, plugins + "/names": true}
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatalf("reading the package's imports: %v", err)
	}
	for _, imp := range pkg.Imports {
		if strings.HasPrefix(imp, plugins+"/") && !allowed[imp] {
			t.Errorf("the scheduling loop imports the plugin package %s; give plugins what they need through framework.Handle instead", imp)
		}
	}
}
