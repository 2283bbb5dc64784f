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

// Package podlog gives the scheduling loop and the algorithm a logger that
// names the pod it works on, at no cost when nothing is logged.
package podlog

import (
	"context"
	"slices"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
)

// For returns the context's logger with the pod's key. The key is
// attached lazily: a structured sink such as zap encodes values as soon as
// they are attached, and at the default verbosity a cycle usually logs
// nothing, so the encoding would be spent on every pod for no line.
func For(ctx context.Context, pod *v1.Pod) logr.Logger {
	return WithDeferredValues(klog.FromContext(ctx), "pod", klog.KObj(pod))
}

// WithDeferredValues returns logger with keysAndValues attached only when a
// line is written.
func WithDeferredValues(logger logr.Logger, keysAndValues ...any) logr.Logger {
	sink := logger.GetSink()
	if sink == nil {
		return logger
	}
	// The wrapper is one more frame between the caller and the sink.
	if cd, ok := sink.(logr.CallDepthLogSink); ok {
		sink = cd.WithCallDepth(1)
	}
	return logger.WithSink(&deferredSink{parent: sink, kv: keysAndValues})
}

// deferredSink holds key/value pairs for its parent sink and attaches them
// when it writes a line.
type deferredSink struct {
	parent logr.LogSink
	kv     []any
}

var _ logr.LogSink = &deferredSink{}

// Init is a no-op: the parent sink was initialized by its own logger.
func (*deferredSink) Init(logr.RuntimeInfo) {}

// Enabled asks the parent.
func (d *deferredSink) Enabled(level int) bool { return d.parent.Enabled(level) }

// Info writes a line through the parent with the held pairs attached.
func (d *deferredSink) Info(level int, msg string, keysAndValues ...any) {
	d.parent.WithValues(d.kv...).Info(level, msg, keysAndValues...)
}

// Error writes an error line through the parent with the held pairs attached.
func (d *deferredSink) Error(err error, msg string, keysAndValues ...any) {
	d.parent.WithValues(d.kv...).Error(err, msg, keysAndValues...)
}

// WithValues holds more pairs, after the ones it has.
func (d *deferredSink) WithValues(keysAndValues ...any) logr.LogSink {
	return &deferredSink{parent: d.parent, kv: append(slices.Clip(d.kv), keysAndValues...)}
}

// WithName names the parent.
func (d *deferredSink) WithName(name string) logr.LogSink {
	return &deferredSink{parent: d.parent.WithName(name), kv: d.kv}
}

// WithCallDepth offsets the parent's caller information, when it has any.
func (d *deferredSink) WithCallDepth(depth int) logr.LogSink {
	if cd, ok := d.parent.(logr.CallDepthLogSink); ok {
		return &deferredSink{parent: cd.WithCallDepth(depth), kv: d.kv}
	}
	return d
}
