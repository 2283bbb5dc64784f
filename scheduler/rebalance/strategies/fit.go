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

package strategies

import (
	v1 "k8s.io/api/core/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"
)

// MatchesNodeSelection reports whether pod's nodeSelector and required node
// affinity select node.
func MatchesNodeSelection(pod *v1.Pod, node *v1.Node) bool {
	ok, err := nodeaffinity.GetRequiredNodeAffinity(pod).Match(node)
	return err == nil && ok
}

// ToleratesHardTaints reports whether pod tolerates every NoSchedule and
// NoExecute taint of node.
func ToleratesHardTaints(pod *v1.Pod, node *v1.Node) bool {
	_, untolerated := corev1helpers.FindMatchingUntoleratedTaint(klog.Background(), node.Spec.Taints, pod.Spec.Tolerations, hardTaint, true)
	return !untolerated
}

func hardTaint(t *v1.Taint) bool {
	return t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute
}

// CouldRunOn reports, without asking a profile, whether node could take pod:
// it is schedulable, its labels satisfy the pod's node selection and the
// pod tolerates its hard taints. Strategies use it to find target nodes; the
// evictor's nodeFit asks the profile's filters.
func CouldRunOn(pod *v1.Pod, node *v1.Node) bool {
	return !node.Spec.Unschedulable && MatchesNodeSelection(pod, node) && ToleratesHardTaints(pod, node)
}
