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

package e2e_test

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/berth-io/berth/internal/localcluster"
	"github.com/berth-io/berth/test/localsuite"
)

// leaseNamespace holds the managers' leader-election Lease.
const leaseNamespace = "kube-system"

// leaseFlags shorten the Lease from the default 15 s to 10 s: a standby then
// takes over 10-14 s after the leader dies (the lease, up to one retry period
// to notice the last renewal, one more to retry), which leaves the 20 s
// failover budget a margin on a loaded CI machine. With the defaults the
// takeover measured 18 s.
var leaseFlags = []string{
	"--leader-elect-lease-duration=10s",
	"--leader-elect-renew-deadline=8s",
	"--leader-elect-retry-period=2s",
}

// manager is one `berth manager` process.
type manager struct {
	*localcluster.Process
	healthURL string
}

// startManager runs berth manager with leader election on and registers
// its stop as a cleanup; extra flags come last, so they override.
func startManager(name string, extra ...string) *manager {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	port := l.Addr().(*net.TCPAddr).Port
	Expect(l.Close()).To(Succeed())
	args := append([]string{
		"manager",
		"--kubeconfig=" + cluster.Kubeconfig,
		"--leader-elect=true",
		"--leader-elect-namespace=" + leaseNamespace,
		"--enable-webhook=false",
		"--metrics-bind-address=0",
		"--health-probe-bind-address=127.0.0.1:" + strconv.Itoa(port),
		"--zap-encoder=console",
	}, leaseFlags...)
	args = append(args, extra...)
	p, err := localcluster.StartProcess(name, cluster.LogDir(), GinkgoWriter, filepath.Join(binDir, "berth"), args...)
	Expect(err).NotTo(HaveOccurred())
	m := &manager{Process: p, healthURL: fmt.Sprintf("http://127.0.0.1:%d/readyz", port)}
	DeferCleanup(func() { m.Stop(30 * time.Second) })
	return m
}

// waitReady waits until the manager answers /readyz with 200.
func (m *manager) waitReady(ctx context.Context) {
	GinkgoHelper()
	localsuite.WaitReady(ctx, m.Process, m.healthURL)
}
