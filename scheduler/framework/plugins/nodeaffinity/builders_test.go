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

package nodeaffinity

import (
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	st "github.com/berth-io/berth/scheduler/schedtest"
)

// node returns a node with the label pairs ("zone", "a", ...).
func node(name string, kv ...string) *v1.Node {
	n := st.Node(name).Obj()
	n.Labels = map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		n.Labels[kv[i]] = kv[i+1]
	}
	return n
}

// expr is a label requirement.
func expr(key string, op v1.NodeSelectorOperator, values ...string) v1.NodeSelectorRequirement {
	return v1.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
}

// nameIs is a matchFields requirement on metadata.name.
func nameIs(op v1.NodeSelectorOperator, values ...string) v1.NodeSelectorRequirement {
	return v1.NodeSelectorRequirement{Key: metav1.ObjectNameField, Operator: op, Values: values}
}

// labelTerm is a term of label requirements.
func labelTerm(reqs ...v1.NodeSelectorRequirement) v1.NodeSelectorTerm {
	return v1.NodeSelectorTerm{MatchExpressions: reqs}
}

// fieldTerm is a term of field requirements.
func fieldTerm(reqs ...v1.NodeSelectorRequirement) v1.NodeSelectorTerm {
	return v1.NodeSelectorTerm{MatchFields: reqs}
}

// pref is a weighted preferred term.
func pref(weight int32, t v1.NodeSelectorTerm) v1.PreferredSchedulingTerm {
	return v1.PreferredSchedulingTerm{Weight: weight, Preference: t}
}

// podBuilder builds a pod's node constraints.
type podBuilder struct{ pod *v1.Pod }

func makePod() *podBuilder { return &podBuilder{pod: st.Pod("p").Obj()} }

func (b *podBuilder) affinity() *v1.NodeAffinity {
	if b.pod.Spec.Affinity == nil {
		b.pod.Spec.Affinity = &v1.Affinity{}
	}
	if b.pod.Spec.Affinity.NodeAffinity == nil {
		b.pod.Spec.Affinity.NodeAffinity = &v1.NodeAffinity{}
	}
	return b.pod.Spec.Affinity.NodeAffinity
}

// selector sets spec.nodeSelector from label pairs.
func (b *podBuilder) selector(kv ...string) *podBuilder {
	b.pod.Spec.NodeSelector = map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		b.pod.Spec.NodeSelector[kv[i]] = kv[i+1]
	}
	return b
}

// required sets the required terms.
func (b *podBuilder) required(terms ...v1.NodeSelectorTerm) *podBuilder {
	b.affinity().RequiredDuringSchedulingIgnoredDuringExecution = &v1.NodeSelector{NodeSelectorTerms: terms}
	return b
}

// preferred sets the preferred terms.
func (b *podBuilder) preferred(terms ...v1.PreferredSchedulingTerm) *podBuilder {
	b.affinity().PreferredDuringSchedulingIgnoredDuringExecution = terms
	return b
}

func (b *podBuilder) obj() *v1.Pod { return b.pod }
