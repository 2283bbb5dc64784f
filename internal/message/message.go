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

// Package message bounds the messages Berth writes to the API: event notes
// and condition messages. An extender, a plugin or a compile error can
// return any amount of text; the events API refuses notes over 1 KiB, and a
// long condition message makes every status write and every watch event of
// the object bigger.
package message

import "unicode/utf8"

// MaxBytes is the longest message Berth writes, as kube-scheduler bounds its
// FailedScheduling messages.
const MaxBytes = 1024

// suffix ends a message that was cut.
const suffix = " ..."

// Truncate cuts msg to MaxBytes, on a rune boundary, ending it with " ..."
// when it was cut.
func Truncate(msg string) string { return TruncateTo(msg, MaxBytes) }

// TruncateTo cuts msg to max bytes as Truncate does, for a message that is
// part of a longer one.
func TruncateTo(msg string, max int) string {
	if len(msg) <= max {
		return msg
	}
	cut := max - len(suffix)
	if cut <= 0 {
		return suffix[1:]
	}
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + suffix
}
