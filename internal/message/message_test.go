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

package message

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTruncate(t *testing.T) {
	long := strings.Repeat("x", 2000)
	runes := "a" + strings.Repeat("é", 600) // 1,201 bytes; byte 1,020 is the middle of an é
	tests := []struct {
		name, in string
		wantLen  int
		wantTail string
	}{
		{name: "short", in: "0/3 nodes are available", wantLen: 23, wantTail: "available"},
		{name: "exactly the limit", in: long[:1024], wantLen: 1024, wantTail: "xxxx"},
		{name: "over the limit", in: long, wantLen: 1024, wantTail: "x ..."},
		{name: "cut on a rune boundary", in: runes, wantLen: 1023, wantTail: "é ..."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Truncate(tt.in)
			if len(got) != tt.wantLen || !strings.HasSuffix(got, tt.wantTail) || !utf8.ValidString(got) {
				t.Errorf("Truncate = %d bytes ending %q (valid UTF-8: %v), want %d ending %q",
					len(got), got[max(0, len(got)-8):], utf8.ValidString(got), tt.wantLen, tt.wantTail)
			}
		})
	}
}

func TestTruncateTo(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{in: "generation 3 is invalid", max: 100, want: "generation 3 is invalid"},
		{in: "generation 3 is invalid", max: 14, want: "generation ..."},
		{in: "abcdef", max: 4, want: "..."},
		{in: "abcdef", max: 0, want: "..."},
	}
	for _, tt := range tests {
		if got := TruncateTo(tt.in, tt.max); got != tt.want {
			t.Errorf("TruncateTo(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
	}
}
