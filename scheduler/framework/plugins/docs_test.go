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
	"fmt"
	"os"
	"strings"
	"testing"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/cache"
	"github.com/berth-io/berth/scheduler/framework/runtime"
)

// TestDocsListTheDefaultProfile keeps docs/plugins.md true: its table of the
// default profile must name the same plugins, in the same order, with the
// extension points and weights the runtime compiles.
func TestDocsListTheDefaultProfile(t *testing.T) {
	client := fake.NewClientset()
	fwk, err := runtime.NewFramework(context.Background(), runtime.Registry(NewInTreeRegistry()), "default-scheduler",
		&v1alpha1.SchedulingProfileSpec{},
		runtime.WithClientSet(client), runtime.WithInformerFactory(informers.NewSharedInformerFactory(client, 0)),
		runtime.WithSnapshotSharedLister(cache.NewEmptySnapshot()))
	if err != nil {
		t.Fatalf("compiling the default profile: %v", err)
	}
	var want []string
	for _, p := range fwk.ListPlugins() {
		want = append(want, row(p.Name, strings.Join(p.ExtensionPoints, ", "), p.Weight))
	}
	// Default plugins Berth has not built yet close the table.
	for _, name := range fwk.SkippedDefaultPlugins() {
		want = append(want, row(name, "not built yet", 0))
	}

	doc, err := os.ReadFile("../../../docs/plugins.md")
	if err != nil {
		t.Fatal(err)
	}
	got := tableRows(t, string(doc))
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("docs/plugins.md's default-profile table is stale; want:\n%s\n\ngot:\n%s", strings.Join(want, "\n"), strings.Join(got, "\n"))
	}
}

// row renders a table row the way docs/plugins.md writes it.
func row(name, points string, weight int32) string {
	w := "-"
	if weight > 0 {
		w = fmt.Sprint(weight)
	}
	return fmt.Sprintf("| [%s](#%s) | %s | %s |", name, strings.ToLower(name), points, w)
}

// tableRows returns the rows between the default-profile markers.
func tableRows(t *testing.T, doc string) []string {
	t.Helper()
	const begin, end = "<!-- default-profile:begin -->", "<!-- default-profile:end -->"
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("docs/plugins.md lacks the %s ... %s markers", begin, end)
	}
	var rows []string
	for _, line := range strings.Split(doc[i+len(begin):j], "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "| [") {
			continue
		}
		rows = append(rows, line)
	}
	return rows
}
