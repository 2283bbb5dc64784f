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

// Package signtest runs the plugins' SignPod tests: pairs of pods that a
// plugin must sign alike or apart, and pods it must refuse to sign.
package signtest

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// Pair is two pods and whether the plugin must sign them alike.
type Pair struct {
	Name string
	A, B *v1.Pod
	// Same is set when the two signatures must be equal.
	Same bool
}

// Refusal is a pod the plugin must not sign.
type Refusal struct {
	Name string
	Pod  *v1.Pod
	// Code and Reason are what the plugin's status must say.
	Code   framework.Code
	Reason string
}

// Sign returns the JSON of the fragments the plugin gives the pod, merged
// by key as a profile merges them, failing t when the plugin refuses. keys
// are the fragment keys the plugin gave, in order.
func Sign(t testing.TB, pl framework.SignPlugin, pod *v1.Pod) (sig string, keys []string) {
	t.Helper()
	fragments, status := pl.SignPod(context.Background(), pod)
	if !status.IsSuccess() {
		t.Fatalf("%s.SignPod(%s) = %v, want success", pl.Name(), pod.Name, status.AsError())
	}
	merged := make(map[string]any, len(fragments))
	for _, f := range fragments {
		merged[f.Key] = f.Value
		keys = append(keys, f.Key)
	}
	b, err := json.Marshal(merged)
	if err != nil {
		t.Fatalf("encoding the signature of %s: %v", pod.Name, err)
	}
	return string(b), keys
}

// Pairs checks that the plugin signs each pair alike or apart, and that it
// always gives the keys.
func Pairs(t *testing.T, pl framework.SignPlugin, keys []string, pairs []Pair) {
	t.Helper()
	for _, p := range pairs {
		t.Run(p.Name, func(t *testing.T) {
			a, keysA := Sign(t, pl, p.A)
			b, keysB := Sign(t, pl, p.B)
			if !slices.Equal(keysA, keys) || !slices.Equal(keysB, keys) {
				t.Errorf("fragment keys = %q and %q, want %q", keysA, keysB, keys)
			}
			if (a == b) != p.Same {
				t.Errorf("signatures alike = %t, want %t:\n%s\n%s", a == b, p.Same, a, b)
			}
		})
	}
}

// Refusals checks that the plugin refuses each pod with the status given.
func Refusals(t *testing.T, pl framework.SignPlugin, refusals []Refusal) {
	t.Helper()
	for _, r := range refusals {
		t.Run(r.Name, func(t *testing.T) {
			fragments, status := pl.SignPod(context.Background(), r.Pod)
			if status.Code() != r.Code || status.Message() != r.Reason {
				t.Errorf("status = %v %q, want %v %q", status.Code(), status.Message(), r.Code, r.Reason)
			}
			if fragments != nil {
				t.Errorf("fragments = %v, want none", fragments)
			}
		})
	}
}

// VolumePairs are pods that the plugins signing by VolumesSignKey sign
// alike exactly when their volume sources, ConfigMaps and Secrets left
// out, are the same.
func VolumePairs() []Pair {
	secret := v1.VolumeSource{Secret: &v1.SecretVolumeSource{SecretName: "token"}}
	configMap := v1.VolumeSource{ConfigMap: &v1.ConfigMapVolumeSource{LocalObjectReference: v1.LocalObjectReference{Name: "cfg"}}}
	pvc := func(claim string) v1.VolumeSource {
		return v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}
	}
	return []Pair{
		{Name: "another name", A: st.Pod("a").PVC("data").Obj(), B: st.Pod("b").PVC("data").Obj(), Same: true},
		{Name: "a secret volume", A: st.Pod("p").PVC("data").Obj(), B: st.Pod("p").PVC("data").Volume("token", secret).Obj(), Same: true},
		{Name: "another secret", A: st.Pod("p").Volumes(secret).Obj(), B: st.Pod("p").Volumes(v1.VolumeSource{Secret: &v1.SecretVolumeSource{SecretName: "other"}}).Obj(), Same: true},
		{Name: "a configmap volume", A: st.Pod("p").PVC("data").Obj(), B: st.Pod("p").Volume("cfg", configMap).PVC("data").Obj(), Same: true},
		{Name: "labels and containers", A: st.Pod("p").PVC("data").Obj(), B: st.Pod("p").Labels("app", "x").Container("cpu", "1").PVC("data").Obj(), Same: true},
		{Name: "another volume name", A: st.Pod("p").Volume("x", pvc("data")).Obj(), B: st.Pod("p").Volume("y", pvc("data")).Obj(), Same: true},
		{Name: "volumes in another order", A: st.Pod("p").PVC("a", "b").Obj(), B: st.Pod("p").PVC("b", "a").Obj(), Same: true},
		{Name: "another claim", A: st.Pod("p").PVC("a").Obj(), B: st.Pod("p").PVC("b").Obj(), Same: false},
		{Name: "one more claim", A: st.Pod("p").PVC("a").Obj(), B: st.Pod("p").PVC("a", "b").Obj(), Same: false},
		{Name: "a claim read-only", A: st.Pod("p").PVC("a").Obj(), B: st.Pod("p").Volumes(v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: "a", ReadOnly: true}}).Obj(), Same: false},
		{Name: "an emptyDir", A: st.Pod("p").Obj(), B: st.Pod("p").EmptyDir("scratch").Obj(), Same: false},
		{Name: "an ephemeral volume", A: st.Pod("p").Obj(), B: st.Pod("p").Ephemeral("scratch").Obj(), Same: false},
	}
}

// TolerationPairs are pods that the plugins signing by TolerationsSignKey
// sign alike exactly when they have the same tolerations, in any order.
func TolerationPairs() []Pair {
	ab := func(name string) *st.PodBuilder {
		return st.Pod(name).TolerateTaint("a", "1", v1.TaintEffectNoSchedule).TolerateTaint("b", "2", v1.TaintEffectNoExecute)
	}
	ba := func(name string) *st.PodBuilder {
		return st.Pod(name).TolerateTaint("b", "2", v1.TaintEffectNoExecute).TolerateTaint("a", "1", v1.TaintEffectNoSchedule)
	}
	a := func(name string) *st.PodBuilder {
		return st.Pod(name).TolerateTaint("a", "1", v1.TaintEffectNoSchedule)
	}
	return []Pair{
		{Name: "another name", A: a("a").Obj(), B: a("b").Obj(), Same: true},
		{Name: "labels, volumes and node selector", A: a("p").Obj(), B: a("p").Labels("app", "x").PVC("data").NodeSelector("zone", "z").Obj(), Same: true},
		{Name: "tolerations in another order", A: ab("p").Obj(), B: ba("p").Obj(), Same: true},
		{Name: "no tolerations", A: st.Pod("a").Obj(), B: st.Pod("b").Obj(), Same: true},
		{Name: "a toleration more", A: a("p").Obj(), B: ab("p").Obj(), Same: false},
		{Name: "another value", A: a("p").Obj(), B: st.Pod("p").TolerateTaint("a", "2", v1.TaintEffectNoSchedule).Obj(), Same: false},
		{Name: "another effect", A: a("p").Obj(), B: st.Pod("p").TolerateTaint("a", "1", v1.TaintEffectPreferNoSchedule).Obj(), Same: false},
		{Name: "tolerating unschedulable nodes", A: st.Pod("p").Obj(), B: st.Pod("p").Tolerate(v1.TaintNodeUnschedulable).Obj(), Same: false},
	}
}
