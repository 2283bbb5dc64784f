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

package podlog

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"k8s.io/klog/v2"

	st "github.com/berth-io/berth/scheduler/schedtest"
)

// countingSink counts the WithValues calls that reach a sink.
type countingSink struct {
	logr.LogSink
	withValues *int
}

func (c countingSink) WithValues(kv ...any) logr.LogSink {
	*c.withValues++
	return countingSink{LogSink: c.LogSink.WithValues(kv...), withValues: c.withValues}
}

func (c countingSink) WithCallDepth(depth int) logr.LogSink {
	return countingSink{LogSink: c.LogSink.(logr.CallDepthLogSink).WithCallDepth(depth), withValues: c.withValues}
}

func TestDeferredValuesLogLikeEagerOnes(t *testing.T) {
	tests := []struct {
		name string
		log  func(l logr.Logger)
	}{
		{name: "info", log: func(l logr.Logger) { l.Info("bound", "node", "n1") }},
		{name: "verbose", log: func(l logr.Logger) { l.V(1).Info("tried", "nodes", 3) }},
		{name: "error", log: func(l logr.Logger) { l.Error(errors.New("boom"), "failed") }},
		{name: "more values", log: func(l logr.Logger) { l.WithValues("cycle", 7).Info("bound") }},
		{name: "named", log: func(l logr.Logger) { l.WithName("binder").Info("bound") }},
		{name: "call depth", log: func(l logr.Logger) { l.WithCallDepth(0).Info("bound") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var lines []string
			base := funcr.New(func(prefix, args string) { lines = append(lines, prefix+" "+args) },
				funcr.Options{LogCaller: funcr.All, Verbosity: 1})
			pod := st.Pod("p").Namespace("bench").Obj()
			tt.log(base.WithValues("pod", klog.KObj(pod)))
			tt.log(WithDeferredValues(base, "pod", klog.KObj(pod)))
			if len(lines) != 2 {
				t.Fatalf("%d lines, want 2: %q", len(lines), lines)
			}
			// Both lines come from the same source line: the caller
			// information must name it, not the wrapper.
			if lines[0] != lines[1] {
				t.Errorf("deferred values logged\n%s\nwant\n%s", lines[1], lines[0])
			}
			if !strings.Contains(lines[1], `"pod"={"name"="p" "namespace"="bench"}`) || !strings.Contains(lines[1], "podlog_test.go") {
				t.Errorf("line %s lacks the pod or the caller", lines[1])
			}
		})
	}
}

func TestDeferredValuesCostNothingUnlessLogged(t *testing.T) {
	var withValues int
	base := funcr.New(func(string, string) {}, funcr.Options{Verbosity: 0})
	logger := logr.New(countingSink{LogSink: base.GetSink(), withValues: &withValues})
	l := WithDeferredValues(logger, "pod", "ns/p")
	l.V(4).Info("not written")
	if withValues != 0 {
		t.Errorf("a line that is not written attached values %d times", withValues)
	}
	l.Info("written")
	if withValues != 1 {
		t.Errorf("a written line attached values %d times, want 1", withValues)
	}
	if got := WithDeferredValues(logr.Discard(), "pod", "ns/p"); got.GetSink() != nil {
		t.Errorf("a discarding logger got a sink: %T", got.GetSink())
	}
}
