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
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/clientcmd"
)

func TestDecodeManifests(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []string // kind/name
		wantErr string
	}{
		{
			name: "several documents, empty ones skipped",
			in:   "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: a}\n",
			want: []string{"Namespace/a", "ConfigMap/b"},
		},
		{
			name: "kustomization skipped",
			in:   "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [x.yaml]\n",
		},
		{
			name: "json",
			in:   `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"j"}}`,
			want: []string{"Namespace/j"},
		},
		{
			name:    "no name",
			in:      "apiVersion: v1\nkind: Namespace\n",
			wantErr: "document 1 has no apiVersion, kind or metadata.name",
		},
		{
			name:    "not yaml",
			in:      "apiVersion: [\n",
			wantErr: "decoding document 1",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := DecodeManifests(strings.NewReader(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, o := range objs {
				got = append(got, o.GetKind()+"/"+o.GetName())
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("objects = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestWritePKI(t *testing.T) {
	dir := t.TempDir()
	p, err := writePKI(dir, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(p.caPEM) {
		t.Fatal("the CA does not parse")
	}
	frontProxyRoots := x509.NewCertPool()
	frontProxyRoots.AddCert(readCert(t, p.frontProxyCACert))
	tests := []struct {
		name    string
		file    string
		roots   *x509.CertPool
		usage   x509.ExtKeyUsage
		dnsName string
		org     string
		cn      string
	}{
		{name: "serving", file: p.servingCert, usage: x509.ExtKeyUsageServerAuth, dnsName: "127.0.0.1"},
		{name: "serving by name", file: p.servingCert, usage: x509.ExtKeyUsageServerAuth, dnsName: "localhost"},
		{name: "admin", file: p.adminCert, usage: x509.ExtKeyUsageClientAuth, org: "system:masters"},
		// The aggregator verifies an APIService's backend by its Service's name.
		{name: "metrics-server", file: p.metricsServerCert, usage: x509.ExtKeyUsageServerAuth, dnsName: "metrics-server.kube-system.svc"},
		{name: "kwok", file: p.kwokCert, usage: x509.ExtKeyUsageServerAuth, dnsName: "127.0.0.1"},
		{name: "front proxy client", file: p.proxyClientCert, roots: frontProxyRoots, usage: x509.ExtKeyUsageClientAuth, cn: frontProxyClientName},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cert := readCert(t, tt.file)
			opts := x509.VerifyOptions{Roots: roots, DNSName: tt.dnsName, KeyUsages: []x509.ExtKeyUsage{tt.usage}}
			if tt.roots != nil {
				opts.Roots = tt.roots
			}
			if _, err := cert.Verify(opts); err != nil {
				t.Errorf("verify: %v", err)
			}
			if tt.org != "" && (len(cert.Subject.Organization) != 1 || cert.Subject.Organization[0] != tt.org) {
				t.Errorf("organization = %v, want %s", cert.Subject.Organization, tt.org)
			}
			if tt.cn != "" && cert.Subject.CommonName != tt.cn {
				t.Errorf("common name = %q, want %q", cert.Subject.CommonName, tt.cn)
			}
		})
	}
	// The cluster's CA must not vouch for the front proxy: a client
	// certificate of the cluster's CA may not assert another user's identity.
	if _, err := readCert(t, p.adminCert).Verify(x509.VerifyOptions{Roots: frontProxyRoots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err == nil {
		t.Error("the front proxy's CA verifies the administrator's certificate")
	}
	for _, f := range []string{p.servingKey, p.adminKey, p.saPrivate, p.saPublic, p.proxyClientKey, p.metricsServerKey, p.kwokKey} {
		if info, err := os.Stat(f); err != nil || info.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, mode %v; want a 0600 file", f, err, info.Mode())
		}
	}

	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := writeKubeconfig(kubeconfig, "https://127.0.0.1:6443", p); err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "https://127.0.0.1:6443" || !bytes.Equal(cfg.CAData, p.caPEM) || len(cfg.CertData) == 0 || len(cfg.KeyData) == 0 {
		t.Errorf("kubeconfig gives host %q and %d/%d/%d bytes of CA/cert/key", cfg.Host, len(cfg.CAData), len(cfg.CertData), len(cfg.KeyData))
	}
}

func readCert(t *testing.T, file string) *x509.Certificate {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(raw)
	if block == nil {
		t.Fatalf("%s holds no PEM block", file)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

func TestProcessStop(t *testing.T) {
	tests := []struct {
		name   string
		script string
		stop   func(p *Process)
	}{
		// The child leaves a grandchild behind; stopping must end both.
		{name: "SIGTERM", script: "sleep 60 & wait", stop: func(p *Process) { p.Stop(5 * time.Second) }},
		{name: "SIGTERM ignored, killed after the grace period", script: "trap '' TERM; sleep 60 & wait; sleep 60", stop: func(p *Process) { p.Stop(300 * time.Millisecond) }},
		{name: "Kill", script: "sleep 60 & wait", stop: func(p *Process) { p.Kill() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			p, err := StartProcess("sh", t.TempDir(), &syncBuffer{b: &out}, "/bin/sh", "-c", "echo started; "+tt.script)
			if err != nil {
				t.Fatal(err)
			}
			waitForLine(t, p.LogFile, "started")
			time.Sleep(50 * time.Millisecond) // let the shell start its child
			tt.stop(p)
			if !p.Exited() {
				t.Fatal("the process still runs")
			}
			if alive := liveGroupMembers(t, p.Pid()); len(alive) > 0 {
				t.Errorf("processes %v of the group still run", alive)
			}
		})
	}
}

// liveGroupMembers lists the processes of group pgid that are not zombies
// (a container's init may never reap the orphans), waiting up to a second
// for them to go.
func liveGroupMembers(t *testing.T, pgid int) []string {
	t.Helper()
	var alive []string
	for range 100 {
		alive = alive[:0]
		stats, _ := filepath.Glob("/proc/[0-9]*/stat")
		for _, f := range stats {
			raw, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			// pid (comm) state ppid pgrp ...
			rest := string(raw[strings.LastIndexByte(string(raw), ')')+2:])
			fields := strings.Fields(rest)
			if len(fields) > 2 && fields[2] == strconv.Itoa(pgid) && fields[0] != "Z" {
				alive = append(alive, f)
			}
		}
		if len(alive) == 0 {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return alive
}

func waitForLine(t *testing.T, file, line string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if raw, _ := os.ReadFile(file); strings.Contains(string(raw), line) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s never showed %q", file, line)
}

type syncBuffer struct{ b *bytes.Buffer }

func (s *syncBuffer) Write(p []byte) (int, error) { return s.b.Write(p) }

func TestLinePrefixer(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		want   string
	}{
		{name: "whole lines", writes: []string{"a\nb\n"}, want: "[x] a\n[x] b\n"},
		{name: "split line waits for its end", writes: []string{"hel", "lo\nwor"}, want: "[x] hello\n"},
		{name: "empty", writes: []string{""}, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			l := &linePrefixer{prefix: []byte("[x] "), out: &out}
			for _, w := range tt.writes {
				if n, err := l.Write([]byte(w)); err != nil || n != len(w) {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
			}
			if out.String() != tt.want {
				t.Errorf("output = %q, want %q", out.String(), tt.want)
			}
		})
	}
}

func TestFakeNode(t *testing.T) {
	tests := []struct {
		i        int
		name     string
		zone     string
		cpuMilli int64
	}{
		{i: 0, name: "kwok-node-0", zone: "zone-a", cpuMilli: 32000},
		{i: 4, name: "kwok-node-4", zone: "zone-b", cpuMilli: 32000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := FakeNode(tt.i)
			if n.Name != tt.name || n.Labels[corev1.LabelHostname] != tt.name {
				t.Errorf("name %q, hostname label %q, want %q", n.Name, n.Labels[corev1.LabelHostname], tt.name)
			}
			if n.Annotations[KwokNodeAnnotation] != "fake" {
				t.Error("kwok would not manage the node")
			}
			if got, want := n.Annotations[ResourceMetricsPathAnnotation], "/metrics/nodes/"+tt.name+"/metrics/resource"; got != want {
				t.Errorf("resource metrics path %q, want %q, where kwok serves the node's", got, want)
			}
			if n.Labels[corev1.LabelTopologyZone] != tt.zone {
				t.Errorf("zone %q, want %q", n.Labels[corev1.LabelTopologyZone], tt.zone)
			}
			if got := n.Status.Allocatable.Cpu().MilliValue(); got != tt.cpuMilli {
				t.Errorf("allocatable cpu %dm, want %dm", got, tt.cpuMilli)
			}
		})
	}
}

func TestCopyLogs(t *testing.T) {
	c := &Cluster{Dir: t.TempDir()}
	if err := os.MkdirAll(c.LogDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"kube-apiserver.log": "api", "berth-manager-x.log": "pod"} {
		if err := os.WriteFile(filepath.Join(c.LogDir(), name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dst := filepath.Join(t.TempDir(), "kept")
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dst, "stale.log"), []byte("old run"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := c.CopyLogs(dst); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dst)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		raw, err := os.ReadFile(filepath.Join(dst, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e.Name()+"="+string(raw))
	}
	if want := []string{"berth-manager-x.log=pod", "kube-apiserver.log=api"}; !slices.Equal(got, want) {
		t.Errorf("kept %v, want %v (and no stale file)", got, want)
	}
}
