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

package intern

import (
	"reflect"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	st "github.com/berth-io/berth/scheduler/schedtest"
)

// apiPod starts a pending pod with the defaults the apiserver fills in.
func apiPod(name string) *st.PodBuilder {
	b := st.Pod(name).Image("registry.k8s.io/pause:3.10.2").SchedulerName("default-scheduler").
		SecurityContext(&v1.PodSecurityContext{}).Priority(0).PreemptionPolicy(v1.PreemptLowerPriority).Phase(v1.PodPending)
	p := b.Obj()
	p.Spec.Containers[0].TerminationMessagePath = "/dev/termination-log"
	p.Spec.TerminationGracePeriodSeconds = ptr.To[int64](30)
	p.Spec.EnableServiceLinks = ptr.To(true)
	return b
}

// apiNode starts a Ready node as its kubelet registers it.
func apiNode(name string) *st.NodeBuilder {
	b := st.Node(name).Hostname()
	n := b.Obj()
	n.Status.Phase = v1.NodeRunning
	n.Status.Conditions = []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status"}}
	n.Status.NodeInfo = v1.NodeSystemInfo{KubeletVersion: "v1.37.1", OperatingSystem: "linux"}
	return b
}

// noExecute tolerates the NoExecute taint with the key for the seconds.
func noExecute(key string, seconds int64) v1.Toleration {
	return v1.Toleration{Key: key, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: &seconds}
}

// fieldRef reads an environment variable from the pod's field.
func fieldRef(path string) *v1.EnvVarSource {
	return &v1.EnvVarSource{FieldRef: &v1.ObjectFieldSelector{FieldPath: path}}
}

// scheduledAt is a PodScheduled=True condition from the second on.
func scheduledAt(sec int64) v1.PodCondition {
	return v1.PodCondition{Type: v1.PodScheduled, Status: v1.ConditionTrue, LastTransitionTime: metav1.NewTime(time.Unix(sec, 0))}
}

// decoded gives every string in obj, map keys included, memory of its own,
// as decoding an object does, and returns obj: two objects built from the
// same literals then share nothing the interning table did not share.
func decoded[T any](obj *T) *T {
	freshen(reflect.ValueOf(obj).Elem())
	return obj
}

func freshen(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		if v.CanSet() {
			v.SetString(strings.Clone(v.String()))
		}
	case reflect.Pointer:
		if !v.IsNil() {
			freshen(v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Field(i).CanSet() {
				freshen(v.Field(i))
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			freshen(v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() || !v.CanSet() {
			return
		}
		m := reflect.MakeMapWithSize(v.Type(), v.Len())
		for iter := v.MapRange(); iter.Next(); {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			k.Set(iter.Key())
			e.Set(iter.Value())
			freshen(k)
			freshen(e)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	}
}
