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
	"encoding/json"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// groupWrites makes the null binder write what a scheduler writes for the
// members of a gang besides their bindings, so that its ceiling costs the
// apiserver the same: kube-scheduler v1.37.1 and Berth publish the node of
// each member that waits at Permit for the rest of its gang in
// status.nominatedNodeName (every member but the one completing the
// quorum), and set the PodGroup's PodGroupInitiallyScheduled condition
// once it is placed. The null binder does not wait: it writes as the
// members come, one write per member that would have waited (with the
// write Berth sends, apiwrite.PublishNomination) and one per gang.
type groupWrites struct {
	client kubernetes.Interface
	now    func() metav1.Time

	mu sync.Mutex
	// gangs are the gangs seen, by namespace/name.
	gangs map[string]*gangCount
}

// gangCount is how many members of a gang the null binder took, out of
// the minCount that complete it (0 for a group that is not a gang).
type gangCount struct {
	once     sync.Once
	group    *schedulingv1beta1.PodGroup
	minCount int32
	taken    int32
}

func newGroupWrites(client kubernetes.Interface) *groupWrites {
	return &groupWrites{client: client, now: metav1.Now, gangs: map[string]*gangCount{}}
}

// arrive counts the pod in its gang, if it is in one, and says whether it
// would wait at Permit (nominate) or complete its gang's quorum (last).
// A PodGroup that cannot be read counts as no gang: nothing is written.
func (g *groupWrites) arrive(ctx context.Context, pod *corev1.Pod) (nominate bool, gang *gangCount) {
	sg := pod.Spec.SchedulingGroup
	if sg == nil || sg.PodGroupName == nil {
		return false, nil
	}
	key := pod.Namespace + "/" + *sg.PodGroupName
	g.mu.Lock()
	c, ok := g.gangs[key]
	if !ok {
		c = &gangCount{}
		g.gangs[key] = c
	}
	g.mu.Unlock()
	c.once.Do(func() {
		pg, err := g.client.SchedulingV1beta1().PodGroups(pod.Namespace).Get(ctx, *sg.PodGroupName, metav1.GetOptions{})
		if err != nil || pg.Spec.SchedulingPolicy.Gang == nil {
			return
		}
		c.group, c.minCount = pg, pg.Spec.SchedulingPolicy.Gang.MinCount
	})
	if c.minCount == 0 {
		return false, nil
	}
	g.mu.Lock()
	c.taken++
	taken := c.taken
	g.mu.Unlock()
	switch {
	case taken < c.minCount:
		return true, nil
	case taken == c.minCount:
		return false, c
	}
	return false, nil
}

// scheduled sets the gang's PodGroupInitiallyScheduled condition, as a
// scheduler does once it placed the gang.
func (g *groupWrites) scheduled(ctx context.Context, c *gangCount) error {
	pg := c.group
	patch, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"uid": pg.UID},
		"status": map[string]any{"conditions": []metav1.Condition{{
			Type:               schedulingv1beta1.PodGroupInitiallyScheduled,
			Status:             metav1.ConditionTrue,
			Reason:             "Scheduled",
			ObservedGeneration: pg.Generation,
			LastTransitionTime: g.now(),
		}}},
	})
	if err != nil {
		return fmt.Errorf("encoding the PodGroup condition: %w", err)
	}
	_, err = g.client.SchedulingV1beta1().PodGroups(pg.Namespace).Patch(ctx, pg.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
	return err
}
