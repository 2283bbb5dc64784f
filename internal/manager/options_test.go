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

package manager

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/berth-io/berth/internal/registries"
)

func TestNewManagerOptionsDefaults(t *testing.T) {
	o, err := newManagerOptions(nil, io.Discard)
	if err != nil {
		t.Fatalf("newManagerOptions(nil): %v", err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"kubeconfig", o.kubeconfig, ""},
		{"kube-api-qps", o.kubeAPIQPS, -1.0},
		{"kube-api-burst", o.kubeAPIBurst, -1},
		{"kube-api-compression", o.kubeAPICompression, false},
		{"leader-elect", o.leaderElect, true},
		{"leader-elect-namespace", o.leaderElectNamespace, podNamespace(serviceAccountNamespaceFile)},
		{"leader-elect-lease-duration", o.leaseDuration, 15 * time.Second},
		{"leader-elect-renew-deadline", o.renewDeadline, 10 * time.Second},
		{"leader-elect-retry-period", o.retryPeriod, 2 * time.Second},
		{"graceful-shutdown-timeout", o.gracefulShutdownTimeout, 30 * time.Second},
		{"metrics-bind-address", o.metricsBindAddress, ":8443"},
		{"metrics-secure", o.metricsSecure, true},
		{"health-probe-bind-address", o.healthProbeBindAddress, ":8081"},
		{"pprof-bind-address", o.pprofBindAddress, ""},
		{"enable-http2", o.enableHTTP2, false},
		{"enable-webhook", o.enableWebhook, true},
		{"webhook-port", o.webhookPort, 9443},
		{"parallelism", o.parallelism, 16},
		{"memory-limit", o.memoryLimit, int64(0)},
		{"scheduled-events", o.scheduledEvents, true},
		{"pop-from-backoff", o.popFromBackoff, true},
		{"opportunistic-batching", o.batching, true},
		{"composite-pod-groups", o.compositePodGroups, true},
		{"default-profile", o.defaultProfile, ""},
		{"metrics-cert-dir", o.metricsCertDir, ""},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("--%s defaults to %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestNewManagerOptionsFlags(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		check func(o *managerOptions) bool
	}{
		{"kubeconfig", []string{"--kubeconfig", "/tmp/kc"}, func(o *managerOptions) bool { return o.kubeconfig == "/tmp/kc" }},
		{"client limits", []string{"--kube-api-qps=50", "--kube-api-burst=100"}, func(o *managerOptions) bool {
			return o.kubeAPIQPS == 50 && o.kubeAPIBurst == 100
		}},
		{"compression", []string{"--kube-api-compression"}, func(o *managerOptions) bool { return o.kubeAPICompression }},
		{"no leader election", []string{"--leader-elect=false"}, func(o *managerOptions) bool { return !o.leaderElect }},
		{"lease namespace", []string{"--leader-elect-namespace=kube-system"}, func(o *managerOptions) bool {
			return o.leaderElectNamespace == "kube-system"
		}},
		{"lease durations", []string{"--leader-elect-lease-duration=4s", "--leader-elect-renew-deadline=3s", "--leader-elect-retry-period=500ms"},
			func(o *managerOptions) bool {
				return o.leaseDuration == 4*time.Second && o.renewDeadline == 3*time.Second && o.retryPeriod == 500*time.Millisecond
			}},
		{"renew checks skipped without election", []string{"--leader-elect=false", "--leader-elect-renew-deadline=1h"},
			func(o *managerOptions) bool { return o.renewDeadline == time.Hour }},
		{"metrics off", []string{"--metrics-bind-address=0"}, func(o *managerOptions) bool { return o.metricsBindAddress == "0" }},
		{"metrics certificate", []string{"--metrics-cert-dir=/certs"}, func(o *managerOptions) bool { return o.metricsCertDir == "/certs" }},
		{"plain metrics", []string{"--metrics-secure=false", "--metrics-bind-address=:8080"}, func(o *managerOptions) bool {
			return !o.metricsSecure && o.metricsBindAddress == ":8080"
		}},
		{"probes", []string{"--health-probe-bind-address=127.0.0.1:9000"}, func(o *managerOptions) bool {
			return o.healthProbeBindAddress == "127.0.0.1:9000"
		}},
		{"pprof", []string{"--pprof-bind-address=:6060"}, func(o *managerOptions) bool { return o.pprofBindAddress == ":6060" }},
		{"webhook", []string{"--enable-webhook=false", "--webhook-port=10250", "--webhook-cert-dir=/certs"}, func(o *managerOptions) bool {
			return !o.enableWebhook && o.webhookPort == 10250 && o.webhookCertDir == "/certs"
		}},
		{"parallelism", []string{"--parallelism=4"}, func(o *managerOptions) bool { return o.parallelism == 4 }},
		{"shutdown", []string{"--graceful-shutdown-timeout=0s"}, func(o *managerOptions) bool { return o.gracefulShutdownTimeout == 0 }},
		{"zap flags", []string{"--zap-devel", "--zap-log-level=debug"}, func(o *managerOptions) bool {
			return o.zap.Development && o.zap.Level != nil
		}},
		{"single dash", []string{"-parallelism", "8"}, func(o *managerOptions) bool { return o.parallelism == 8 }},
		{"no scheduled events", []string{"--scheduled-events=false"}, func(o *managerOptions) bool { return !o.scheduledEvents }},
		{"no pop from backoff", []string{"--pop-from-backoff=false"}, func(o *managerOptions) bool { return !o.popFromBackoff }},
		{"no batching", []string{"--opportunistic-batching=false"}, func(o *managerOptions) bool { return !o.batching }},
		{"no composite pod groups", []string{"--composite-pod-groups=false"}, func(o *managerOptions) bool { return !o.compositePodGroups }},
		{"memory limit", []string{"--memory-limit=128Mi"}, func(o *managerOptions) bool { return o.memoryLimit == 128<<20 }},
		{"memory limit in decimal units", []string{"--memory-limit=1G"}, func(o *managerOptions) bool { return o.memoryLimit == 1e9 }},
		{"default profile", []string{"--default-profile=berth"}, func(o *managerOptions) bool { return o.defaultProfile == "berth" }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, err := newManagerOptions(tc.args, io.Discard)
			if err != nil {
				t.Fatalf("newManagerOptions(%q): %v", tc.args, err)
			}
			if !tc.check(o) {
				t.Errorf("newManagerOptions(%q) = %+v", tc.args, *o)
			}
		})
	}
}

