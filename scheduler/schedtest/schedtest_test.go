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

package schedtest

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func meta(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: "default", UID: "p-uid"}
}

func TestPodBuilder(t *testing.T) {
	one := resource.MustParse("1")
	tests := []struct {
		name string
		got  *v1.Pod
		want *v1.Pod
	}{
		{
			name: "bare",
			got:  Pod("p").Obj(),
			want: &v1.Pod{ObjectMeta: meta("p")},
		},
		{
			name: "metadata",
			got: Pod("p").Namespace("ns").UID("u").ResourceVersion("7").Label("a", "1").Annotation("n", "x").
				Group("g").Owner("apps/v1", "ReplicaSet", "rs").Created(t0).Terminating(t0).Finalizers("f").Obj(),
			want: &v1.Pod{ObjectMeta: metav1.ObjectMeta{
				Name: "p", Namespace: "ns", UID: "u", ResourceVersion: "7",
				Labels:            map[string]string{"a": "1", v1alpha1.PodGroupLabel: "g"},
				Annotations:       map[string]string{"n": "x"},
				OwnerReferences:   []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: "rs-uid", Controller: ptr.To(true)}},
				CreationTimestamp: metav1.NewTime(t0), DeletionTimestamp: ptr.To(metav1.NewTime(t0)), Finalizers: []string{"f"},
			}},
		},
		{
			name: "labels replace",
			got:  Pod("p").Label("a", "1").Labels("b", "2").Obj(),
			want: &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default", UID: "p-uid", Labels: map[string]string{"b": "2"}}},
		},
		{
			name: "scheduling",
			got: Pod("p").SchedulerName("s").SecurityContext(&v1.PodSecurityContext{}).Priority(3).PriorityClass("high").PreemptionPolicy(v1.PreemptNever).
				NodeName("n1").Nominated("n2").Gates("g1", "g2").Tolerate("k").NodeSelector("zone", "a").Obj(),
			want: &v1.Pod{ObjectMeta: meta("p"), Spec: v1.PodSpec{
				SchedulerName: "s", SecurityContext: &v1.PodSecurityContext{}, Priority: ptr.To[int32](3), PriorityClassName: "high", PreemptionPolicy: ptr.To(v1.PreemptNever),
				NodeName: "n1", SchedulingGates: []v1.PodSchedulingGate{{Name: "g1"}, {Name: "g2"}},
				Tolerations:  []v1.Toleration{{Key: "k", Operator: v1.TolerationOpExists}},
				NodeSelector: map[string]string{"zone": "a"},
			}, Status: v1.PodStatus{NominatedNodeName: "n2"}},
		},
		{
			name: "first container made on demand",
			got: Pod("p").Req("cpu", "1").Limit("cpu", "1").Image("img").HostPort(80).Command("run", "-v").Env("A", "1").
				EnvFrom("N", &v1.EnvVarSource{FieldRef: &v1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}).Obj(),
			want: &v1.Pod{ObjectMeta: meta("p"), Spec: v1.PodSpec{Containers: []v1.Container{{
				Name: "c0", Image: "img",
				Resources: v1.ResourceRequirements{Requests: v1.ResourceList{"cpu": one}, Limits: v1.ResourceList{"cpu": one}},
				Ports:     []v1.ContainerPort{{ContainerPort: 80, HostPort: 80, Protocol: v1.ProtocolTCP}},
				Command:   []string{"run", "-v"},
				Env:       []v1.EnvVar{{Name: "A", Value: "1"}, {Name: "N", ValueFrom: &v1.EnvVarSource{FieldRef: &v1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}}},
			}}}},
		},
		{
			name: "replacing setters",
			got: Pod("p").Owner("apps/v1", "ReplicaSet", "rs").OwnerRefs(metav1.OwnerReference{Kind: "Job", Name: "j"}).
				Req("cpu", "2", "memory", "1Gi").Requests("cpu", "1").ContainerName("app").
				ContainerRestart(v1.ContainerRestartPolicyNever, v1.ContainerRestartRule{Action: v1.ContainerRestartRuleActionRestartAllContainers}).
				TolerateTaint("k", "v", v1.TaintEffectNoSchedule).Obj(),
			want: &v1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default", UID: "p-uid", OwnerReferences: []metav1.OwnerReference{{Kind: "Job", Name: "j"}}},
				Spec: v1.PodSpec{
					Containers: []v1.Container{{
						Name: "app", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{"cpu": one}},
						RestartPolicy:      ptr.To(v1.ContainerRestartPolicyNever),
						RestartPolicyRules: []v1.ContainerRestartRule{{Action: v1.ContainerRestartRuleActionRestartAllContainers}},
					}},
					Tolerations: []v1.Toleration{{Key: "k", Operator: v1.TolerationOpEqual, Value: "v", Effect: v1.TaintEffectNoSchedule}},
				},
			},
		},
		{
			name: "containers",
			got:  Pod("p").Container("cpu", "1").Images("a").InitImages("b").InitLimit("cpu", "1").Sidecar().Obj(),
			want: &v1.Pod{ObjectMeta: meta("p"), Spec: v1.PodSpec{
				Containers: []v1.Container{
					{Name: "c0", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{"cpu": one}}},
					{Name: "c1", Image: "a"},
				},
				InitContainers: []v1.Container{
					{Name: "i0", Image: "b"},
					{Name: "i1", Resources: v1.ResourceRequirements{Limits: v1.ResourceList{"cpu": one}}},
					{Name: "s2", RestartPolicy: ptr.To(v1.ContainerRestartPolicyAlways)},
				},
			}},
		},
		{
			name: "affinity",
			got: Pod("p").RequiredNodeAffinity().PodAffinity(Term("zone", "app", "a").Namespaces("x")).
				PodAntiAffinity(Term("host", "app", "b").NamespaceSelector("team", "t")).
				PreferPodAffinity(5, Term("zone").MatchLabelKeys("rev")).PreferPodAntiAffinity(7, Term("host").Selector(nil)).Obj(),
			want: &v1.Pod{ObjectMeta: meta("p"), Spec: v1.PodSpec{Affinity: &v1.Affinity{
				NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{}},
				PodAffinity: &v1.PodAffinity{
					RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{TopologyKey: "zone", Namespaces: []string{"x"}, LabelSelector: Selector("app", "a")}},
					PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{{Weight: 5, PodAffinityTerm: v1.PodAffinityTerm{
						TopologyKey: "zone", LabelSelector: Selector(), MatchLabelKeys: []string{"rev"},
					}}},
				},
				PodAntiAffinity: &v1.PodAntiAffinity{
					RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{TopologyKey: "host", LabelSelector: Selector("app", "b"), NamespaceSelector: Selector("team", "t")}},
					PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{{Weight: 7, PodAffinityTerm: v1.PodAffinityTerm{
						TopologyKey: "host",
					}}},
				},
			}}},
		},
		{
			name: "topology spread",
			got: Pod("p").Spread(1, "zone", v1.DoNotSchedule, Selector("app", "a")).MinDomains(2).
				NodeAffinityPolicy(v1.NodeInclusionPolicyIgnore).NodeTaintsPolicy(v1.NodeInclusionPolicyHonor).SpreadMatchLabelKeys("rev").Obj(),
			want: &v1.Pod{ObjectMeta: meta("p"), Spec: v1.PodSpec{TopologySpreadConstraints: []v1.TopologySpreadConstraint{{
				MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: v1.DoNotSchedule, LabelSelector: Selector("app", "a"), MinDomains: ptr.To[int32](2),
				NodeAffinityPolicy: ptr.To(v1.NodeInclusionPolicyIgnore), NodeTaintsPolicy: ptr.To(v1.NodeInclusionPolicyHonor), MatchLabelKeys: []string{"rev"},
			}}}},
		},
		{
			name: "volumes and claims",
			got:  Pod("p").PVC("c1").Ephemeral("e").EmptyDir("s").Volumes(v1.VolumeSource{HostPath: &v1.HostPathVolumeSource{Path: "/x"}}).ResourceClaims("gpu").ResourceClaimTemplate("t", "tmpl").GeneratedClaim("t", "p-t").Obj(),
			want: &v1.Pod{ObjectMeta: meta("p"), Spec: v1.PodSpec{
				Volumes: []v1.Volume{
					{Name: "c1", VolumeSource: v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: "c1"}}},
					{Name: "e", VolumeSource: v1.VolumeSource{Ephemeral: &v1.EphemeralVolumeSource{}}},
					{Name: "s", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}},
					{Name: "v3", VolumeSource: v1.VolumeSource{HostPath: &v1.HostPathVolumeSource{Path: "/x"}}},
				},
				ResourceClaims: []v1.PodResourceClaim{{Name: "gpu", ResourceClaimName: ptr.To("gpu")}, {Name: "t", ResourceClaimTemplateName: ptr.To("tmpl")}},
			}, Status: v1.PodStatus{ResourceClaimStatuses: []v1.PodResourceClaimStatus{{Name: "t", ResourceClaimName: ptr.To("p-t")}}}},
		},
		{
			name: "status",
			got: Pod("p").Phase(v1.PodFailed).Reason("Evicted").StartTime(t0).Condition(v1.PodCondition{Type: v1.PodScheduled}).
				ContainerStatus(v1.ContainerStatus{Name: "c"}).InitContainerStatus(v1.ContainerStatus{Name: "i"}).Obj(),
			want: &v1.Pod{ObjectMeta: meta("p"), Status: v1.PodStatus{
				Phase: v1.PodFailed, Reason: "Evicted", StartTime: ptr.To(metav1.NewTime(t0)),
				Conditions:            []v1.PodCondition{{Type: v1.PodScheduled}},
				ContainerStatuses:     []v1.ContainerStatus{{Name: "c"}},
				InitContainerStatuses: []v1.ContainerStatus{{Name: "i"}},
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.got); diff != "" {
				t.Errorf("pod (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPodFromCopies(t *testing.T) {
	orig := Pod("p").Label("a", "1").Obj()
	changed := PodFrom(orig).Label("a", "2").Obj()
	if orig.Labels["a"] != "1" || changed.Labels["a"] != "2" {
		t.Errorf("PodFrom changed the original: %v, copy %v", orig.Labels, changed.Labels)
	}
}

func TestNodeFromCopies(t *testing.T) {
	orig := Node("n").Label("a", "1").Obj()
	changed := NodeFrom(orig).Label("a", "2").Obj()
	if orig.Labels["a"] != "1" || changed.Labels["a"] != "2" {
		t.Errorf("NodeFrom changed the original: %v, copy %v", orig.Labels, changed.Labels)
	}
}

func TestNodeBuilder(t *testing.T) {
	tests := []struct {
		name string
		got  *v1.Node
		want *v1.Node
	}{
		{
			name: "bare",
			got:  Node("n").Obj(),
			want: &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", UID: "n-uid"}},
		},
		{
			name: "everything",
			got: Node("n").ResourceVersion("2").Hostname().Zone("a").Region("r").Label("k", "v").Alloc("cpu", "1").
				Unschedulable(true).Taint("t", "x", v1.TaintEffectNoSchedule).Image(10, "img").Ready().DeclaredFeatures("F").Obj(),
			want: &v1.Node{
				ObjectMeta: metav1.ObjectMeta{Name: "n", UID: "n-uid", ResourceVersion: "2", Labels: map[string]string{
					v1.LabelHostname: "n", v1.LabelTopologyZone: "a", v1.LabelTopologyRegion: "r", "k": "v",
				}},
				Spec: v1.NodeSpec{Unschedulable: true, Taints: []v1.Taint{{Key: "t", Value: "x", Effect: v1.TaintEffectNoSchedule}}},
				Status: v1.NodeStatus{
					Allocatable: List("cpu", "1"), Capacity: List("cpu", "1"),
					Images:           []v1.ContainerImage{{Names: []string{"img"}, SizeBytes: 10}},
					Conditions:       []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}},
					DeclaredFeatures: []string{"F"},
				},
			},
		},
		{
			name: "from a node",
			got:  NodeFrom(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}}).UID("u").Obj(),
			want: &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", UID: "u"}},
		},
		{
			name: "labels replace",
			got:  Node("n").Hostname().Labels("k", "v").Obj(),
			want: &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", UID: "n-uid", Labels: map[string]string{"k": "v"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.got); diff != "" {
				t.Errorf("node (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPodGroupBuilder(t *testing.T) {
	got := PodGroup("g", 3).Namespace("ns").UID("u").Generation(2).Created(t0).ScheduleTimeout(60).
		Status(v1alpha1.PodGroupStatus{Phase: v1alpha1.PodGroupPhase("Scheduled")}).Obj()
	want := &v1alpha1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Name: "g", Namespace: "ns", UID: "u", Generation: 2, CreationTimestamp: metav1.NewTime(t0)},
		Spec: v1alpha1.PodGroupSpec{
			SchedulingPolicy:       &v1alpha1.PodGroupSchedulingPolicy{Gang: &v1alpha1.GangSchedulingPolicy{MinCount: 3}},
			ScheduleTimeoutSeconds: ptr.To[int32](60),
		},
		Status: v1alpha1.PodGroupStatus{Phase: v1alpha1.PodGroupPhase("Scheduled")},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("PodGroup (-want +got):\n%s", diff)
	}
	old := PodGroup("g", 3).MinMember(5).Obj()
	if old.Spec.SchedulingPolicy != nil || old.Spec.MinMember != 5 {
		t.Errorf("MinMember(5): spec %+v, want only the deprecated minMember", old.Spec)
	}
	rack := PodGroup("g", 3).Basic().Topology("rack").DisruptAll().Obj()
	if rack.Spec.SchedulingPolicy.Basic == nil || rack.Spec.SchedulingConstraints.Topology[0].Key != "rack" || rack.Spec.DisruptionMode.All == nil {
		t.Errorf("Basic().Topology().DisruptAll(): spec %+v", rack.Spec)
	}
	if diff := cmp.Diff(int64(1), PodGroup("g", 1).Obj().Generation); diff != "" {
		t.Errorf("default generation (-want +got):\n%s", diff)
	}
}

