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
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/berth-io/berth/internal/localcluster"
)

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's CPU times; it is 100
// on every Linux architecture Go supports.
const clockTicks = 100

// ProcStats is what a process has used so far.
type ProcStats struct {
	// CPU is user plus system CPU time.
	CPU time.Duration `json:"cpuNs"`
	// PeakRSS is the peak resident set size (VmHWM) in bytes.
	PeakRSS int64 `json:"peakRSSBytes"`
}

// ReadProcStats reads the CPU time and peak RSS of the process pid from /proc.
func ReadProcStats(pid int) (ProcStats, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ProcStats{}, fmt.Errorf("reading the stat of process %d: %w", pid, err)
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return ProcStats{}, fmt.Errorf("reading the status of process %d: %w", pid, err)
	}
	cpu, err := parseStatCPU(string(stat))
	if err != nil {
		return ProcStats{}, err
	}
	rss, err := parseStatusHWM(string(status))
	if err != nil {
		return ProcStats{}, err
	}
	return ProcStats{CPU: cpu, PeakRSS: rss}, nil
}

// componentsCPU sums the CPU time the processes have used so far.
func componentsCPU(procs []*localcluster.Process) (time.Duration, error) {
	var total time.Duration
	for _, p := range procs {
		s, err := ReadProcStats(p.Pid())
		if err != nil {
			return 0, fmt.Errorf("%s: %w", p.Name, err)
		}
		total += s.CPU
	}
	return total, nil
}

// parseStatCPU returns utime+stime from the text of /proc/<pid>/stat.
func parseStatCPU(stat string) (time.Duration, error) {
	// The command name (field 2) may hold spaces; it ends at the last ')'.
	end := strings.LastIndexByte(stat, ')')
	if end < 0 {
		return 0, fmt.Errorf("malformed /proc stat %q", stat)
	}
	fields := strings.Fields(stat[end+1:])
	// fields[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(fields) < 13 {
		return 0, fmt.Errorf("malformed /proc stat: %d fields after the command", len(fields))
	}
	var ticks int64
	for _, f := range fields[11:13] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("parsing a CPU time in /proc stat: %w", err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}

// parseStatusHWM returns VmHWM in bytes from the text of /proc/<pid>/status.
func parseStatusHWM(status string) (int64, error) {
	for line := range strings.Lines(status) {
		rest, ok := strings.CutPrefix(line, "VmHWM:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("malformed VmHWM line %q", line)
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("parsing VmHWM: %w", err)
		}
		return kb * 1024, nil
	}
	return 0, fmt.Errorf("no VmHWM in /proc status")
}
