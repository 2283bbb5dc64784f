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

package berthtest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	ctrlfake "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/yaml"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/internal/manager"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/rebalance/strategies"
)

func TestBinaryAssets(t *testing.T) {
	full := t.TempDir()
	for _, bin := range []string{"kube-apiserver", "etcd"} {
		if err := os.WriteFile(filepath.Join(full, bin), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	noEtcd := t.TempDir()
	if err := os.WriteFile(filepath.Join(noEtcd, "kube-apiserver"), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, option, env string
		want, wantErr     string
	}{
		{name: "unset", wantErr: "KUBEBUILDER_ASSETS is not set"},
		{name: "from the environment", env: full, want: full},
		{name: "option wins", option: full, env: noEtcd, want: full},
		{name: "no etcd", env: noEtcd, wantErr: "no etcd in $KUBEBUILDER_ASSETS=" + noEtcd},
		{name: "option without binaries", option: t.TempDir(), wantErr: "no kube-apiserver in WithBinaryAssetsDirectory="},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(AssetsEnv, tc.env)
			got, err := binaryAssets(tc.option)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("binaryAssets = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestStartWithoutAssetsFailsClearly(t *testing.T) {
	t.Setenv(AssetsEnv, "")
	_, err := Start(context.Background())
	if err == nil || !strings.Contains(err.Error(), "setup-envtest") {
		t.Fatalf("Start = %v, want an error that says how to get the binaries", err)
	}
}

// TestStartRefusesTakenNames checks that a plugin or strategy whose name is
// taken fails Start, before any process starts (the binaries are empty files).
func TestStartRefusesTakenNames(t *testing.T) {
	assets := t.TempDir()
	for _, bin := range []string{"kube-apiserver", "etcd"} {
		if err := os.WriteFile(filepath.Join(assets, bin), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	plugin := func(context.Context, []byte, framework.Handle) (framework.Plugin, error) { return nil, nil }
	strategy := func([]byte) (strategies.Strategy, error) { return nil, nil }
	tests := []struct {
		name    string
		opt     Option
		wantErr string
	}{
		{name: "an in-tree plugin", opt: WithPlugin("NodeResourcesFit", plugin),
			wantErr: `berthtest: adding plugin "NodeResourcesFit": plugin "NodeResourcesFit" is already registered`},
		{name: "an in-tree strategy", opt: WithStrategy("RemoveDuplicates", strategy),
			wantErr: `berthtest: adding strategy "RemoveDuplicates": strategy "RemoveDuplicates" is already registered`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Start(context.Background(), WithBinaryAssetsDirectory(assets), tt.opt); err == nil || err.Error() != tt.wantErr {
				t.Errorf("Start = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

// TestWebhooksMatchManifests keeps the webhook configurations used in tests
// identical to those `make manifests` generates for clusters.
func TestWebhooksMatchManifests(t *testing.T) {
	raw, err := os.ReadFile("../../config/webhook/manifests.yaml")
	if err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(strings.TrimPrefix(string(raw), "---\n"), "\n---\n")
	if len(docs) != 2 {
		t.Fatalf("config/webhook/manifests.yaml has %d documents, want 2", len(docs))
	}
	wantMutating := &admissionv1.MutatingWebhookConfiguration{}
	if err := yaml.UnmarshalStrict([]byte(docs[0]), wantMutating); err != nil {
		t.Fatal(err)
	}
	wantValidating := &admissionv1.ValidatingWebhookConfiguration{}
	if err := yaml.UnmarshalStrict([]byte(docs[1]), wantValidating); err != nil {
		t.Fatal(err)
	}
	if got := validatingWebhooks(); len(got) != 1 || !apiequality.Semantic.DeepEqual(got[0], wantValidating) {
		gotYAML, _ := yaml.Marshal(got)
		t.Errorf("validatingWebhooks() =\n%s\nwant config/webhook/manifests.yaml", gotYAML)
	}
	if got := mutatingWebhooks(); len(got) != 1 || !apiequality.Semantic.DeepEqual(got[0], wantMutating) {
		gotYAML, _ := yaml.Marshal(got)
		t.Errorf("mutatingWebhooks() =\n%s\nwant config/webhook/manifests.yaml", gotYAML)
	}
}

func TestBuilders(t *testing.T) {
	node := NewNode("n1").Alloc("cpu", "8", "pods", "10").Zone("z1").Taint("gpu", "true", corev1.TaintEffectNoSchedule).Obj()
	if q := node.Status.Allocatable[corev1.ResourceCPU]; q.String() != "8" {
		t.Errorf("allocatable cpu = %s, want 8", q.String())
	}
	if node.Labels[corev1.LabelTopologyZone] != "z1" || node.Labels[corev1.LabelHostname] != "n1" {
		t.Errorf("labels = %v", node.Labels)
	}
	if len(node.Spec.Taints) != 1 || node.Status.Conditions[0].Type != corev1.NodeReady {
		t.Errorf("taints %v, conditions %v", node.Spec.Taints, node.Status.Conditions)
	}
	pod := NewPod("ns", "p").SchedulerName("bin-packing").Requests("cpu", "1").Label("app", "web").Obj()
	if pod.Spec.SchedulerName != "bin-packing" || pod.Labels["app"] != "web" {
		t.Errorf("pod = %+v", pod)
	}
	if q := pod.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU]; q.String() != "1" {
		t.Errorf("cpu request = %s, want 1", q.String())
	}
}

func TestCreateNodeLiftsNotReadyTaint(t *testing.T) {
	tests := []struct {
		name       string
		node       *corev1.Node
		wantTaints int
	}{
		{name: "untainted", node: NewNode("a").Obj(), wantTaints: 0},
		{name: "own taint kept", node: NewNode("b").Taint("k", "v", corev1.TaintEffectNoSchedule).Obj(), wantTaints: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cs := fake.NewClientset()
			// Admission adds the not-ready taint, as the real apiserver does.
			cs.PrependReactor("create", "nodes", func(a k8stesting.Action) (bool, runtime.Object, error) {
				n := a.(k8stesting.CreateAction).GetObject().(*corev1.Node)
				n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule})
				return false, nil, nil
			})
			e := &Env{Clientset: cs}
			got, err := e.CreateNode(context.Background(), tc.node.DeepCopy())
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Spec.Taints) != tc.wantTaints {
				t.Errorf("taints = %v, want %d", got.Spec.Taints, tc.wantTaints)
			}
			if len(got.Status.Conditions) == 0 || got.Status.Conditions[0].Status != corev1.ConditionTrue {
				t.Errorf("status = %+v, want Ready", got.Status)
			}
		})
	}
}

func TestBoundFrom(t *testing.T) {
	pending := NewPod("ns", "p").Obj()
	pending.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable", Message: "0/1 nodes are available"}}
	bound := NewPod("ns", "p").Obj()
	bound.Spec.NodeName = "n1"
	tests := []struct {
		name     string
		events   []watch.Event
		close    bool
		wantNode string
		wantErr  string
	}{
		{name: "bound after an update", events: []watch.Event{{Type: watch.Modified, Object: pending}, {Type: watch.Modified, Object: bound}}, wantNode: "n1"},
		{name: "deleted", events: []watch.Event{{Type: watch.Deleted, Object: pending}}, wantErr: "deleted"},
		{name: "watch closed", close: true},
		{name: "timeout says why", events: []watch.Event{{Type: watch.Modified, Object: pending}}, wantErr: "Unschedulable: 0/1 nodes are available"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := watch.NewFakeWithChanSize(len(tc.events), false)
			for _, ev := range tc.events {
				w.Action(ev.Type, ev.Object)
			}
			if tc.close {
				w.Stop()
			}
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			got, err := boundFrom(ctx, w, nil)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (got == nil && tc.wantNode != "") || (got != nil && got.Spec.NodeName != tc.wantNode) {
				t.Errorf("bound pod = %v, want node %q", got, tc.wantNode)
			}
		})
	}
}

func TestWaitForPodBoundReturnsBoundPodAtOnce(t *testing.T) {
	pod := NewPod("ns", "p").Obj()
	pod.Spec.NodeName = "n1"
	e := &Env{Clientset: fake.NewClientset(pod), waitTimeout: time.Second}
	got, err := e.WaitForPodBound(context.Background(), "ns", "p")
	if err != nil || got.Spec.NodeName != "n1" {
		t.Fatalf("WaitForPodBound = %v, %v", got, err)
	}
}

func TestWaitForProfileReady(t *testing.T) {
	cond := func(typ string, status metav1.ConditionStatus, reason string) metav1.Condition {
		return metav1.Condition{Type: typ, Status: status, Reason: reason, Message: "msg", LastTransitionTime: metav1.Now()}
	}
	profile := func(gen, observed, active int64, conds ...metav1.Condition) *v1alpha1.SchedulingProfile {
		return &v1alpha1.SchedulingProfile{
			ObjectMeta: metav1.ObjectMeta{Name: "p", Generation: gen},
			Status:     v1alpha1.SchedulingProfileStatus{ObservedGeneration: observed, ActiveGeneration: active, Conditions: conds},
		}
	}
	tests := []struct {
		name    string
		profile *v1alpha1.SchedulingProfile
		wantErr string
	}{
		{name: "ready", profile: profile(2, 2, 2, cond("Ready", metav1.ConditionTrue, "Active"))},
		{name: "stalled", profile: profile(2, 2, 1, cond("Stalled", metav1.ConditionTrue, "Invalid")), wantErr: "stalled at generation 2: Invalid: msg"},
		{name: "old generation live", profile: profile(2, 2, 1, cond("Ready", metav1.ConditionTrue, "Active")), wantErr: "active 1"},
		{name: "not observed", profile: profile(3, 2, 2, cond("Ready", metav1.ConditionTrue, "Active")), wantErr: "observed 2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := manager.NewScheme()
			if err != nil {
				t.Fatal(err)
			}
			e := &Env{Client: ctrlfake.NewClientBuilder().WithScheme(s).WithObjects(tc.profile).Build(), waitTimeout: 50 * time.Millisecond}
			_, err = e.WaitForProfileReady(context.Background(), "p")
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
		})
	}
}
