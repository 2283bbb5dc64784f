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

package audit

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/berth-io/berth/api/v1alpha1"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// node returns a node labelled with its hostname and the zone, with room
// for 8 cpus, 32Gi of memory and 110 pods.
func node(name, zone string) *st.NodeBuilder {
	return st.Node(name).Hostname().Zone(zone).Alloc("cpu", "8", "memory", "32Gi", "pods", "110")
}

// bare returns a node without labels, with room for 10 pods.
func bare(name string) *st.NodeBuilder { return st.Node(name).Alloc("pods", "10") }

// pod returns a pod bound to the node.
func pod(name, nodeName string) *st.PodBuilder { return st.Pod(name).NodeName(nodeName) }

// nodes returns the nodes built.
func nodes(bs ...*st.NodeBuilder) []*v1.Node {
	out := make([]*v1.Node, len(bs))
	for i, b := range bs {
		out[i] = b.Obj()
	}
	return out
}

// pods returns the pods built.
func pods(bs ...*st.PodBuilder) []*v1.Pod {
	out := make([]*v1.Pod, len(bs))
	for i, b := range bs {
		out[i] = b.Obj()
	}
	return out
}

// twoZones is node-1 and node-2 in zone a, node-3 in zone b.
func twoZones() []*v1.Node {
	return nodes(node("node-1", "a"), node("node-2", "a"), node("node-3", "b"))
}

// summary is a violation in one line: constraint, kind, object, @node.
func summary(v Violation) string {
	name := v.Name
	if v.Namespace != "" {
		name = v.Namespace + "/" + name
	}
	s := fmt.Sprintf("%s %s %s", v.Constraint, v.Kind, name)
	if v.Node != "" {
		s += " @" + v.Node
	}
	return s
}

func term(key string, pairs ...string) *st.TermBuilder { return st.Term(key, pairs...) }

const (
	hostname = v1.LabelHostname
	zone     = v1.LabelTopologyZone
)

