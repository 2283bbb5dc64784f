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
	"crypto/tls"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/berth-io/berth/api/v1alpha1"
)

func TestManagerConfig(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		check func(t *testing.T, o *managerOptions)
	}{
		{"defaults", nil, func(t *testing.T, o *managerOptions) {
			mo := managerConfig(o, nil, logr.Discard())
			if !mo.LeaderElection || mo.LeaderElectionID != "berth.scheduling.berth.io" || !mo.LeaderElectionReleaseOnCancel {
				t.Errorf("leader election: %v %q release on cancel %v", mo.LeaderElection, mo.LeaderElectionID, mo.LeaderElectionReleaseOnCancel)
			}
			if mo.LeaderElectionNamespace != o.leaderElectNamespace || *mo.LeaseDuration != o.leaseDuration ||
				*mo.RenewDeadline != o.renewDeadline || *mo.RetryPeriod != o.retryPeriod {
				t.Errorf("the Lease settings do not follow the flags: %+v", mo)
			}
			if *mo.GracefulShutdownTimeout != o.gracefulShutdownTimeout {
				t.Errorf("GracefulShutdownTimeout = %s, want %s", *mo.GracefulShutdownTimeout, o.gracefulShutdownTimeout)
			}
			if !mo.Metrics.SecureServing || mo.Metrics.FilterProvider == nil || mo.Metrics.BindAddress != ":8443" {
				t.Errorf("metrics are not served securely on :8443 with the authn/authz filter: %+v", mo.Metrics)
			}
			if mo.Metrics.CertDir != "" {
				t.Errorf("Metrics.CertDir = %q by default, want none (a self-signed certificate)", mo.Metrics.CertDir)
			}
			if mo := managerConfig(&managerOptions{metricsCertDir: "/certs"}, nil, logr.Discard()); mo.Metrics.CertDir != "/certs" {
				t.Errorf("--metrics-cert-dir: Metrics.CertDir = %q, want /certs", mo.Metrics.CertDir)
			}
			if mo.HealthProbeBindAddress != ":8081" || mo.PprofBindAddress != "0" {
				t.Errorf("probes on %q, pprof on %q", mo.HealthProbeBindAddress, mo.PprofBindAddress)
			}
			if mo.WebhookServer == nil {
				t.Error("no webhook server")
			}
			if len(mo.Metrics.TLSOpts) != 1 {
				t.Fatalf("%d TLS options, want the one that turns HTTP/2 off", len(mo.Metrics.TLSOpts))
			}
			c := &tls.Config{}
			mo.Metrics.TLSOpts[0](c)
			if strings.Join(c.NextProtos, ",") != "http/1.1" {
				t.Errorf("NextProtos = %v, want HTTP/1.1 only", c.NextProtos)
			}
			if mo.BaseContext == nil {
				t.Error("no BaseContext: runnables would not find the logger")
			}
		}},
		{"plain metrics, pprof, http2, no webhook, no election",
			[]string{"--metrics-secure=false", "--pprof-bind-address=:6060", "--enable-http2", "--enable-webhook=false", "--leader-elect=false"},
			func(t *testing.T, o *managerOptions) {
				mo := managerConfig(o, nil, logr.Discard())
				if mo.Metrics.SecureServing || mo.Metrics.FilterProvider != nil {
					t.Errorf("metrics are secured: %+v", mo.Metrics)
				}
				if mo.PprofBindAddress != ":6060" || len(mo.Metrics.TLSOpts) != 0 || mo.WebhookServer != nil || mo.LeaderElection {
					t.Errorf("managerConfig = %+v", mo)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, err := newManagerOptions(tc.args, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, o)
		})
	}
}

func TestRestConfig(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["c"] = &clientcmdapi.Cluster{Server: "https://apiserver.example:6443"}
	cfg.AuthInfos["u"] = &clientcmdapi.AuthInfo{Token: "secret"}
	cfg.Contexts["x"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "u"}
	cfg.CurrentContext = "x"
	if err := clientcmd.WriteToFile(*cfg, kubeconfig); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		args      []string
		wantQPS   float32
		wantBurst int
		// wantCompression is whether gzip responses are accepted.
		wantCompression bool
	}{
		{"no client-side limit by default", nil, -1, -1, false},
		{"explicit limits", []string{"--kube-api-qps=50", "--kube-api-burst=80"}, 50, 80, false},
		{"compression on", []string{"--kube-api-compression"}, -1, -1, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, err := newManagerOptions(append([]string{"--kubeconfig", kubeconfig}, tc.args...), io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			rc, err := restConfig(o)
			if err != nil {
				t.Fatal(err)
			}
			if rc.Host != "https://apiserver.example:6443" || rc.BearerToken != "secret" {
				t.Errorf("restConfig did not load %s: host %q", kubeconfig, rc.Host)
			}
			if rc.QPS != tc.wantQPS || rc.Burst != tc.wantBurst {
				t.Errorf("QPS, Burst = %v, %v, want %v, %v", rc.QPS, rc.Burst, tc.wantQPS, tc.wantBurst)
			}
			if rc.DisableCompression == tc.wantCompression {
				t.Errorf("DisableCompression = %v, want %v", rc.DisableCompression, !tc.wantCompression)
			}
			if !strings.HasPrefix(rc.UserAgent, "berth-manager/") {
				t.Errorf("UserAgent = %q", rc.UserAgent)
			}
			pb := protobufConfig(rc)
			if pb.ContentType != "application/vnd.kubernetes.protobuf" || rc.ContentType != "" {
				t.Errorf("protobufConfig changed %q, its copy has %q", rc.ContentType, pb.ContentType)
			}
		})
	}
}

func TestCacheOptions(t *testing.T) {
	opts := cacheOptions()
	if opts.DefaultTransform == nil {
		t.Fatal("no default transform: cached objects keep their managedFields")
	}
	member := func(name string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1alpha1.PodGroupLabel: "g1"},
				ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}},
		}
	}
	a, b := member("a"), member("b")
	for _, p := range []*corev1.Pod{a, b} {
		if _, err := opts.DefaultTransform(p); err != nil {
			t.Fatalf("DefaultTransform: %v", err)
		}
	}
	if a.ManagedFields != nil || b.ManagedFields != nil {
		t.Error("the transform keeps managedFields")
	}
	if reflect.ValueOf(a.Labels).UnsafePointer() != reflect.ValueOf(b.Labels).UnsafePointer() {
		t.Error("two members with equal labels keep a label map each")
	}
	var podSel labels.Selector
	for obj, by := range opts.ByObject {
		if _, ok := obj.(*corev1.Pod); ok {
			podSel = by.Label
		}
	}
	if podSel == nil {
		t.Fatal("pods are cached without a label selector: the cache would hold every pod a second time")
	}
	tests := []struct {
		name   string
		labels labels.Set
		want   bool
	}{
		{"a PodGroup member", labels.Set{v1alpha1.PodGroupLabel: "g1"}, true},
		{"a member with an empty group name", labels.Set{v1alpha1.PodGroupLabel: ""}, true},
		{"a plain pod", labels.Set{"app": "web"}, false},
		{"a pod without labels", nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := podSel.Matches(tc.labels); got != tc.want {
				t.Errorf("selector %q matches %v = %v, want %v", podSel, tc.labels, got, tc.want)
			}
		})
	}

	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}}}
	out, err := opts.DefaultTransform(pod)
	if err != nil {
		t.Fatal(err)
	}
	if mf := out.(*corev1.Pod).ManagedFields; mf != nil {
		t.Errorf("managedFields kept: %v", mf)
	}
}