func TestNodeInfos(t *testing.T) {
	nodes := []*v1.Node{Node("a").Obj(), Node("b").Obj()}
	pods := []*v1.Pod{
		Pod("on-a").NodeName("a").Obj(),
		Pod("anti-on-b").NodeName("b").PodAntiAffinity(Term("host", "app", "x")).Obj(),
		Pod("nowhere").NodeName("c").Obj(),
	}
	nis := NodeInfos(nodes, pods...)
	got := map[string][]string{}
	for _, ni := range nis {
		for _, pi := range ni.Pods {
			got[ni.Node().Name] = append(got[ni.Node().Name], pi.Pod.Name)
		}
	}
	if diff := cmp.Diff(map[string][]string{"a": {"on-a"}, "b": {"anti-on-b"}}, got); diff != "" {
		t.Errorf("pods by node (-want +got):\n%s", diff)
	}

	l := NewLister(nis...)
	names := func(nis []*framework.NodeInfo, err error) []string {
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, ni := range nis {
			out = append(out, ni.Node().Name)
		}
		return out
	}
	if diff := cmp.Diff([]string{"a", "b"}, names(l.NodeInfos().List())); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"b"}, names(l.HavePodsWithAffinityList())); diff != "" {
		t.Errorf("HavePodsWithAffinityList (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"b"}, names(l.HavePodsWithRequiredAntiAffinityList())); diff != "" {
		t.Errorf("HavePodsWithRequiredAntiAffinityList (-want +got):\n%s", diff)
	}
	if ni, err := l.Get("b"); err != nil || ni != nis[1] {
		t.Errorf("Get(b) = %v, %v", ni, err)
	}
	if _, err := l.Get("c"); err != framework.ErrNotFound {
		t.Errorf("Get(c) error = %v, want ErrNotFound", err)
	}
	if diff := cmp.Diff([]string{"x", "y"}, names(NamedNodeInfos("x", "y"), nil)); diff != "" {
		t.Errorf("NamedNodeInfos (-want +got):\n%s", diff)
	}
}

