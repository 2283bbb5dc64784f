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

package evictor

import (
	"context"
	"errors"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/rebalance/strategies/strategytest"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

var now = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func pod(name string) *st.PodBuilder {
	return strategytest.Pod(name).NodeName("n1").Created(now.Add(-time.Hour))
}

func withAnn(p *v1.Pod, k, v string) *v1.Pod {
	p.Annotations = map[string]string{k: v}
	return p
}

func withVolume(p *v1.Pod, vs v1.VolumeSource) *v1.Pod {
	p.Spec.Volumes = append(p.Spec.Volumes, v1.Volume{Name: "v", VolumeSource: vs})
	return p
}

func withClass(p *v1.Pod, class string) *v1.Pod { p.Spec.PriorityClassName = class; return p }

func terminating(p *v1.Pod) *v1.Pod { p.DeletionTimestamp = ptr.To(metav1.NewTime(now)); return p }

func TestProtections(t *testing.T) {
	emptyDir := v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}
	pvc := v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: "c"}}
	tests := []struct {
		name      string
		spec      v1alpha1.RebalancePolicySpec
		threshold *int32
		pod       *v1.Pod
		wantErr   bool
	}{
		{name: "plain owned pod", pod: pod("p").Obj()},
		{name: "terminating", pod: terminating(pod("p").Obj()), wantErr: true},
		{name: "terminating even when forced", pod: terminating(withAnn(pod("p").Obj(), EvictAnnotation, "")), wantErr: true},
		{name: "mirror pod", pod: withAnn(pod("p").Obj(), mirrorPodAnnotation, "x"), wantErr: true},
		{name: "static pod", pod: withAnn(pod("p").Obj(), configSourceAnnotation, "file"), wantErr: true},
		{name: "forced static pod", pod: func() *v1.Pod {
			p := pod("p").Obj()
			p.Annotations = map[string]string{configSourceAnnotation: "file", EvictAnnotation: "true"}
			return p
		}()},
		{name: "DaemonSet pod", pod: pod("p").OwnerRefs(metav1.OwnerReference{Kind: "DaemonSet", Name: "ds"}).Obj(), wantErr: true},
		{name: "DaemonSet pod allowed", spec: v1alpha1.RebalancePolicySpec{Evictor: &v1alpha1.EvictorOptions{EvictDaemonSetPods: true}},
			pod: pod("p").OwnerRefs(metav1.OwnerReference{Kind: "DaemonSet", Name: "ds"}).Obj()},
		{name: "bare pod", pod: func() *v1.Pod { p := pod("p").Obj(); p.OwnerReferences = nil; return p }(), wantErr: true},
		{name: "failed bare pod allowed", spec: v1alpha1.RebalancePolicySpec{Evictor: &v1alpha1.EvictorOptions{EvictFailedBarePods: true}},
			pod: func() *v1.Pod { p := pod("p").Phase(v1.PodFailed).Obj(); p.OwnerReferences = nil; return p }()},
		{name: "running bare pod with evictFailedBarePods", spec: v1alpha1.RebalancePolicySpec{Evictor: &v1alpha1.EvictorOptions{EvictFailedBarePods: true}},
			pod: func() *v1.Pod { p := pod("p").Obj(); p.OwnerReferences = nil; return p }(), wantErr: true},
		{name: "system-critical priority", pod: pod("p").Priority(SystemCriticalPriority).Obj(), wantErr: true},
		{name: "system-node-critical class", pod: withClass(pod("p").Obj(), "system-node-critical"), wantErr: true},
		{name: "system-critical allowed", spec: v1alpha1.RebalancePolicySpec{Evictor: &v1alpha1.EvictorOptions{EvictSystemCriticalPods: true}},
			pod: pod("p").Priority(SystemCriticalPriority).Obj()},
		{name: "at the priority threshold", threshold: ptr.To[int32](100), pod: pod("p").Priority(100).Obj(), wantErr: true},
		{name: "below the priority threshold", threshold: ptr.To[int32](100), pod: pod("p").Priority(99).Obj()},
		{name: "threshold ignored when system-critical pods may go", threshold: ptr.To[int32](100),
			spec: v1alpha1.RebalancePolicySpec{Evictor: &v1alpha1.EvictorOptions{EvictSystemCriticalPods: true}}, pod: pod("p").Priority(500).Obj()},
		{name: "local storage", pod: withVolume(pod("p").Obj(), emptyDir), wantErr: true},
		{name: "local storage allowed", spec: v1alpha1.RebalancePolicySpec{Evictor: &v1alpha1.EvictorOptions{EvictLocalStoragePods: true}},
			pod: withVolume(pod("p").Obj(), emptyDir)},
		{name: "PVC pod", pod: withVolume(pod("p").Obj(), pvc)},
		{name: "PVC pod ignored", spec: v1alpha1.RebalancePolicySpec{Evictor: &v1alpha1.EvictorOptions{IgnorePVCPods: true}},
			pod: withVolume(pod("p").Obj(), pvc), wantErr: true},
		{name: "excluded namespace", spec: v1alpha1.RebalancePolicySpec{Namespaces: &v1alpha1.NamespaceFilter{Exclude: []string{"default"}}},
			pod: pod("p").Obj(), wantErr: true},
		{name: "not included namespace", spec: v1alpha1.RebalancePolicySpec{Namespaces: &v1alpha1.NamespaceFilter{Include: []string{"other"}}},
			pod: pod("p").Obj(), wantErr: true},
		{name: "label selector misses", spec: v1alpha1.RebalancePolicySpec{Evictor: &v1alpha1.EvictorOptions{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}}}, pod: pod("p").Obj(), wantErr: true},
		{name: "younger than minPodAge", spec: v1alpha1.RebalancePolicySpec{Evictor: &v1alpha1.EvictorOptions{MinPodAge: &metav1.Duration{Duration: 2 * time.Hour}}},
			pod: pod("p").Obj(), wantErr: true},
		{name: "older than minPodAge", spec: v1alpha1.RebalancePolicySpec{Evictor: &v1alpha1.EvictorOptions{MinPodAge: &metav1.Duration{Duration: 30 * time.Minute}}},
			pod: pod("p").Obj()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := NewProtections(&tt.spec, tt.threshold)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Check(tt.pod, now); (err != nil) != tt.wantErr {
				t.Errorf("Check() = %v, want error %v", err, tt.wantErr)
			}
		})
	}
}

