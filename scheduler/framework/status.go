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

// Package framework defines the scheduling framework: the extension-point
// interfaces plugins implement, the Status they return, the per-cycle state
// they share, and the NodeInfo and QueuedPodInfo types they read.
package framework

import (
	"errors"
	"fmt"
	"strings"
)

// Code is the outcome of a plugin call.
type Code int

// Status codes, as upstream kube-scheduler defines them.
const (
	// Success means the plugin ran and the pod may go on.
	Success Code = iota
	// Error is an internal failure: the pod is requeued with backoff.
	Error
	// Unschedulable means the pod does not fit now; preemption or a cluster event may help.
	Unschedulable
	// UnschedulableAndUnresolvable means the pod does not fit and preemption cannot help.
	UnschedulableAndUnresolvable
	// Wait is returned by Permit plugins to hold the pod before binding.
	Wait
	// Skip means the plugin has nothing to do for this pod (PreFilter, PreScore, Bind).
	Skip
	// Pending means the pod waits for something outside the scheduler, not a cluster event.
	Pending
)

var codeNames = [...]string{"Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable", "Wait", "Skip", "Pending"}

// String returns the code's name.
func (c Code) String() string {
	if int(c) >= 0 && int(c) < len(codeNames) {
		return codeNames[c]
	}
	return fmt.Sprintf("Code(%d)", int(c))
}

// Status is the result of a plugin call. A nil *Status means Success.
type Status struct {
	code    Code
	reasons []string
	err     error
	plugin  string
}

// NewStatus returns a Status with the code and reasons.
func NewStatus(code Code, reasons ...string) *Status {
	s := &Status{code: code, reasons: reasons}
	if code == Error && len(reasons) > 0 {
		s.err = errors.New(s.Message())
	}
	return s
}

// skipped is the Status Skipped returns. It is never written to.
var skipped = &Status{code: Skip}

// absentUnresolvable is the status of the nodes a NodeToStatus made by
// NewNodeToStatus has none for. It is never written to.
var absentUnresolvable = &Status{code: UnschedulableAndUnresolvable}

// Skipped returns a Skip without reasons that every caller shares, for the
// PreFilter and PreScore plugins that skip most cycles: it must not be
// changed with AppendReason, and WithPlugin returns a copy of it.
func Skipped() *Status { return skipped }

// AsStatus wraps an error in a Status with code Error; a nil error is Success.
func AsStatus(err error) *Status {
	if err == nil {
		return nil
	}
	return &Status{code: Error, reasons: []string{err.Error()}, err: err}
}

// Code returns the status code; a nil Status is Success.
func (s *Status) Code() Code {
	if s == nil {
		return Success
	}
	return s.code
}

// Reasons returns the reasons the plugin gave.
func (s *Status) Reasons() []string {
	if s == nil {
		return nil
	}
	return s.reasons
}

// Message joins the reasons with ", ".
func (s *Status) Message() string {
	if s == nil {
		return ""
	}
	return strings.Join(s.reasons, ", ")
}

// Plugin returns the name of the plugin that produced the status, if set.
func (s *Status) Plugin() string {
	if s == nil {
		return ""
	}
	return s.plugin
}

// WithPlugin records the plugin that produced the status and returns it.
// A status that already names the plugin is not written to, so that a
// plugin may return one status, made once, from concurrent calls; the
// shared statuses (Skipped's, a NodeToStatus's default for absent nodes)
// are copied.
func (s *Status) WithPlugin(name string) *Status {
	if s == skipped || s == absentUnresolvable {
		c := *s
		c.plugin = name
		return &c
	}
	if s != nil && s.plugin != name {
		s.plugin = name
	}
	return s
}

// AppendReason adds a reason.
func (s *Status) AppendReason(reason string) {
	s.reasons = append(s.reasons, reason)
}

// IsSuccess reports whether the status is Success.
func (s *Status) IsSuccess() bool { return s.Code() == Success }

// IsWait reports whether the status is Wait.
func (s *Status) IsWait() bool { return s.Code() == Wait }

// IsSkip reports whether the status is Skip.
func (s *Status) IsSkip() bool { return s.Code() == Skip }

// IsRejected reports whether the pod was rejected: Unschedulable,
// UnschedulableAndUnresolvable or Pending.
func (s *Status) IsRejected() bool {
	c := s.Code()
	return c == Unschedulable || c == UnschedulableAndUnresolvable || c == Pending
}

// AsError returns the status as an error, or nil for Success and Skip.
func (s *Status) AsError() error {
	if s.IsSuccess() || s.IsSkip() {
		return nil
	}
	if s.err != nil {
		return s.err
	}
	return errors.New(s.Message())
}

// Equal reports whether two statuses have the same code, reasons and plugin.
func (s *Status) Equal(o *Status) bool {
	if s == nil || o == nil {
		return s.IsSuccess() && o.IsSuccess()
	}
	if s.code != o.code || s.plugin != o.plugin || len(s.reasons) != len(o.reasons) {
		return false
	}
	for i := range s.reasons {
		if s.reasons[i] != o.reasons[i] {
			return false
		}
	}
	return true
}

// String formats the status for logs.
func (s *Status) String() string {
	if s == nil {
		return "Success"
	}
	if s.plugin != "" {
		return fmt.Sprintf("%s(%s): %s", s.code, s.plugin, s.Message())
	}
	return fmt.Sprintf("%s: %s", s.code, s.Message())
}
