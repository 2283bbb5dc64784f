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

package throughput

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/scheduler/apiwrite"
)

// gangGroup returns a PodGroup named name of the benchmark's namespace,
// a gang of minCount when minCount is positive, else a basic group.
func gangGroup(name string, minCount int32) *schedulingv1beta1.PodGroup {
	pg := &schedulingv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Namespace: Namespace, Name: name, UID: types.UID("pg-" + name)}}
	if minCount > 0 {
		pg.Spec.SchedulingPolicy.Gang = &schedulingv1beta1.GangSchedulingPolicy{MinCount: minCount}
	} else {
		pg.Spec.SchedulingPolicy.Basic = &schedulingv1beta1.BasicSchedulingPolicy{}
	}
	return pg
}

// member returns the i-th pod of group ("" for a pod in no group).
func member(group string, i int) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: Namespace, Name: fmt.Sprintf("%s-%d", group, i)}}
	if group != "" {
		p.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: ptr.To(group)}
	}
	return p
}

func TestGroupWritesArrive(t *testing.T) {
	type arrival struct {
		pod      *corev1.Pod
		nominate bool
		last     bool
	}
	tests := []struct {
		name     string
		arrivals []arrival
	}{{
		name: "every member of a gang but the one completing it is nominated; later ones write nothing",
		arrivals: []arrival{
			{pod: member("gang", 0), nominate: true},
			{pod: member("gang", 1), nominate: true},
			{pod: member("gang", 2), last: true},
			{pod: member("gang", 3)},
		},
	}, {
		name:     "a gang of one completes at once",
		arrivals: []arrival{{pod: member("single", 0), last: true}},
	}, {
		name:     "a basic group writes nothing",
		arrivals: []arrival{{pod: member("basic", 0)}, {pod: member("basic", 1)}},
	}, {
		name:     "a pod in no group writes nothing",
		arrivals: []arrival{{pod: member("", 0)}},
	}, {
		name:     "a PodGroup that cannot be read counts as no gang",
		arrivals: []arrival{{pod: member("missing", 0)}, {pod: member("missing", 1)}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := fake.NewClientset(gangGroup("gang", 3), gangGroup("single", 1), gangGroup("basic", 0))
			g := newGroupWrites(client)
			for i, a := range tt.arrivals {
				nominate, completed := g.arrive(context.Background(), a.pod)
				if nominate != a.nominate || (completed != nil) != a.last {
					t.Errorf("arrival %d (%s): nominate %v, completes the gang %v; want %v, %v", i, a.pod.Name, nominate, completed != nil, a.nominate, a.last)
				}
			}
		})
	}
}

func TestGroupWritesPatches(t *testing.T) {
	pg := gangGroup("gang", 2)
	pod := member("gang", 0)
	client := fake.NewClientset(pg, pod)
	g := newGroupWrites(client)
	ctx := context.Background()
	if nominate, _ := g.arrive(ctx, pod); !nominate {
		t.Fatal("the first member of a gang of 2 is not nominated")
	}
	apiwrite.PublishNomination(ctx, client, pod, "node-7")
	_, completed := g.arrive(ctx, member("gang", 1))
	if completed == nil {
		t.Fatal("the second member of a gang of 2 does not complete it")
	}
	if err := g.scheduled(ctx, completed); err != nil {
		t.Fatalf("setting the condition: %v", err)
	}

	got, err := client.CoreV1().Pods(Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.NominatedNodeName != "node-7" {
		t.Errorf("nominatedNodeName %q, want node-7", got.Status.NominatedNodeName)
	}
	gotPG, err := client.SchedulingV1beta1().PodGroups(Namespace).Get(ctx, pg.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(gotPG.Status.Conditions) != 1 || gotPG.Status.Conditions[0].Type != schedulingv1beta1.PodGroupInitiallyScheduled ||
		gotPG.Status.Conditions[0].Status != metav1.ConditionTrue {
		t.Errorf("PodGroup conditions %+v, want %s True", gotPG.Status.Conditions, schedulingv1beta1.PodGroupInitiallyScheduled)
	}
	var subresources []string
	for _, a := range client.Actions() {
		if p, ok := a.(k8stesting.PatchAction); ok {
			subresources = append(subresources, p.GetResource().Resource+"/"+p.GetSubresource())
		}
	}
	if want := fmt.Sprint([]string{"pods/status", "podgroups/status"}); fmt.Sprint(subresources) != want {
		t.Errorf("patches %v, want %s", subresources, want)
	}
}
