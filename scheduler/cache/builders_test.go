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

package cache

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// podBuilder builds test pods: makePod("p1").on("n1").req("cpu", "1").obj().
type podBuilder struct{ pod *v1.Pod }

func makePod(name string) *podBuilder {
	return &podBuilder{pod: &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name)},
		Spec:       v1.PodSpec{Containers: []v1.Container{{Name: "c"}}},
	}}
}

func (b *podBuilder) on(node string) *podBuilder { b.pod.Spec.NodeName = node; return b }

func (b *podBuilder) uid(uid string) *podBuilder { b.pod.UID = types.UID(uid); return b }

func (b *podBuilder) rv(v string) *podBuilder { b.pod.ResourceVersion = v; return b }

func (b *podBuilder) req(name v1.ResourceName, q string) *podBuilder {
	c := &b.pod.Spec.Containers[0]
	if c.Resources.Requests == nil {
		c.Resources.Requests = v1.ResourceList{}
	}
	c.Resources.Requests[name] = resource.MustParse(q)
	return b
}

func (b *podBuilder) hostPort(port int32) *podBuilder {
	c := &b.pod.Spec.Containers[0]
	c.Ports = append(c.Ports, v1.ContainerPort{ContainerPort: port, HostPort: port})
	return b
}

func (b *podBuilder) pvc(claim string) *podBuilder {
	b.pod.Spec.Volumes = append(b.pod.Spec.Volumes, v1.Volume{
		Name:         claim,
		VolumeSource: v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: claim}},
	})
	return b
}

// antiAffinity adds a required anti-affinity term on the hostname against app=<app>.
func (b *podBuilder) antiAffinity(app string) *podBuilder {
	b.pod.Spec.Affinity = &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}},
			TopologyKey:   v1.LabelHostname,
		}},
	}}
	return b
}

// affinity adds a preferred pod-affinity term (not required anti-affinity).
func (b *podBuilder) affinity(app string) *podBuilder {
	b.pod.Spec.Affinity = &v1.Affinity{PodAffinity: &v1.PodAffinity{
		PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{{
			Weight: 10,
			PodAffinityTerm: v1.PodAffinityTerm{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}},
				TopologyKey:   v1.LabelHostname,
			},
		}},
	}}
	return b
}

func (b *podBuilder) obj() *v1.Pod { return b.pod }

// nodeBuilder builds test nodes: makeNode("n1").zone("a").cpu("4").image("img", 100).obj().
type nodeBuilder struct{ node *v1.Node }

func makeNode(name string) *nodeBuilder {
	return &nodeBuilder{node: &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1.LabelHostname: name}},
		Status: v1.NodeStatus{Allocatable: v1.ResourceList{
			v1.ResourceCPU:    resource.MustParse("4"),
			v1.ResourceMemory: resource.MustParse("8Gi"),
			v1.ResourcePods:   resource.MustParse("110"),
		}},
	}}
}

func (b *nodeBuilder) zone(z string) *nodeBuilder {
	b.node.Labels[v1.LabelTopologyRegion] = "r"
	b.node.Labels[v1.LabelTopologyZone] = z
	return b
}

func (b *nodeBuilder) cpu(q string) *nodeBuilder {
	b.node.Status.Allocatable[v1.ResourceCPU] = resource.MustParse(q)
	return b
}

func (b *nodeBuilder) image(size int64, names ...string) *nodeBuilder {
	b.node.Status.Images = append(b.node.Status.Images, v1.ContainerImage{Names: names, SizeBytes: size})
	return b
}

func (b *nodeBuilder) rv(v string) *nodeBuilder { b.node.ResourceVersion = v; return b }

func (b *nodeBuilder) label(k, v string) *nodeBuilder { b.node.Labels[k] = v; return b }

func (b *nodeBuilder) obj() *v1.Node { return b.node }

func (b *nodeBuilder) taint(key string, effect v1.TaintEffect) *nodeBuilder {
	b.node.Spec.Taints = append(b.node.Spec.Taints, v1.Taint{Key: key, Effect: effect})
	return b
}

func (b *nodeBuilder) cordon() *nodeBuilder { b.node.Spec.Unschedulable = true; return b }
