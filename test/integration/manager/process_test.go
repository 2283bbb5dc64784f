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

package manager_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// manager is a running `berth manager` process.
type manager struct {
	cmd         *exec.Cmd
	probeAddr   string
	metricsAddr string
	done        chan struct{}
	exitCode    int
	logs        *syncBuffer
}

// syncBuffer collects a process's output for the assertions and the report.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startManager runs berth manager against the test apiserver with short
// Lease timings and its own ports; extra flags are appended. The process is
// killed when the spec ends, if it still runs.
func startManager(extra ...string) *manager {
	GinkgoHelper()
	wo := &testEnv.WebhookInstallOptions
	// The webhook port is envtest's; it is free while no manager runs, so
	// the other two must be kept off it explicitly.
	webhookAddr := net.JoinHostPort("127.0.0.1", strconv.Itoa(wo.LocalServingPort))
	probeAddr := freeAddr(webhookAddr)
	m := &manager{probeAddr: probeAddr, metricsAddr: freeAddr(webhookAddr, probeAddr), done: make(chan struct{}), logs: &syncBuffer{}}
	args := append([]string{"manager",
		"--kubeconfig", kubeconfig,
		"--health-probe-bind-address", m.probeAddr,
		"--metrics-bind-address", m.metricsAddr,
		"--webhook-port", strconv.Itoa(wo.LocalServingPort),
		"--webhook-cert-dir", wo.LocalServingCertDir,
		"--leader-elect-lease-duration=4s", "--leader-elect-renew-deadline=3s", "--leader-elect-retry-period=500ms",
		"--graceful-shutdown-timeout=20s",
		"--zap-encoder=console",
	}, extra...)
	m.cmd = exec.Command(berthBinary, args...)
	m.cmd.Stdout = io.MultiWriter(GinkgoWriter, m.logs)
	m.cmd.Stderr = io.MultiWriter(GinkgoWriter, m.logs)
	Expect(m.cmd.Start()).To(Succeed())
	go func() {
		err := m.cmd.Wait()
		var exit *exec.ExitError
		switch {
		case err == nil:
			m.exitCode = 0
		case errors.As(err, &exit):
			m.exitCode = exit.ExitCode()
		default:
			m.exitCode = -1
		}
		close(m.done)
	}()
	DeferCleanup(func() {
		if !m.exited() {
			_ = m.cmd.Process.Kill()
			<-m.done
		}
	})
	return m
}

// exited reports whether the process has ended.
func (m *manager) exited() bool {
	select {
	case <-m.done:
		return true
	default:
		return false
	}
}

// signal sends sig to the process.
func (m *manager) signal(sig syscall.Signal) {
	GinkgoHelper()
	Expect(m.cmd.Process.Signal(sig)).To(Succeed())
}

// waitExit waits up to timeout for the process to end and returns its exit code.
func (m *manager) waitExit(timeout time.Duration) int {
	GinkgoHelper()
	select {
	case <-m.done:
		return m.exitCode
	case <-time.After(timeout):
		Fail(fmt.Sprintf("berth manager did not exit within %s", timeout))
		return -1
	}
}

// probe returns the status code of GET path on the health probe server.
func (m *manager) probe(ctx context.Context, path string) (int, error) {
	return get(ctx, http.DefaultClient, "http://"+m.probeAddr+path, "")
}

// metrics returns the status code and body of GET /metrics with token.
func (m *manager) metrics(ctx context.Context, token string) (int, string, error) {
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // the manager's self-signed certificate
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+m.metricsAddr+"/metrics", nil)
	if err != nil {
		return 0, "", err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// get returns the status code of a GET.
func get(ctx context.Context, c *http.Client, url, token string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode, nil
}

// freeAddr returns a loopback address with a port nobody listens on now,
// other than the addresses to avoid (ports handed out but not yet bound).
func freeAddr(avoid ...string) string {
	GinkgoHelper()
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		addr := l.Addr().String()
		Expect(l.Close()).To(Succeed())
		if !slices.Contains(avoid, addr) {
			return addr
		}
	}
	Fail("found no free loopback port")
	return ""
}
