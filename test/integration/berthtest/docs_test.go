package berthtest_test

import (
	"os"
	"strings"
	"testing"
)

// TestDocsExampleIsThisTest keeps docs/testing.md's complete example
// identical to binpacking_test.go, which CI runs.
func TestDocsExampleIsThisTest(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/testing.md")
	if err != nil {
		t.Fatal(err)
	}
	example, err := os.ReadFile("binpacking_test.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "```go\n"+string(example)+"```\n") {
		t.Error("docs/testing.md no longer shows binpacking_test.go verbatim; copy the file into its Go block")
	}
}
