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

package berthtest_test

import (
	"os"
	"strings"
	"testing"
)

// TestDocsExampleIsThisTest keeps docs/testing.md's complete example
// identical to binpacking_test.go, which CI runs, but for the file's
// license header.
func TestDocsExampleIsThisTest(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/testing.md")
	if err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile("binpacking_test.go")
	if err != nil {
		t.Fatal(err)
	}
	example := string(file)
	if strings.HasPrefix(example, "/*") {
		_, example, _ = strings.Cut(example, "*/\n\n")
	}
	if !strings.Contains(string(doc), "```go\n"+example+"```\n") {
		t.Error("docs/testing.md no longer shows binpacking_test.go (after its license header) verbatim; copy the file into its Go block")
	}
}