func TestCheck(t *testing.T) {
	terminating := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		cluster Cluster
		// want are the violations' summaries, in Check's order.
		want []string
		// wantMessage is in the first violation's message.
		wantMessage string
	}{
		{name: "no pods", cluster: Cluster{Nodes: twoZones()}},

		// nodeSelector.
		{name: "nodeSelector the node does not match", cluster: Cluster{
			Nodes: nodes(node("node-1", "a").Label("disk", "hdd")),
			Pods:  pods(pod("a", "node-1").NodeSelector("disk", "ssd", "gpu", "yes")),
		}, want: []string{"NodeSelector Pod default/a @node-1"},
			wantMessage: "node node-1 does not match the pod's nodeSelector: disk=ssd (the node has disk=hdd), gpu=yes (the node has no gpu label)"},
		{name: "nodeSelector the node matches", cluster: Cluster{
			Nodes: nodes(node("node-1", "a").Label("disk", "ssd")),
			Pods:  pods(pod("a", "node-1").NodeSelector("disk", "ssd")),
		}},

		// Required node affinity.
		{name: "node affinity the node does not match", cluster: Cluster{
			Nodes: twoZones(),
			Pods: pods(pod("a", "node-3").RequiredNodeAffinity(v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{
				{Key: zone, Operator: v1.NodeSelectorOpIn, Values: []string{"a"}},
			}})),
		}, want: []string{"NodeAffinity Pod default/a @node-3"},
			wantMessage: "node node-3 matches none of the pod's required node-affinity terms: {topology.kubernetes.io/zone In (a)}"},
		{name: "node affinity one of whose terms the node matches", cluster: Cluster{
			Nodes: twoZones(),
			Pods: pods(pod("a", "node-3").RequiredNodeAffinity(
				v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{{Key: zone, Operator: v1.NodeSelectorOpIn, Values: []string{"a"}}}},
				v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{
					{Key: "gpu", Operator: v1.NodeSelectorOpNotIn, Values: []string{"yes"}}, // the node has no gpu label: NotIn matches
					{Key: "spot", Operator: v1.NodeSelectorOpDoesNotExist},
				}},
			)),
		}},
		{name: "node affinity on a field naming another node", cluster: Cluster{
			Nodes: twoZones(),
			Pods: pods(pod("a", "node-1").RequiredNodeAffinity(v1.NodeSelectorTerm{MatchFields: []v1.NodeSelectorRequirement{
				{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{"node-2"}},
			}})),
		}, want: []string{"NodeAffinity Pod default/a @node-1"}, wantMessage: "field metadata.name In (node-2)"},
		{name: "node affinity on a field naming the node", cluster: Cluster{
			Nodes: twoZones(),
			Pods: pods(pod("a", "node-2").RequiredNodeAffinity(v1.NodeSelectorTerm{MatchFields: []v1.NodeSelectorRequirement{
				{Key: "metadata.name", Operator: v1.NodeSelectorOpIn, Values: []string{"node-2"}},
			}})),
		}},
		{name: "node affinity Gt a node's numeric label does not pass", cluster: Cluster{
			Nodes: nodes(node("node-1", "a").Label("cores", "16"), node("node-2", "a").Label("cores", "64")),
			Pods: pods(
				pod("small", "node-1").RequiredNodeAffinity(v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{
					{Key: "cores", Operator: v1.NodeSelectorOpGt, Values: []string{"32"}},
				}}),
				pod("big", "node-2").RequiredNodeAffinity(v1.NodeSelectorTerm{MatchExpressions: []v1.NodeSelectorRequirement{
					{Key: "cores", Operator: v1.NodeSelectorOpGt, Values: []string{"32"}},
				}}),
			),
		}, want: []string{"NodeAffinity Pod default/small @node-1"}},

		// Taints.
		{name: "NoSchedule and NoExecute taints not tolerated", cluster: Cluster{
			Nodes: nodes(node("node-1", "a").Taint("gpu", "true", v1.TaintEffectNoSchedule).
				Taint("maintenance", "", v1.TaintEffectNoExecute).Taint("spot", "true", v1.TaintEffectPreferNoSchedule)),
			Pods: pods(pod("a", "node-1")),
		}, want: []string{"TaintToleration Pod default/a @node-1"},
			wantMessage: "node node-1 has the taints gpu=true:NoSchedule, maintenance:NoExecute, which the pod does not tolerate"},
		{name: "taints tolerated, by key or by an empty key with Exists", cluster: Cluster{
			Nodes: nodes(node("node-1", "a").Taint("gpu", "true", v1.TaintEffectNoSchedule),
				node("node-2", "a").Taint("maintenance", "", v1.TaintEffectNoExecute).Taint(v1.TaintNodeUnschedulable, "", v1.TaintEffectNoSchedule)),
			Pods: pods(pod("a", "node-1").TolerateTaint("gpu", "true", v1.TaintEffectNoSchedule),
				pod("ds", "node-2").Toleration(v1.Toleration{Operator: v1.TolerationOpExists})),
		}},
		{name: "a cordoned node's taint follows the toleration rules", cluster: Cluster{
			Nodes: nodes(node("node-1", "a").Unschedulable(true).Taint(v1.TaintNodeUnschedulable, "", v1.TaintEffectNoSchedule)),
			Pods:  pods(pod("a", "node-1"), pod("ds", "node-1").Tolerate(v1.TaintNodeUnschedulable)),
		}, want: []string{"TaintToleration Pod default/a @node-1"}},
		{name: "a toleration of another effect does not tolerate", cluster: Cluster{
			Nodes: nodes(node("node-1", "a").Taint("gpu", "true", v1.TaintEffectNoExecute)),
			Pods:  pods(pod("a", "node-1").TolerateTaint("gpu", "true", v1.TaintEffectNoSchedule)),
		}, want: []string{"TaintToleration Pod default/a @node-1"}},

		// Required pod anti-affinity.
		{name: "anti-affinity between two pods of one hostname", cluster: Cluster{
			Nodes: twoZones(),
			Pods: pods(pod("a", "node-1").Label("app", "web").PodAntiAffinity(term(hostname, "app", "web")),
				pod("b", "node-1").Label("app", "web")),
		}, want: []string{"PodAntiAffinity Pod default/a @node-1"},
			wantMessage: "pod default/a and default/b share kubernetes.io/hostname=node-1 against a's required anti-affinity (pods with app=web in namespace default)"},
		{name: "anti-affinity across two hostnames", cluster: Cluster{
			Nodes: twoZones(),
			Pods: pods(pod("a", "node-1").Label("app", "web").PodAntiAffinity(term(hostname, "app", "web")),
				pod("b", "node-2").Label("app", "web").PodAntiAffinity(term(hostname, "app", "web"))),
		}},
		{name: "anti-affinity of the other pod, and of both", cluster: Cluster{
			Nodes: twoZones(),
			Pods: pods(pod("a", "node-1").Label("app", "web"),
				pod("b", "node-2").Label("app", "cache").PodAntiAffinity(term(zone, "app", "web")),
				pod("c", "node-3").Label("app", "db").PodAntiAffinity(term(zone, "app", "queue")),
				pod("d", "node-3").Label("app", "queue").PodAntiAffinity(term(zone, "app", "db"))),
		}, want: []string{"PodAntiAffinity Pod default/b @node-2", "PodAntiAffinity Pod default/c @node-3", "PodAntiAffinity Pod default/d @node-3"}},
		{name: "anti-affinity terms select pods of their own namespace by default", cluster: Cluster{
			Nodes: twoZones(),
			Pods: pods(pod("a", "node-1").PodAntiAffinity(term(hostname, "app", "web")),
				pod("b", "node-1").Namespace("other").Label("app", "web")),
		}},
		{name: "anti-affinity terms listing namespaces", cluster: Cluster{
			Nodes: twoZones(),
			Pods: pods(pod("a", "node-1").PodAntiAffinity(term(hostname, "app", "web").Namespaces("other")),
				pod("b", "node-1").Namespace("other").Label("app", "web"),
				pod("c", "node-1").Label("app", "web")),
		}, want: []string{"PodAntiAffinity Pod default/a @node-1"}, wantMessage: "pod default/a and other/b share"},
		{name: "anti-affinity namespaceSelector matching the namespaces' labels", cluster: Cluster{
			Nodes: twoZones(),
			Namespaces: []*v1.Namespace{{ObjectMeta: metav1.ObjectMeta{Name: "team-a", Labels: map[string]string{"team": "a"}}},
				{ObjectMeta: metav1.ObjectMeta{Name: "team-b", Labels: map[string]string{"team": "b"}}}},
			Pods: pods(pod("a", "node-1").PodAntiAffinity(term(hostname, "app", "web").NamespaceSelector("team", "a")),
				pod("b", "node-1").Namespace("team-a").Label("app", "web"),
				pod("c", "node-1").Namespace("team-b").Label("app", "web")),
		}, want: []string{"PodAntiAffinity Pod default/a @node-1"}, wantMessage: "pod default/a and team-a/b share"},
		{name: "anti-affinity namespaceSelector without namespaces matches the name label only", cluster: Cluster{
			Nodes: twoZones(),
			Pods: pods(pod("a", "node-1").PodAntiAffinity(term(hostname, "app", "web").NamespaceSelector(v1.LabelMetadataName, "team-b")),
				pod("b", "node-1").Namespace("team-a").Label("app", "web"),
				pod("c", "node-1").Namespace("team-b").Label("app", "web"),
				pod("d", "node-2").PodAntiAffinity(term(hostname, "app", "web").NamespaceSelector("team", "a")),
				pod("e", "node-2").Namespace("team-a").Label("app", "web")),
		}, want: []string{"PodAntiAffinity Pod default/a @node-1"}, wantMessage: "pod default/a and team-b/c share"},
		{name: "anti-affinity with matchLabelKeys spares other revisions", cluster: Cluster{
			Nodes: twoZones(),
			Pods: pods(pod("a", "node-1").Labels("app", "web", "pod-template-hash", "1").PodAntiAffinity(term(hostname, "app", "web").MatchLabelKeys("pod-template-hash")),
				pod("b", "node-1").Labels("app", "web", "pod-template-hash", "2"),
				pod("c", "node-2").Labels("app", "web", "pod-template-hash", "2").PodAntiAffinity(term(hostname, "app", "web").MatchLabelKeys("pod-template-hash")),
				pod("d", "node-2").Labels("app", "web", "pod-template-hash", "2")),
		}, want: []string{"PodAntiAffinity Pod default/c @node-2"}},
		{name: "anti-affinity with mismatchLabelKeys", cluster: Cluster{
			Nodes: twoZones(),
			Pods: pods(pod("a", "node-1").Labels("tenant", "x").Affinity(&v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{TopologyKey: hostname, LabelSelector: &metav1.LabelSelector{}, MismatchLabelKeys: []string{"tenant"}}},
			}}),
				pod("b", "node-1").Labels("tenant", "x"),
				pod("c", "node-2").Labels("tenant", "x").Affinity(&v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{
					RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{TopologyKey: hostname, LabelSelector: &metav1.LabelSelector{}, MismatchLabelKeys: []string{"tenant"}}},
				}}),
				pod("d", "node-2").Labels("tenant", "y")),
		}, want: []string{"PodAntiAffinity Pod default/c @node-2"}, wantMessage: "pod default/c and default/d share"},
		{name: "a pod being deleted still counts for anti-affinity", cluster: Cluster{
			Nodes: twoZones(),
			Pods: pods(pod("a", "node-1").PodAntiAffinity(term(hostname, "app", "web")),
				pod("b", "node-1").Label("app", "web").Terminating(terminating)),
		}, want: []string{"PodAntiAffinity Pod default/a @node-1"}},
		{name: "terminated and unbound pods are not checked and do not count", cluster: Cluster{
			Nodes: twoZones(),
			Pods: pods(pod("a", "node-1").PodAntiAffinity(term(hostname, "app", "web")),
				pod("done", "node-1").Label("app", "web").Phase(v1.PodSucceeded),
				pod("failed", "node-1").Label("app", "web").Phase(v1.PodFailed).NodeSelector("no", "such"),
				st.Pod("pending").Label("app", "web").NodeSelector("no", "such")),
		}},
		{name: "a node without the topology key is in no anti-affinity domain", cluster: Cluster{
			Nodes: nodes(bare("bare"), bare("bare-2")),
			Pods: pods(pod("a", "bare").Label("app", "web").PodAntiAffinity(term(zone, "app", "web")),
				pod("b", "bare-2").Label("app", "web")),
		}},

		// Required pod affinity.
		{name: "affinity to pods in another zone only", cluster: Cluster{
			Nodes: twoZones(),
			Pods: pods(pod("web", "node-3").PodAffinity(term(zone, "app", "db")),
				pod("db", "node-1").Label("app", "db")),
		}, want: []string{"PodAffinity Pod default/web @node-3"},
			wantMessage: "no pod in topology.kubernetes.io/zone=b matches web's required affinity (pods with app=db in namespace default)"},
		{name: "affinity to a pod of the same zone on another node", cluster: Cluster{
			Nodes: twoZones(),
			Pods: pods(pod("web", "node-2").PodAffinity(term(zone, "app", "db")),
				pod("db", "node-1").Label("app", "db")),
		}},
		{name: "affinity a pod satisfies itself", cluster: Cluster{
			Nodes: twoZones(),
			Pods: pods(pod("w-1", "node-3").Label("app", "web").PodAffinity(term(zone, "app", "web")),
				pod("w-2", "node-1").Label("app", "web").PodAffinity(term(zone, "app", "web"))),
		}},
		{name: "affinity on a node without the topology key", cluster: Cluster{
			Nodes: nodes(bare("bare"), node("node-1", "a")),
			Pods: pods(pod("web", "bare").Label("app", "web").PodAffinity(term(zone, "app", "web")),
				pod("db", "node-1").Label("app", "web")),
		}, want: []string{"PodAffinity Pod default/web @bare"}, wantMessage: "node bare has no label topology.kubernetes.io/zone"},

		// Hard topology spread.
		{name: "spread over zones above maxSkew", cluster: Cluster{
			Nodes: twoZones(),
			Pods: pods(spreadPod("w-1", "node-1", 1), spreadPod("w-2", "node-2", 1), spreadPod("w-3", "node-2", 1),
				spreadPod("w-4", "node-3", 1)),
		}, want: []string{"PodTopologySpread Pod default/w-1 @node-1", "PodTopologySpread Pod default/w-2 @node-2", "PodTopologySpread Pod default/w-3 @node-2"},
			wantMessage: "topology.kubernetes.io/zone=a holds 3 pods with app=web in namespace default and the emptiest, topology.kubernetes.io/zone=b, holds 1: skew 2 is above maxSkew 1"},
		{name: "spread over zones within maxSkew", cluster: Cluster{
			Nodes: twoZones(),
			Pods: pods(spreadPod("w-1", "node-1", 1), spreadPod("w-2", "node-2", 1), spreadPod("w-3", "node-3", 1),
				spreadPod("w-4", "node-3", 2), spreadPod("w-5", "node-1", 2),
				spreadPod("w-6", "node-2", 2).Terminating(terminating)),
		}},
		{name: "ScheduleAnyway is not hard", cluster: Cluster{
			Nodes: twoZones(),
			Pods: pods(pod("w-1", "node-1").Label("app", "web").Spread(1, zone, v1.ScheduleAnyway, st.Selector("app", "web")),
				pod("w-2", "node-1").Label("app", "web").Spread(1, zone, v1.ScheduleAnyway, st.Selector("app", "web"))),
		}},
		{name: "spread with fewer domains than minDomains", cluster: Cluster{
			Nodes: twoZones(),
			Pods: pods(spreadPod("w-1", "node-1", 1).MinDomains(3), spreadPod("w-2", "node-3", 1).MinDomains(3),
				spreadPod("w-3", "node-3", 1).MinDomains(3)),
		}, want: []string{"PodTopologySpread Pod default/w-2 @node-3", "PodTopologySpread Pod default/w-3 @node-3"},
			wantMessage: "there are 2 domains, fewer than minDomains 3, so the minimum counts as 0: skew 2 is above maxSkew 1"},
		{name: "spread honours the pods' node affinity", cluster: Cluster{
			Nodes: nodes(node("node-1", "a"), node("node-2", "b"), node("node-3", "c").Label("arm", "yes")),
			// Only node-3 counts: zone c holds no pod, the fullest and the emptiest.
			Pods: pods(spreadPod("w-1", "node-1", 1).NodeSelector("arm", "yes"), spreadPod("w-2", "node-1", 1).NodeSelector("arm", "yes")),
		}, want: []string{"NodeSelector Pod default/w-1 @node-1", "NodeSelector Pod default/w-2 @node-1"}},
		{name: "spread counts nodes the pods cannot go to under nodeAffinityPolicy Ignore", cluster: Cluster{
			Nodes: nodes(node("node-1", "a"), node("node-2", "b"), node("node-3", "c").Label("pool", "batch")),
			Pods: pods(
				spreadPod("w-1", "node-1", 1).NodeAffinityPolicy(v1.NodeInclusionPolicyIgnore),
				spreadPod("w-2", "node-1", 1).NodeAffinityPolicy(v1.NodeInclusionPolicyIgnore),
				spreadPod("x-1", "node-2", 1).NodeSelector("zone-b", "").NodeAffinityPolicy(v1.NodeInclusionPolicyHonor).Label("app", "x")),
		}, want: []string{
			"PodTopologySpread Pod default/w-1 @node-1", "PodTopologySpread Pod default/w-2 @node-1",
			"NodeSelector Pod default/x-1 @node-2",
		}},
		{name: "spread skips tainted nodes under nodeTaintsPolicy Honor", cluster: Cluster{
			Nodes: nodes(node("node-1", "a"), node("node-2", "a"), node("node-3", "b").Taint("gpu", "", v1.TaintEffectNoSchedule)),
			Pods: pods(spreadPod("w-1", "node-1", 1).NodeTaintsPolicy(v1.NodeInclusionPolicyHonor),
				spreadPod("w-2", "node-2", 1).NodeTaintsPolicy(v1.NodeInclusionPolicyHonor)),
		}},
		{name: "spread with matchLabelKeys counts each revision apart", cluster: Cluster{
			Nodes: twoZones(),
			Pods: pods(spreadPod("w-1", "node-1", 1).Label("rev", "1").SpreadMatchLabelKeys("rev"),
				spreadPod("w-2", "node-2", 1).Label("rev", "1").SpreadMatchLabelKeys("rev"),
				spreadPod("w-3", "node-3", 1).Label("rev", "2").SpreadMatchLabelKeys("rev"),
				spreadPod("w-4", "node-3", 1).Label("rev", "2").SpreadMatchLabelKeys("rev")),
		}, want: []string{
			"PodTopologySpread Pod default/w-1 @node-1", "PodTopologySpread Pod default/w-2 @node-2",
			"PodTopologySpread Pod default/w-3 @node-3", "PodTopologySpread Pod default/w-4 @node-3",
		}},
		{name: "spread on a node without the topology key", cluster: Cluster{
			Nodes: nodes(bare("bare"), node("node-1", "a")),
			Pods:  pods(spreadPod("w-1", "bare", 1), spreadPod("w-2", "node-1", 1)),
		}, want: []string{"PodTopologySpread Pod default/w-1 @bare"}, wantMessage: "node bare has no label topology.kubernetes.io/zone"},

		// Resources.
		{name: "requests above allocatable", cluster: Cluster{
			Nodes: nodes(st.Node("node-1").Alloc("cpu", "2", "memory", "4Gi", "pods", "2")),
			Pods: pods(pod("a", "node-1").Req("cpu", "1500m", "memory", "1Gi"), pod("b", "node-1").Req("cpu", "1", "example.com/gpu", "1"),
				pod("c", "node-1")),
		}, want: []string{"NodeResources Node node-1 @node-1"},
			wantMessage: "the requests of the node's 3 bound pods exceed its allocatable: pods 3 > 2, cpu 2500m > 2, example.com/gpu 1 > 0"},
		{name: "requests within allocatable", cluster: Cluster{
			Nodes: nodes(st.Node("node-1").Alloc("cpu", "2", "memory", "4Gi", "pods", "2", "example.com/gpu", "1")),
			Pods: pods(pod("a", "node-1").Req("cpu", "1", "memory", "1Gi"), pod("b", "node-1").Req("cpu", "1", "example.com/gpu", "1"),
				pod("done", "node-1").Req("cpu", "4").Phase(v1.PodSucceeded)),
		}},
		{name: "init containers, sidecars and overhead count", cluster: Cluster{
			Nodes: nodes(st.Node("node-1").Alloc("cpu", "2", "memory", "4Gi", "pods", "10"),
				st.Node("node-2").Alloc("cpu", "2", "memory", "4Gi", "pods", "10")),
			Pods: pods(pod("init", "node-1").Req("cpu", "500m").Init("cpu", "2500m"),
				pod("sidecar", "node-2").Req("cpu", "1").Sidecar("cpu", "500m").Overhead("cpu", "600m")),
		}, want: []string{"NodeResources Node node-1 @node-1", "NodeResources Node node-2 @node-2"}, wantMessage: "cpu 2500m > 2"},
		{name: "extended resources given through a DRA claim are not held against allocatable", cluster: Cluster{
			Nodes: nodes(st.Node("node-1").Alloc("cpu", "2", "pods", "10")),
			Pods: []*v1.Pod{func() *v1.Pod {
				p := pod("a", "node-1").Req("example.com/gpu", "1").Obj()
				p.Status.ExtendedResourceClaimStatus = &v1.PodExtendedResourceClaimStatus{ResourceClaimName: "a-gpu",
					RequestMappings: []v1.ContainerExtendedResourceRequest{{ContainerName: "c0", ResourceName: "example.com/gpu", RequestName: "r"}}}
				return p
			}()},
		}},

		// Host ports.
		{name: "a host port two pods of a node take", cluster: Cluster{
			Nodes: twoZones(),
			Pods: pods(pod("old", "node-1").HostPort(8080).Created(terminating),
				pod("new", "node-1").Port(v1.ContainerPort{HostPort: 8080, ContainerPort: 80, HostIP: "10.0.0.1"}).Created(terminating.Add(time.Hour))),
		}, want: []string{"HostPorts Pod default/new @node-1"},
			wantMessage: "hostPort 8080/TCP on 10.0.0.1 on node node-1 is also taken by default/old (8080/TCP on 0.0.0.0)"},
		{name: "host ports that do not conflict", cluster: Cluster{
			Nodes: twoZones(),
			Pods: pods(pod("a", "node-1").HostPort(8080),
				pod("b", "node-1").Port(v1.ContainerPort{HostPort: 8080, ContainerPort: 80, Protocol: v1.ProtocolUDP}),
				pod("c", "node-2").HostPort(8080),
				pod("d", "node-3").Port(v1.ContainerPort{HostPort: 9090, HostIP: "10.0.0.1"}),
				pod("e", "node-3").Port(v1.ContainerPort{HostPort: 9090, HostIP: "10.0.0.2"}),
				pod("f", "node-3").Port(v1.ContainerPort{ContainerPort: 9090})),
		}},

		// Gangs.
		{name: "gangs bound below minCount", cluster: Cluster{
			Nodes: twoZones(),
			Pods: pods(pod("n-1", "node-1").SchedulingGroup("native"), pod("n-2", "node-2").SchedulingGroup("native"),
				st.Pod("n-3").SchedulingGroup("native"), pod("n-4", "node-3").SchedulingGroup("native").Phase(v1.PodSucceeded),
				pod("b-1", "node-3").Group("berth")),
			PodGroups:      []*schedulingv1beta1.PodGroup{st.WorkloadGroup("native").Gang(4).Obj()},
			BerthPodGroups: []*v1alpha1.PodGroup{st.PodGroup("berth", 2).Obj()},
		}, want: []string{"GangMinCount PodGroup.scheduling.berth.io default/berth", "GangMinCount PodGroup default/native"},
			wantMessage: "1 of the gang's members is bound (on node-3), fewer than its minCount 2"},
		{name: "gangs complete, waiting, or basic", cluster: Cluster{
			Nodes: twoZones(),
			Pods: pods(pod("n-1", "node-1").SchedulingGroup("full"), pod("n-2", "node-2").SchedulingGroup("full"),
				st.Pod("w-1").SchedulingGroup("waiting"), st.Pod("w-2").SchedulingGroup("waiting"),
				pod("b-1", "node-1").SchedulingGroup("basic"),
				pod("l-1", "node-1").Group("legacy"), pod("l-2", "node-2").Group("legacy"),
				// A pod naming a native group joins it, whatever its label says.
				pod("x-1", "node-3").SchedulingGroup("full").Group("legacy")),
			PodGroups: []*schedulingv1beta1.PodGroup{st.WorkloadGroup("full").Gang(3).Obj(), st.WorkloadGroup("waiting").Gang(2).Obj(),
				st.WorkloadGroup("basic").Obj()},
			BerthPodGroups: []*v1alpha1.PodGroup{st.PodGroup("legacy", 0).MinMember(2).Obj(), st.PodGroup("solo", 3).Basic().Obj()},
		}},

		// A pod bound to a node that is gone is not checked.
		{name: "a pod on a node not in the snapshot", cluster: Cluster{
			Nodes: twoZones(),
			Pods:  pods(pod("a", "gone").NodeSelector("no", "such")),
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Check(tc.cluster)
			summaries := make([]string, len(got))
			for i, v := range got {
				summaries[i] = summary(v)
			}
			if !slices.Equal(summaries, tc.want) {
				t.Errorf("violations:\n  %s\nwant:\n  %s\nmessages:\n  %s", strings.Join(summaries, "\n  "), strings.Join(tc.want, "\n  "), messages(got))
			}
			if tc.wantMessage != "" && (len(got) == 0 || !strings.Contains(got[0].Message, tc.wantMessage)) {
				t.Errorf("the first violation's message lacks %q:\n  %s", tc.wantMessage, messages(got))
			}
		})
	}
}

