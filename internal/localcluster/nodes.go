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
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	// KwokNodeAnnotation marks the nodes kwok manages; the cluster runs kwok
	// with a selector on it.
	KwokNodeAnnotation = "kwok.x-k8s.io/node"
	// NodeTypeLabel is set to "kwok" on the fake nodes so that workloads can select them.
	NodeTypeLabel = "type"
)

// NodeName returns the name of the i-th fake node (0-based).
func NodeName(i int) string { return fmt.Sprintf("kwok-node-%d", i) }

// FakeNode returns the i-th fake node: 32 CPUs, 256Gi of memory and 110 pods,
// spread over three zones, with status filled in so that kwok only has to
// report it Ready, and the path at which kwok serves its /metrics/resource
// for metrics-server.
func FakeNode(i int) *corev1.Node {
	name := NodeName(i)
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("32"),
		corev1.ResourceMemory: resource.MustParse("256Gi"),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Annotations: map[string]string{KwokNodeAnnotation: "fake", ResourceMetricsPathAnnotation: ResourceMetricsPath(name)},
			Labels: map[string]string{
				NodeTypeLabel:                  "kwok",
				corev1.LabelHostname:           name,
				corev1.LabelOSStable:           "linux",
				corev1.LabelArchStable:         "amd64",
				corev1.LabelTopologyZone:       fmt.Sprintf("zone-%c", 'a'+i%3),
				"node-role.kubernetes.io/kwok": "",
			},
		},
		Status: corev1.NodeStatus{
			Capacity:    capacity,
			Allocatable: capacity.DeepCopy(),
			NodeInfo: corev1.NodeSystemInfo{
				KubeletVersion:  "v1.37.1-kwok",
				OperatingSystem: "linux",
				Architecture:    "amd64",
			},
			Phase: corev1.NodeRunning,
		},
	}
}
