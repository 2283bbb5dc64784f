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

package algorithm

import (
	"fmt"
	"strings"

	"github.com/berth-io/berth/scheduler/framework"
)

// MsgGroupUnschedulable is what kube-scheduler puts first in the message
// of a PodGroup that its cycle could not place.
const MsgGroupUnschedulable = "pod group is unschedulable"

// Status is the outcome of a group's cycle, or of one placement's try. It
// keeps upstream's shape so that the messages come out as kube-scheduler
// writes them: a status made by GroupUnschedulable carries "pod group is
// unschedulable" as its error, which leads its message and stands for it
// where the status is quoted as an error.
type Status struct {
	Code    framework.Code
	Reasons []string
	// Plugin names the plugin that decided the status, when one did.
	Plugin string
	// groupError marks the status's error as MsgGroupUnschedulable.
	groupError bool
}

// Message joins the status's reasons, as a pod or PodGroup condition shows them.
func (s Status) Message() string {
	if s.groupError {
		return strings.Join(append([]string{MsgGroupUnschedulable}, s.Reasons...), ", ")
	}
	return strings.Join(s.Reasons, ", ")
}

// AsError is the status quoted as an error.
func (s Status) AsError() string {
	if s.groupError {
		return MsgGroupUnschedulable
	}
	return s.Message()
}

// Rejected reports whether the status is Unschedulable or UnschedulableAndUnresolvable.
func (s Status) Rejected() bool { return framework.NewStatus(s.Code).IsRejected() }

// Success reports whether the status is Success.
func (s Status) Success() bool { return s.Code == framework.Success }

// WithReason returns the status with reason added after its own.
func (s Status) WithReason(reason string) Status {
	s.Reasons = append(append(make([]string, 0, len(s.Reasons)+1), s.Reasons...), reason)
	return s
}

// Succeeded is a Success status.
func Succeeded() Status { return Status{Code: framework.Success} }

// FromStatus turns a plugin's status into a group's.
func FromStatus(st *framework.Status) Status {
	return Status{Code: st.Code(), Reasons: append([]string(nil), st.Reasons()...), Plugin: st.Plugin()}
}

// GroupUnschedulable is an Unschedulable status with upstream's error.
func GroupUnschedulable(reasons ...string) Status {
	return Status{Code: framework.Unschedulable, Reasons: reasons, groupError: true}
}

// Errorf is an Error status.
func Errorf(format string, a ...any) Status {
	return Status{Code: framework.Error, Reasons: []string{fmt.Sprintf(format, a...)}}
}

// NoPlacementFits is the status of a group that fits in none of the n
// placements tried, quoting the first one's, in upstream's words.
func NoPlacementFits(n int, first Status) Status {
	return GroupUnschedulable(fmt.Sprintf("0/%d placements are available, first placement status: %v", n, first.AsError()))
}