// spreadPod is a pod labelled app=web with a DoNotSchedule spread over
// zones of the maxSkew, selecting app=web.
func spreadPod(name, nodeName string, maxSkew int32) *st.PodBuilder {
	return pod(name, nodeName).Label("app", "web").Spread(maxSkew, zone, v1.DoNotSchedule, st.Selector("app", "web"))
}

func messages(vs []Violation) string {
	var b strings.Builder
	for _, v := range vs {
		fmt.Fprintf(&b, "%s: %s\n  ", summary(v), v.Message)
	}
	return b.String()
}

func TestCheckIsSortedAndStable(t *testing.T) {
	c := Cluster{
		Nodes: twoZones(),
		Pods: pods(pod("z", "node-1").NodeSelector("no", "such"), pod("a", "node-1").Namespace("b-ns").NodeSelector("no", "such"),
			pod("a", "node-2").NodeSelector("no", "such").PodAntiAffinity(term(zone, "app", "web")), pod("w", "node-1").Label("app", "web")),
	}
	want := []string{
		"NodeSelector Pod b-ns/a @node-1",
		"NodeSelector Pod default/a @node-2", "PodAntiAffinity Pod default/a @node-2",
		"NodeSelector Pod default/z @node-1",
	}
	for i := range 3 {
		slices.Reverse(c.Pods)
		slices.Reverse(c.Nodes)
		var got []string
		for _, v := range Check(c) {
			got = append(got, summary(v))
		}
		if !slices.Equal(got, want) {
			t.Errorf("run %d: violations %q, want %q", i, got, want)
		}
	}
}

