package berthtest_test

import (
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
)

// testLogger logs through t, so logs show only for failed or verbose tests.
func testLogger(t *testing.T) logr.Logger {
	return funcr.New(func(prefix, args string) { t.Log(prefix, args) }, funcr.Options{Verbosity: 2})
}
