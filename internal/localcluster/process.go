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

package localcluster

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// Process is a component running in its own process group, so that stopping
// it also stops whatever it started.
type Process struct {
	// Name names the component in logs and errors.
	Name string
	// LogFile is where the component's output is written.
	LogFile string

	cmd     *exec.Cmd
	logFile *os.File
	done    chan struct{}
	err     error
}

// StartProcess runs binary with args in a new process group, writing its
// stdout and stderr to logDir/<name>.log and, when output is not nil, to
// output with every line prefixed by "[name] ".
func StartProcess(name, logDir string, output io.Writer, binary string, args ...string) (*Process, error) {
	return startProcessWithAttr(name, logDir, output, processGroupAttr(), binary, args...)
}

// startProcessWithAttr is StartProcess with the child's attributes, which
// must put it in a process group of its own.
func startProcessWithAttr(name, logDir string, output io.Writer, attr *syscall.SysProcAttr, binary string, args ...string) (*Process, error) {
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return nil, fmt.Errorf("creating the log directory: %w", err)
	}
	logPath := filepath.Join(logDir, name+".log")
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening %s's log: %w", name, err)
	}
	var w io.Writer = f
	if output != nil {
		w = io.MultiWriter(f, &linePrefixer{prefix: []byte("[" + name + "] "), out: output})
	}
	cmd := exec.Command(binary, args...)
	cmd.Stdout, cmd.Stderr = w, w
	cmd.SysProcAttr = attr
	if err := cmd.Start(); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &Process{Name: name, LogFile: logPath, cmd: cmd, logFile: f, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		// Whatever the component left behind in its group goes with it.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = f.Close()
		close(p.done)
	}()
	return p, nil
}

// Pid returns the process id, which is also its process group id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Done is closed when the process has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Err returns how the process ended; call it after Done is closed.
func (p *Process) Err() error { return p.err }

// Exited reports whether the process has ended.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Stop sends SIGTERM to the process group, waits up to grace for the process
// to exit, then kills the group. It returns once the process has exited.
func (p *Process) Stop(grace time.Duration) {
	if p.Exited() {
		return
	}
	_ = syscall.Kill(-p.Pid(), syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		p.Kill()
	}
}

// Kill kills the process group at once, as a crash would, and waits for the
// process to exit.
func (p *Process) Kill() {
	_ = syscall.Kill(-p.Pid(), syscall.SIGKILL)
	<-p.done
}

// Signal sends sig to the process alone, not its group.
func (p *Process) Signal(sig syscall.Signal) error {
	if err := p.cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("signalling %s: %w", p.Name, err)
	}
	return nil
}

// linePrefixer writes whole lines to out, each starting with prefix; it is
// safe for concurrent use, so stdout and stderr may share it.
type linePrefixer struct {
	mu     sync.Mutex
	prefix []byte
	out    io.Writer
	buf    []byte
}

func (l *linePrefixer) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, b...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			break
		}
		line := make([]byte, 0, len(l.prefix)+i+1)
		line = append(append(line, l.prefix...), l.buf[:i+1]...)
		if _, err := l.out.Write(line); err != nil {
			return len(b), fmt.Errorf("writing a log line: %w", err)
		}
		l.buf = l.buf[i+1:]
	}
	return len(b), nil
}

// tailLog returns the last n lines of a component's log, for error messages.
func tailLog(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer func() { _ = f.Close() }()
	var lines []string
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 64*1024), 1024*1024)
	for s.Scan() {
		lines = append(lines, s.Text())
		if len(lines) > n {
			lines = lines[1:]
		}
	}
	var out bytes.Buffer
	for _, l := range lines {
		out.WriteString(l)
		out.WriteByte('\n')
	}
	return out.String()
}