func TestPodRequests(t *testing.T) {
	always := v1.ContainerRestartPolicyAlways
	tests := []struct {
		name string
		pod  *v1.Pod
		want v1.ResourceList
	}{
		{name: "containers summed", pod: st.Pod("p").Container("cpu", "1", "memory", "1Gi").Container("cpu", "500m").Obj(),
			want: st.List("cpu", "1500m", "memory", "1Gi")},
		{name: "the largest init container", pod: st.Pod("p").Container("cpu", "1").Init("cpu", "3").Init("cpu", "2", "memory", "1Gi").Obj(),
			want: st.List("cpu", "3", "memory", "1Gi")},
		{name: "sidecars with the containers and before later init containers", pod: st.Pod("p").Container("cpu", "1").
			Sidecar("cpu", "1").Init("cpu", "2500m").Obj(),
			want: st.List("cpu", "3500m")},
		{name: "pod-level requests in place of the containers'", pod: st.Pod("p").Container("cpu", "1", "memory", "1Gi", "example.com/gpu", "1").
			PodLevel("cpu", "4").Overhead("cpu", "100m").Obj(),
			want: st.List("cpu", "4100m", "memory", "1Gi", "example.com/gpu", "1")},
		{name: "a resize in progress counts the larger", pod: st.Pod("p").Container("cpu", "1").Container("cpu", "1").
			ContainerStatus(v1.ContainerStatus{Name: "c0", AllocatedResources: st.List("cpu", "2")}).Obj(),
			want: st.List("cpu", "3")},
		{name: "an infeasible resize counts what is allocated", pod: st.Pod("p").Container("cpu", "8").
			ContainerStatus(v1.ContainerStatus{Name: "c0", AllocatedResources: st.List("cpu", "2"), Resources: &v1.ResourceRequirements{Requests: st.List("cpu", "2")}}).
			Condition(v1.PodCondition{Type: v1.PodResizePending, Status: v1.ConditionTrue, Reason: v1.PodReasonInfeasible}).Obj(),
			want: st.List("cpu", "2")},
		{name: "a sidecar's status", pod: func() *v1.Pod {
			p := st.Pod("p").Container("cpu", "1").Obj()
			p.Spec.InitContainers = []v1.Container{{Name: "s", RestartPolicy: &always, Resources: v1.ResourceRequirements{Requests: st.List("cpu", "1")}}}
			p.Status.InitContainerStatuses = []v1.ContainerStatus{{Name: "s", AllocatedResources: st.List("cpu", "3")}}
			return p
		}(), want: st.List("cpu", "4")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := podRequests(tc.pod)
			if len(got) != len(tc.want) {
				t.Fatalf("requests %v, want %v", got, tc.want)
			}
			for r, q := range tc.want {
				if g := got[r]; g.Cmp(q) != 0 {
					t.Errorf("%s: %s, want %s", r, g.String(), q.String())
				}
			}
		})
	}
}