func TestLimits(t *testing.T) {
	tests := []struct {
		name    string
		limits  *v1alpha1.EvictionLimits
		pods    []*v1.Pod
		allowed int
	}{
		{name: "no limits", pods: []*v1.Pod{pod("a").Obj(), pod("b").Obj(), pod("c").Obj()}, allowed: 3},
		{name: "per node", limits: &v1alpha1.EvictionLimits{MaxPodsToEvictPerNode: ptr.To[int32](1)},
			pods: []*v1.Pod{pod("a").Obj(), pod("b").Obj(), pod("c").NodeName("n2").Obj()}, allowed: 2},
		{name: "per namespace", limits: &v1alpha1.EvictionLimits{MaxPodsToEvictPerNamespace: ptr.To[int32](1)},
			pods: []*v1.Pod{pod("a").Obj(), pod("b").NodeName("n2").Obj(), pod("c").Namespace("x").Obj()}, allowed: 2},
		{name: "total", limits: &v1alpha1.EvictionLimits{MaxPodsToEvictTotal: ptr.To[int32](2)},
			pods: []*v1.Pod{pod("a").Obj(), pod("b").NodeName("n2").Obj(), pod("c").NodeName("n3").Obj()}, allowed: 2},
		{name: "zero", limits: &v1alpha1.EvictionLimits{MaxPodsToEvictTotal: ptr.To[int32](0)},
			pods: []*v1.Pod{pod("a").Obj()}, allowed: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := NewLimits(tt.limits)
			allowed := 0
			for _, p := range tt.pods {
				if l.Allow(p) == nil {
					l.Count(p)
					allowed++
				}
			}
			if allowed != tt.allowed {
				t.Errorf("allowed %d evictions, want %d", allowed, tt.allowed)
			}
		})
	}
}

func TestEvict(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		result v1alpha1.EvictionResult
	}{
		{name: "accepted", result: v1alpha1.EvictionEvicted},
		{name: "PDB refuses", err: apierrors.NewTooManyRequests("budget", 0), result: v1alpha1.EvictionBlocked},
		{name: "other error", err: apierrors.NewInternalError(errors.New("boom")), result: v1alpha1.EvictionFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := fake.NewClientset()
			var got *policyv1.Eviction
			c.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
				if a.GetSubresource() != "eviction" {
					return false, nil, nil
				}
				got = a.(k8stesting.CreateAction).GetObject().(*policyv1.Eviction)
				return true, nil, tt.err
			})
			p := pod("p").Obj()
			result, err := Evict(context.Background(), c, p)
			if result != tt.result || (err != nil) != (tt.err != nil) {
				t.Fatalf("Evict() = %s, %v; want %s", result, err, tt.result)
			}
			if got == nil || got.Name != "p" || *got.DeleteOptions.Preconditions.UID != p.UID {
				t.Errorf("eviction sent = %+v, want one for pod p guarded by its UID", got)
			}
		})
	}
}