func TestNewManagerOptionsErrors(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"unknown flag", []string{"--no-such-flag"}, "flag provided but not defined"},
		{"positional argument", []string{"extra"}, "unexpected arguments: extra"},
		{"zero parallelism", []string{"--parallelism=0"}, "--parallelism must be positive"},
		{"bad duration", []string{"--leader-elect-lease-duration=soon"}, "invalid value"},
		{"lease not longer than renew", []string{"--leader-elect-lease-duration=10s"}, "must be longer than --leader-elect-renew-deadline"},
		{"renew not longer than retry", []string{"--leader-elect-retry-period=10s"}, "must be longer than a positive --leader-elect-retry-period"},
		{"qps without burst", []string{"--kube-api-qps=20"}, "--kube-api-burst must be positive"},
		{"bad port", []string{"--webhook-port=70000"}, "is not a port"},
		{"negative shutdown", []string{"--graceful-shutdown-timeout=-1s"}, "must not be negative"},
		{"bad zap level", []string{"--zap-log-level=loud"}, "invalid value"},
		{"memory limit not a quantity", []string{"--memory-limit=lots"}, "not a quantity"},
		{"zero memory limit", []string{"--memory-limit=0"}, "must be positive"},
		{"default profile not a name", []string{"--default-profile=Berth_1"}, `--default-profile "Berth_1"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := newManagerOptions(tc.args, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("newManagerOptions(%q) error = %v, want one containing %q", tc.args, err, tc.wantErr)
			}
		})
	}
}

func TestNewManagerOptionsHelp(t *testing.T) {
	var out bytes.Buffer
	if _, err := newManagerOptions([]string{"-h"}, &out); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("newManagerOptions(-h) error = %v, want flag.ErrHelp", err)
	}
	for _, want := range []string{"Usage: berth manager", "-leader-elect-namespace", "-zap-log-level", "-kube-api-qps"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("usage does not mention %q:\n%s", want, out.String())
		}
	}
}

// TestConvertNamesManagerFlags keeps `berth convert`'s warnings, which send
// users to manager flags, in step with the flags.
func TestConvertNamesManagerFlags(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(repoRoot, "internal", "convert", "convert.go"))
	if err != nil {
		t.Fatal(err)
	}
	fs := managerFlags(&managerOptions{}, io.Discard)
	named := regexp.MustCompile("`(?:berth manager )?--([a-z0-9-]+)").FindAllStringSubmatch(string(src), -1)
	if len(named) < 6 {
		t.Fatalf("found %d flag names in internal/convert/convert.go, want at least 6", len(named))
	}
	for _, m := range named {
		if fs.Lookup(m[1]) == nil {
			t.Errorf("internal/convert/convert.go names --%s, which `berth manager` does not have", m[1])
		}
	}
}

func TestPodNamespace(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name, path, want string
	}{
		{"in a pod", write("ns", "scheduling\n"), "scheduling"},
		{"empty file", write("empty", " \n"), defaultNamespace},
		{"outside a pod", filepath.Join(dir, "missing"), defaultNamespace},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := podNamespace(tc.path); got != tc.want {
				t.Errorf("podNamespace(%s) = %q, want %q", tc.path, got, tc.want)
			}
		})
	}
}

func TestRunManagerExitCodes(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "kubeconfig")
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStderr string
	}{
		{"help", []string{"--help"}, exitOK, "Usage: berth manager"},
		{"bad flag", []string{"--parallelism=-3"}, exitUsage, "berth manager: --parallelism must be positive"},
		{"unreadable kubeconfig", []string{"--kubeconfig", missing, "--zap-encoder=console"}, exitFailed, "loading the kubeconfig"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			if code := Main(context.Background(), tc.args, &stderr, "test", registries.InTree()); code != tc.wantCode {
				t.Errorf("Main(%q) = %d, want %d; stderr:\n%s", tc.args, code, tc.wantCode, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.wantStderr) {
				t.Errorf("stderr does not contain %q:\n%s", tc.wantStderr, stderr.String())
			}
		})
	}
}

// TestDocsListEveryFlag keeps docs/manager.md's flags table complete.
func TestDocsListEveryFlag(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(repoRoot, "docs", "manager.md"))
	if err != nil {
		t.Fatal(err)
	}
	managerFlags(&managerOptions{}, io.Discard).VisitAll(func(f *flag.Flag) {
		if !strings.Contains(string(doc), "| `--"+f.Name+"` |") {
			t.Errorf("docs/manager.md has no row for --%s", f.Name)
		}
	})
}