func TestParallelizers(t *testing.T) {
	for name, p := range map[string]framework.Parallelizer{"Serial": Serial{}, "Concurrent": Concurrent{}} {
		t.Run(name, func(t *testing.T) {
			done := make([]bool, 5)
			p.Until(t.Context(), len(done), func(i int) { done[i] = true }, "test")
			if diff := cmp.Diff([]bool{true, true, true, true, true}, done); diff != "" {
				t.Errorf("pieces run (-want +got):\n%s", diff)
			}
		})
	}
}

func TestProfileBuilder(t *testing.T) {
	decision := v1alpha1.SchedulingDecision{Pod: "ns/p"}
	effective := v1alpha1.EffectivePlugin{Name: "Fit"}
	tests := []struct {
		name string
		got  *v1alpha1.SchedulingProfile
		want *v1alpha1.SchedulingProfile
	}{
		{
			name: "bare",
			got:  Profile("p").Obj(),
			want: &v1alpha1.SchedulingProfile{ObjectMeta: metav1.ObjectMeta{Name: "p", UID: "p-uid", Generation: 1}},
		},
		{
			name: "metadata and status",
			got: Profile("p").UID("u").Generation(3).Created(t0).Terminating(t0).Finalizers("f").Label("k", "v").
				Effective(effective).RecentDecisions(decision).Obj(),
			want: &v1alpha1.SchedulingProfile{
				ObjectMeta: metav1.ObjectMeta{
					Name: "p", UID: "u", Generation: 3, CreationTimestamp: metav1.NewTime(t0), DeletionTimestamp: ptr.To(metav1.NewTime(t0)),
					Finalizers: []string{"f"}, Labels: map[string]string{"k": "v"},
				},
				Status: v1alpha1.SchedulingProfileStatus{ActiveGeneration: 3, EffectivePlugins: []v1alpha1.EffectivePlugin{effective}, RecentDecisions: []v1alpha1.SchedulingDecision{decision}},
			},
		},
		{
			name: "spec",
			got: Profile("p").SchedulerName("s").ShadowOf("live").Percentage(50).RecordDecisions(10).
				Enable("filter", "A").Weight("multiPoint", "B", 2).Disable("score", "*").PluginArgs("A", `{"x":1}`).Obj(),
			want: &v1alpha1.SchedulingProfile{
				ObjectMeta: metav1.ObjectMeta{Name: "p", UID: "p-uid", Generation: 1},
				Spec: v1alpha1.SchedulingProfileSpec{
					SchedulerName: "s", ShadowOf: "live", PercentageOfNodesToScore: ptr.To[int32](50), RecordDecisions: ptr.To[int32](10),
					Plugins: &v1alpha1.Plugins{
						Filter:     &v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{{Name: "A"}}},
						MultiPoint: &v1alpha1.PluginSet{Enabled: []v1alpha1.Plugin{{Name: "B", Weight: ptr.To[int32](2)}}},
						Score:      &v1alpha1.PluginSet{Disabled: []v1alpha1.Plugin{{Name: "*"}}},
					},
					PluginConfig: []v1alpha1.PluginConfig{{Name: "A", Args: runtime.RawExtension{Raw: []byte(`{"x":1}`)}}},
				},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.got); diff != "" {
				t.Errorf("profile (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPluginWeightBuilder(t *testing.T) {
	sel := Selector("team", "a")
	got := PluginWeight("w", "Fit", 5).UID("u").Created(t0).Profile("p").ProfileSelector(sel).Obj()
	want := &v1alpha1.PluginWeight{
		ObjectMeta: metav1.ObjectMeta{Name: "w", UID: "u", Generation: 1, CreationTimestamp: metav1.NewTime(t0)},
		Spec:       v1alpha1.PluginWeightSpec{ProfileRef: &v1alpha1.ProfileReference{Name: "p"}, ProfileSelector: sel, Plugin: "Fit", Weight: 5},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("PluginWeight (-want +got):\n%s", diff)
	}
}
