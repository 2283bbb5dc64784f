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

package throughput

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestParseStatCPU(t *testing.T) {
	tail := " S 1 2 3 4 5 6 7 8 9 10 250 130 0 0 20 0 1 0"
	tests := []struct {
		name    string
		stat    string
		want    time.Duration
		wantErr bool
	}{
		{name: "plain name", stat: "42 (berth)" + tail, want: 3800 * time.Millisecond},
		{name: "name with spaces and parentheses", stat: "42 (a) b (c)" + tail, want: 3800 * time.Millisecond},
		{name: "no command", stat: "42 berth", wantErr: true},
		{name: "too short", stat: "42 (berth) S 1 2", wantErr: true},
		{name: "not a number", stat: "42 (berth) S 1 2 3 4 5 6 7 8 9 10 x 130", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseStatCPU(tt.stat)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("parseStatCPU() = %v, %v; want %v, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestParseStatusHWM(t *testing.T) {
	tests := []struct {
		name    string
		status  string
		want    int64
		wantErr bool
	}{
		{name: "present", status: "Name:\tberth\nVmPeak:\t  9000 kB\nVmHWM:\t   2048 kB\nVmRSS:\t 1024 kB\n", want: 2 << 20},
		{name: "missing", status: "Name:\tberth\n", wantErr: true},
		{name: "other unit", status: "VmHWM:\t2 MB\n", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseStatusHWM(tt.status)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("parseStatusHWM() = %v, %v; want %v, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestReadProcStatsOfThisProcess(t *testing.T) {
	s, err := ReadProcStats(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if s.PeakRSS <= 0 {
		t.Errorf("peak RSS = %d, want > 0", s.PeakRSS)
	}
	if _, err := ReadProcStats(-1); err == nil || !strings.Contains(err.Error(), "process -1") {
		t.Errorf("ReadProcStats(-1) error = %v, want one naming the process", err)
	}
}
