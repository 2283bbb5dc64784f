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
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// AuditLogPath is where the apiserver of a cluster started WithAudit writes
// its audit log.
func (c *Cluster) AuditLogPath() string { return filepath.Join(c.LogDir(), "audit.log") }

// auditPolicy records, without bodies, the requests that bind, evict,
// delete or update pods; nothing else.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Metadata
  verbs: ["create", "delete", "deletecollection", "update", "patch"]
  resources:
  - group: ""
    resources: ["pods", "pods/binding", "pods/eviction", "pods/status"]
- level: None
`

// writeAuditPolicy writes the audit policy and returns the apiserver's
// flags that use it.
func (c *Cluster) writeAuditPolicy() ([]string, error) {
	policy := filepath.Join(c.Dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(auditPolicy), 0o600); err != nil {
		return nil, fmt.Errorf("writing the audit policy: %w", err)
	}
	if err := os.MkdirAll(c.LogDir(), 0o755); err != nil {
		return nil, fmt.Errorf("creating the log directory: %w", err)
	}
	return []string{
		"--audit-policy-file=" + policy,
		"--audit-log-path=" + c.AuditLogPath(),
		"--audit-log-format=json",
		"--audit-log-mode=batch",
		"--audit-log-batch-max-wait=1s",
		"--audit-log-maxsize=0",
	}, nil
}

// RestartAPIServer stops the apiserver as a rolling restart would (SIGTERM,
// then SIGKILL after grace), starts it again with the same flags and waits
// until it is ready. It returns how long the apiserver was unavailable, from
// the stop to ready.
func (c *Cluster) RestartAPIServer(ctx context.Context, grace time.Duration) (time.Duration, error) {
	i := -1
	for j, p := range c.components {
		if p.Name == "kube-apiserver" {
			i = j
		}
	}
	if i < 0 {
		return 0, fmt.Errorf("restarting the apiserver: it is not running")
	}
	stopped := time.Now()
	c.components[i].Stop(grace)
	p, err := StartProcess("kube-apiserver", c.LogDir(), c.output, c.apiserverBin, c.apiserverArgs...)
	if err != nil {
		return 0, fmt.Errorf("restarting the apiserver: %w", err)
	}
	c.components[i] = p
	if err := c.waitFor(ctx, "kube-apiserver to be ready again", p, func(ctx context.Context) (bool, error) {
		raw, err := c.Clientset.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		return err == nil && string(raw) == "ok", nil
	}); err != nil {
		return 0, err
	}
	return time.Since(stopped), nil
}
