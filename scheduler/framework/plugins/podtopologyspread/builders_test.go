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

package podtopologyspread

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/berth-io/berth/scheduler/framework"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

const (
	zoneKey = v1.LabelTopologyZone
	hostKey = v1.LabelHostname
	hard    = v1.DoNotSchedule
	soft    = v1.ScheduleAnyway
	honor   = v1.NodeInclusionPolicyHonor
	ignore  = v1.NodeInclusionPolicyIgnore
)

// newHandle builds a handle over the NodeInfos whose informer factory's
// indexers hold the objects (Services, ReplicaSets, ...).
func newHandle(t testing.TB, nodes []*framework.NodeInfo, objs ...any) *st.Handle {
	t.Helper()
	f := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	for _, o := range objs {
		var err error
		switch o := o.(type) {
		case *v1.Service:
			err = f.Core().V1().Services().Informer().GetIndexer().Add(o)
		case *v1.ReplicationController:
			err = f.Core().V1().ReplicationControllers().Informer().GetIndexer().Add(o)
		case *appsv1.ReplicaSet:
			err = f.Apps().V1().ReplicaSets().Informer().GetIndexer().Add(o)
		case *appsv1.StatefulSet:
			err = f.Apps().V1().StatefulSets().Informer().GetIndexer().Add(o)
		default:
			t.Fatalf("unsupported object %T", o)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return &st.Handle{Snapshot: st.NewLister(nodes...), Informers: f, Parallel: st.Serial{}}
}

// newPlugin builds the plugin from args (nil for defaults) over the handle.
func newPlugin(t testing.TB, args *Args, h framework.Handle) *PodTopologySpread {
	t.Helper()
	if args == nil {
		args = DefaultArgs()
	}
	pl, err := NewWithArgs(args, h)
	if err != nil {
		t.Fatal(err)
	}
	return pl
}

// listArgs are List args with the default constraints.
func listArgs(cs ...v1.TopologySpreadConstraint) *Args {
	return &Args{DefaultingType: ListDefaulting, DefaultConstraints: cs}
}

// kv turns pairs into a map.
func kv(pairs ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(pairs); i += 2 {
		m[pairs[i]] = pairs[i+1]
	}
	return m
}

// match is a label selector of matchLabels pairs.
func match(pairs ...string) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: kv(pairs...)}
}

// exists selects pods that have the label key.
func exists(key string) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: key, Operator: metav1.LabelSelectorOpExists}}}
}

// spread is a constraint without a selector (for default constraints).
func spread(maxSkew int32, key string, when v1.UnsatisfiableConstraintAction) v1.TopologySpreadConstraint {
	return v1.TopologySpreadConstraint{MaxSkew: maxSkew, TopologyKey: key, WhenUnsatisfiable: when}
}

// node returns a node with the label pairs.
func node(name string, pairs ...string) *v1.Node { return st.Node(name).Labels(pairs...).Obj() }

// zoned returns a node in the zone with its hostname label.
func zoned(name, zone string) *v1.Node { return node(name, hostKey, name, zoneKey, zone) }

// tainted adds a NoSchedule taint with the key.
func tainted(n *v1.Node, key string) *v1.Node {
	n.Spec.Taints = append(n.Spec.Taints, v1.Taint{Key: key, Effect: v1.TaintEffectNoSchedule})
	return n
}

// nodeInfos puts each pod on the NodeInfo of its spec.nodeName, in list order.
func nodeInfos(nodes []*v1.Node, pods ...*v1.Pod) []*framework.NodeInfo {
	return inList(st.NodeInfos(nodes, pods...))
}

// inList gives each NodeInfo its position in nis, as a snapshot does when it
// lays out its node list, and returns nis.
func inList(nis []*framework.NodeInfo) []*framework.NodeInfo {
	for i, ni := range nis {
		ni.SetSnapshotIndex(i)
	}
	return nis
}

// placed returns n pods labelled with the pairs on the node.
func placed(n int, nodeName string, pairs ...string) []*v1.Pod {
	out := make([]*v1.Pod, n)
	for i := range out {
		out[i] = st.Pod(nodeName + "-p" + itoa(i)).Labels(pairs...).NodeName(nodeName).Obj()
	}
	return out
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// concat joins pod lists.
func concat(lists ...[]*v1.Pod) []*v1.Pod {
	var out []*v1.Pod
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// replicaSet returns a ReplicaSet in "default" selecting the pairs.
func replicaSet(name string, pairs ...string) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       appsv1.ReplicaSetSpec{Selector: match(pairs...)},
	}
}

// statefulSet returns a StatefulSet in "default" selecting the pairs.
func statefulSet(name string, pairs ...string) *appsv1.StatefulSet {
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       appsv1.StatefulSetSpec{Selector: match(pairs...)},
	}
}

// service returns a Service in "default" selecting the pairs.
func service(name string, pairs ...string) *v1.Service {
	return &v1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       v1.ServiceSpec{Selector: kv(pairs...)},
	}
}

// replicationController returns an RC in "default" selecting the pairs.
func replicationController(name string, pairs ...string) *v1.ReplicationController {
	return &v1.ReplicationController{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       v1.ReplicationControllerSpec{Selector: kv(pairs...)},
	}
}
