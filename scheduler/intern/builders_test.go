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
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// podBuilder builds a test pod; every call gives the pod fresh copies of
// everything, as decoding does.
type podBuilder struct{ pod *v1.Pod }

func makePod(name string) *podBuilder {
	grace := int64(30)
	prio := int32(0)
	links := true
	policy := v1.PreemptLowerPriority
	return &podBuilder{pod: &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: clone("default"), UID: types.UID(name + "-uid")},
		Spec: v1.PodSpec{
			Containers:                    []v1.Container{{Name: clone("app"), Image: clone("registry.k8s.io/pause:3.10.2"), TerminationMessagePath: clone("/dev/termination-log")}},
			SchedulerName:                 clone("default-scheduler"),
			SecurityContext:               &v1.PodSecurityContext{},
			TerminationGracePeriodSeconds: &grace,
			Priority:                      &prio,
			EnableServiceLinks:            &links,
			PreemptionPolicy:              &policy,
		},
		Status: v1.PodStatus{Phase: v1.PodPending},
	}}
}

func (b *podBuilder) label(k, v string) *podBuilder {
	if b.pod.Labels == nil {
		b.pod.Labels = map[string]string{}
	}
	b.pod.Labels[clone(k)] = clone(v)
	return b
}

func (b *podBuilder) req(name v1.ResourceName, q string) *podBuilder {
	c := &b.pod.Spec.Containers[0]
	if c.Resources.Requests == nil {
		c.Resources.Requests = v1.ResourceList{}
	}
	c.Resources.Requests[name] = resource.MustParse(q)
	return b
}

func (b *podBuilder) limit(name v1.ResourceName, q string) *podBuilder {
	c := &b.pod.Spec.Containers[0]
	if c.Resources.Limits == nil {
		c.Resources.Limits = v1.ResourceList{}
	}
	c.Resources.Limits[name] = resource.MustParse(q)
	return b
}

func (b *podBuilder) port(p int32) *podBuilder {
	c := &b.pod.Spec.Containers[0]
	c.Ports = append(c.Ports, v1.ContainerPort{ContainerPort: p, Protocol: v1.ProtocolTCP})
	return b
}

func (b *podBuilder) toleration(key string, seconds int64) *podBuilder {
	b.pod.Spec.Tolerations = append(b.pod.Spec.Tolerations, v1.Toleration{
		Key: clone(key), Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: &seconds,
	})
	return b
}

func (b *podBuilder) owner(kind, name string) *podBuilder {
	yes := true
	b.pod.OwnerReferences = append(b.pod.OwnerReferences, metav1.OwnerReference{
		APIVersion: "apps/v1", Kind: kind, Name: name, UID: types.UID(name + "-uid"), Controller: &yes,
	})
	return b
}

func (b *podBuilder) securityContext(sc *v1.PodSecurityContext) *podBuilder {
	b.pod.Spec.SecurityContext = sc
	return b
}

func (b *podBuilder) annotation(k, v string) *podBuilder {
	if b.pod.Annotations == nil {
		b.pod.Annotations = map[string]string{}
	}
	b.pod.Annotations[clone(k)] = clone(v)
	return b
}

func (b *podBuilder) command(args ...string) *podBuilder {
	c := &b.pod.Spec.Containers[0]
	for _, a := range args {
		c.Command = append(c.Command, clone(a))
	}
	return b
}

func (b *podBuilder) env(name, value string) *podBuilder {
	c := &b.pod.Spec.Containers[0]
	c.Env = append(c.Env, v1.EnvVar{Name: clone(name), Value: clone(value)})
	return b
}

func (b *podBuilder) envFromField(name, path string) *podBuilder {
	c := &b.pod.Spec.Containers[0]
	c.Env = append(c.Env, v1.EnvVar{Name: clone(name), ValueFrom: &v1.EnvVarSource{FieldRef: &v1.ObjectFieldSelector{FieldPath: path}}})
	return b
}

func (b *podBuilder) obj() *v1.Pod { return b.pod }

// nodeBuilder builds a test node.
type nodeBuilder struct{ node *v1.Node }

func makeNode(name string) *nodeBuilder {
	return &nodeBuilder{node: &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1.LabelHostname: name}},
		Status: v1.NodeStatus{
			Phase:      v1.NodeRunning,
			Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue, Reason: clone("KubeletReady"), Message: clone("kubelet is posting ready status")}},
			NodeInfo:   v1.NodeSystemInfo{KubeletVersion: clone("v1.37.1"), OperatingSystem: clone("linux")},
		},
	}}
}

func (b *nodeBuilder) capacity(cpu, mem string) *nodeBuilder {
	list := func() v1.ResourceList {
		return v1.ResourceList{v1.ResourceCPU: resource.MustParse(cpu), v1.ResourceMemory: resource.MustParse(mem)}
	}
	b.node.Status.Capacity, b.node.Status.Allocatable = list(), list()
	return b
}

func (b *nodeBuilder) label(k, v string) *nodeBuilder {
	b.node.Labels[clone(k)] = clone(v)
	return b
}

func (b *nodeBuilder) image(size int64, names ...string) *nodeBuilder {
	img := v1.ContainerImage{SizeBytes: size}
	for _, n := range names {
		img.Names = append(img.Names, clone(n))
	}
	b.node.Status.Images = append(b.node.Status.Images, img)
	return b
}

func (b *nodeBuilder) obj() *v1.Node { return b.node }

// clone returns a copy of s in memory of its own, as a decoder would.
func clone(s string) string { return string([]byte(s)) }

// scheduled adds a PodScheduled=True condition from the given second, with
// strings of its own as a decoded object has.
func (b *podBuilder) scheduled(sec int64) *podBuilder {
	b.pod.Status.Conditions = append(b.pod.Status.Conditions, v1.PodCondition{
		Type: v1.PodConditionType(clone(string(v1.PodScheduled))), Status: v1.ConditionStatus(clone(string(v1.ConditionTrue))),
		LastTransitionTime: metav1.NewTime(time.Unix(sec, 0)),
	})
	return b
}
