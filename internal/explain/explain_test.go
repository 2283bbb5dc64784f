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

package explain_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	apiruntime "k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlfake "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/yaml"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/internal/explain"
	"github.com/berth-io/berth/internal/registries"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// cluster is what a test case's cluster holds.
type cluster struct {
	nodes    []*v1.Node
	pods     []*v1.Pod
	profiles []*v1alpha1.SchedulingProfile
	weights  []*v1alpha1.PluginWeight
	// opts are the Explainer's options.
	opts []explain.Option
}

// explainer returns an Explainer over fakes holding c, and the fake clientset.
func (c cluster) explainer(t *testing.T) (*explain.Explainer, *kubefake.Clientset) {
	t.Helper()
	var kubeObjs []apiruntime.Object
	for _, n := range c.nodes {
		kubeObjs = append(kubeObjs, n)
	}
	for _, p := range c.pods {
		kubeObjs = append(kubeObjs, p)
	}
	kube := kubefake.NewClientset(kubeObjs...)
	scheme := apiruntime.NewScheme()
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	var berthObjs []client.Object
	for _, p := range c.profiles {
		berthObjs = append(berthObjs, p)
	}
	for _, w := range c.weights {
		berthObjs = append(berthObjs, w)
	}
	berth := ctrlfake.NewClientBuilder().WithScheme(scheme).WithObjects(berthObjs...).Build()
	return explain.New(kube, berth, registries.InTree().Plugins, c.opts...), kube
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logr.Discard()))
	t.Cleanup(cancel)
	return ctx
}

var defaultProfile = st.Profile("default").Created(t0).SchedulerName(v1.DefaultSchedulerName).Generation(3).Obj()

// nodeRow returns the row of a node, failing the test if there is none.
func nodeRow(t *testing.T, r *explain.Result, name string) explain.NodeResult {
	t.Helper()
	for _, n := range r.Nodes {
		if n.Node == name {
			return n
		}
	}
	t.Fatalf("no row for node %s in %+v", name, r.Nodes)
	return explain.NodeResult{}
}

func TestExplain(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cluster cluster
		req     explain.Request
		check   func(t *testing.T, r *explain.Report)
	}{{
		name: "each rejected node names its plugin and reason; the feasible one is chosen",
		cluster: cluster{
			nodes: []*v1.Node{
				readyNode("small", 1, 4).Obj(),
				readyNode("tainted", 8, 32).Taint("dedicated", "", v1.TaintEffectNoSchedule).Obj(),
				readyNode("big", 8, 32).Obj(),
			},
			pods:     []*v1.Pod{pendingPod("ns", "web", 2000, 512).Obj()},
			profiles: []*v1alpha1.SchedulingProfile{defaultProfile},
		},
		req: explain.Request{Namespace: "ns", Name: "web"},
		check: func(t *testing.T, r *explain.Report) {
			res := r.Results[0]
			if res.Profile != "default" || res.Generation != 3 || res.Source != explain.SourceCluster {
				t.Errorf("profile = %s generation %d from %s, want default generation 3 from the cluster", res.Profile, res.Generation, res.Source)
			}
			if !slices.Equal(res.Chosen, []string{"big"}) || res.NumFeasible != 1 || res.NumNodes != 3 {
				t.Errorf("chosen %v, %d/%d feasible; want [big], 1/3", res.Chosen, res.NumFeasible, res.NumNodes)
			}
			if n := nodeRow(t, res, "small"); n.Feasible || n.Plugin != "NodeResourcesFit" || !strings.Contains(n.Reason, "Insufficient cpu") {
				t.Errorf("small: %+v, want rejected by NodeResourcesFit: Insufficient cpu", n)
			}
			if n := nodeRow(t, res, "tainted"); n.Feasible || n.Plugin != "TaintToleration" || !strings.Contains(n.Reason, "untolerated taint") {
				t.Errorf("tainted: %+v, want rejected by TaintToleration", n)
			}
			big := nodeRow(t, res, "big")
			if !big.Feasible || !big.Chosen || len(big.Scores) == 0 {
				t.Fatalf("big: %+v, want chosen with scores", big)
			}
			var sum int64
			for _, s := range big.Scores {
				if s.Weight > 0 && s.Score*int64(s.Weight) != s.Weighted {
					t.Errorf("%s: %d × %d != %d", s.Plugin, s.Score, s.Weight, s.Weighted)
				}
				sum += s.Weighted
			}
			if sum != big.Total {
				t.Errorf("total %d, sum of weighted scores %d", big.Total, sum)
			}
			if res.Nodes[0].Node != "big" {
				t.Errorf("first row %s, want the feasible node first", res.Nodes[0].Node)
			}
		},
	}, {
		name: "equal nodes tie and are all listed as the scheduler's random choice",
		cluster: cluster{
			nodes:    []*v1.Node{readyNode("b", 4, 16).Obj(), readyNode("a", 4, 16).Obj(), readyNode("c", 4, 16).Obj()},
			pods:     []*v1.Pod{pendingPod("ns", "web", 500, 512).Obj()},
			profiles: []*v1alpha1.SchedulingProfile{defaultProfile},
		},
		req: explain.Request{Namespace: "ns", Name: "web"},
		check: func(t *testing.T, r *explain.Report) {
			if got := r.Results[0].Chosen; !slices.Equal(got, []string{"a", "b", "c"}) {
				t.Errorf("chosen %v, want the three tied nodes", got)
			}
			if !strings.Contains(r.TieBreak, "random") {
				t.Errorf("tie break %q does not say the choice is random", r.TieBreak)
			}
		},
	}, {
		name: "a bound pod is evaluated as if pending, off its node",
		cluster: cluster{
			nodes: []*v1.Node{readyNode("a", 2, 8).Obj(), readyNode("b", 2, 8).Obj()},
			pods: []*v1.Pod{
				pendingPod("ns", "web", 1500, 512).NodeName("a").Phase(v1.PodRunning).Obj(),
				pendingPod("ns", "other", 1500, 512).NodeName("b").Phase(v1.PodRunning).Obj(),
			},
			profiles: []*v1alpha1.SchedulingProfile{defaultProfile},
		},
		req: explain.Request{Namespace: "ns", Name: "web"},
		check: func(t *testing.T, r *explain.Report) {
			if r.BoundTo != "a" {
				t.Errorf("bound to %q, want a", r.BoundTo)
			}
			// With the pod still on a, a would lack cpu for it.
			if got := r.Results[0].Chosen; !slices.Equal(got, []string{"a"}) {
				t.Errorf("chosen %v, want [a]", got)
			}
			if n := nodeRow(t, r.Results[0], "b"); n.Feasible || n.Plugin != "NodeResourcesFit" {
				t.Errorf("b: %+v, want rejected by NodeResourcesFit", n)
			}
		},
	}, {
		name: "a pod no node fits gets the scheduler's message",
		cluster: cluster{
			nodes:    []*v1.Node{readyNode("small", 1, 4).Obj(), readyNode("other", 1, 4).Label("disk", "hdd").Obj()},
			pods:     []*v1.Pod{pendingPod("ns", "web", 2000, 512).NodeSelector("disk", "ssd").Obj()},
			profiles: []*v1alpha1.SchedulingProfile{defaultProfile},
		},
		req: explain.Request{Namespace: "ns", Name: "web"},
		check: func(t *testing.T, r *explain.Report) {
			res := r.Results[0]
			if len(res.Chosen) != 0 {
				t.Errorf("chosen %v, want none", res.Chosen)
			}
			if want := "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector."; !strings.HasPrefix(res.Unschedulable, want) {
				t.Errorf("message %q, want it to start with %q", res.Unschedulable, want)
			}
			if n := nodeRow(t, res, "small"); n.Plugin != "NodeAffinity" {
				t.Errorf("small rejected by %q, want NodeAffinity", n.Plugin)
			}
		},
	}, {
		name: "PluginWeights apply as the controller applies them",
		cluster: cluster{
			nodes:    []*v1.Node{readyNode("a", 4, 16).Obj(), readyNode("b", 8, 16).Obj()},
			pods:     []*v1.Pod{pendingPod("ns", "web", 1000, 512).Obj()},
			profiles: []*v1alpha1.SchedulingProfile{defaultProfile},
			weights:  []*v1alpha1.PluginWeight{makeWeight("fit-heavy", "default", "NodeResourcesFit", 7)},
		},
		req: explain.Request{Namespace: "ns", Name: "web"},
		check: func(t *testing.T, r *explain.Report) {
			res := r.Results[0]
			if w := res.Weights["NodeResourcesFit"]; w != 7 {
				t.Errorf("NodeResourcesFit weight %d, want 7 from the PluginWeight", w)
			}
			for _, s := range nodeRow(t, res, "b").Scores {
				if s.Plugin == "NodeResourcesFit" && (s.Weight != 7 || s.Weighted != 7*s.Score) {
					t.Errorf("NodeResourcesFit on b: %+v, want weight 7", s)
				}
			}
		},
	}, {
		name: "a nominated node that passes is taken without scoring",
		cluster: cluster{
			nodes:    []*v1.Node{readyNode("a", 8, 32).Obj(), readyNode("b", 2, 8).Obj()},
			pods:     []*v1.Pod{pendingPod("ns", "web", 500, 512).Nominated("b").Obj()},
			profiles: []*v1alpha1.SchedulingProfile{defaultProfile},
		},
		req: explain.Request{Namespace: "ns", Name: "web"},
		check: func(t *testing.T, r *explain.Report) {
			if got := r.Results[0].Chosen; r.NominatedNode != "b" || !slices.Equal(got, []string{"b"}) {
				t.Errorf("nominated %q, chosen %v; want b and [b]", r.NominatedNode, got)
			}
		},
	}, {
		name: "--profile evaluates a profile that serves another name, and says so; gates are reported",
		cluster: cluster{
			nodes:    []*v1.Node{readyNode("a", 4, 16).Obj()},
			pods:     []*v1.Pod{pendingPod("ns", "web", 500, 512).Gates("example.com/wait").Obj()},
			profiles: []*v1alpha1.SchedulingProfile{defaultProfile, st.Profile("packing").Created(t0).PluginArgs("NodeResourcesFit", mostAllocated).Obj()},
		},
		req: explain.Request{Namespace: "ns", Name: "web", Profile: "packing"},
		check: func(t *testing.T, r *explain.Report) {
			res := r.Results[0]
			if res.Profile != "packing" || !strings.Contains(res.Note, "serves schedulerName packing, not the pod's default-scheduler") {
				t.Errorf("profile %s note %q", res.Profile, res.Note)
			}
			if !slices.Equal(r.SchedulingGates, []string{"example.com/wait"}) {
				t.Errorf("gates %v", r.SchedulingGates)
			}
		},
	}, {
		name: "--nodes limits the rows, best first",
		cluster: cluster{
			nodes: []*v1.Node{
				readyNode("n1", 1, 4).Obj(), readyNode("n2", 2, 4).Obj(), readyNode("n3", 4, 4).Obj(),
				readyNode("n4", 8, 4).Obj(), readyNode("tiny", 1, 1).Taint("x", "", v1.TaintEffectNoSchedule).Obj(),
			},
			pods:     []*v1.Pod{pendingPod("ns", "web", 500, 512).Obj()},
			profiles: []*v1alpha1.SchedulingProfile{defaultProfile},
		},
		req: explain.Request{Namespace: "ns", Name: "web", Nodes: 2},
		check: func(t *testing.T, r *explain.Report) {
			res := r.Results[0]
			if len(res.Nodes) != 2 || res.OmittedNodes != 3 {
				t.Fatalf("%d rows, %d omitted; want 2 and 3", len(res.Nodes), res.OmittedNodes)
			}
			if res.Nodes[0].Node != "n4" || res.Nodes[0].Total < res.Nodes[1].Total {
				t.Errorf("rows %+v, want n4 (most room) first and totals descending", res.Nodes)
			}
		},
	}, {
		name: "live and candidate compared: bin packing moves the pod and NodeResourcesFit decides",
		cluster: cluster{
			nodes: []*v1.Node{readyNode("busy", 4, 16).Obj(), readyNode("idle", 4, 16).Obj()},
			pods: []*v1.Pod{
				pendingPod("ns", "filler", 3000, 8<<10).NodeName("busy").Phase(v1.PodRunning).Obj(),
				pendingPod("ns", "web", 500, 512).Obj(),
			},
			profiles: []*v1alpha1.SchedulingProfile{defaultProfile},
		},
		req: explain.Request{Namespace: "ns", Name: "web", Profile: "default", Candidate: &explain.Candidate{
			Profile: st.Profile("default").Created(t0).SchedulerName(v1.DefaultSchedulerName).PluginArgs("NodeResourcesFit", mostAllocated).Obj(), Source: "candidate.yaml",
		}},
		check: func(t *testing.T, r *explain.Report) {
			if len(r.Results) != 2 || r.Results[1].Source != "candidate.yaml" {
				t.Fatalf("results %+v, want the live profile and the candidate", r.Results)
			}
			d := r.Diff
			if d == nil || !d.Changed || !slices.Equal(d.FromChosen, []string{"idle"}) || !slices.Equal(d.ToChosen, []string{"busy"}) {
				t.Fatalf("diff %+v, want idle → busy", d)
			}
			if len(d.Plugins) == 0 || d.Plugins[0].Plugin != "NodeResourcesFit" || d.Plugins[0].Swing <= 0 {
				t.Errorf("deciding plugins %+v, want NodeResourcesFit first with a positive swing", d.Plugins)
			}
			for _, p := range d.Plugins {
				if p.Plugin == "TaintToleration" {
					t.Errorf("TaintToleration scores both nodes alike under both profiles, yet is listed: %+v", p)
				}
			}
		},
	}, {
		name: "a shadow candidate is named as the shadow of the pod's schedulerName",
		cluster: cluster{
			nodes:    []*v1.Node{readyNode("a", 4, 16).Obj()},
			pods:     []*v1.Pod{pendingPod("ns", "web", 500, 512).Obj()},
			profiles: []*v1alpha1.SchedulingProfile{defaultProfile},
		},
		req: explain.Request{Namespace: "ns", Name: "web", Profile: "default", Candidate: &explain.Candidate{
			Profile: st.Profile("default-packing").Created(t0).ShadowOf(v1.DefaultSchedulerName).PluginArgs("NodeResourcesFit", mostAllocated).Obj(), Source: "candidate.yaml",
		}},
		check: func(t *testing.T, r *explain.Report) {
			c := r.Results[1]
			if c.ShadowOf != v1.DefaultSchedulerName || c.ServesSchedulerName != "" || c.Note != "" {
				t.Errorf("candidate shadowOf %q serves %q note %q; want a shadow of default-scheduler, serving none, no note", c.ShadowOf, c.ServesSchedulerName, c.Note)
			}
			var buf bytes.Buffer
			if err := r.Write(&buf, "table"); err != nil {
				t.Fatal(err)
			}
			if want := "Profile default-packing (candidate from candidate.yaml, shadow of default-scheduler): 1 of 1 nodes feasible."; !strings.Contains(buf.String(), want) {
				t.Errorf("table lacks %q:\n%s", want, buf.String())
			}
		},
	}, {
		name: "a candidate's PluginWeights replace the cluster's of the same name",
		cluster: cluster{
			nodes:    []*v1.Node{readyNode("a", 4, 16).Obj()},
			pods:     []*v1.Pod{pendingPod("ns", "web", 500, 512).Obj()},
			profiles: []*v1alpha1.SchedulingProfile{defaultProfile},
			weights:  []*v1alpha1.PluginWeight{makeWeight("fit", "default", "NodeResourcesFit", 7)},
		},
		req: explain.Request{Namespace: "ns", Name: "web", Profile: "default", Candidate: &explain.Candidate{
			Profile: defaultProfile.DeepCopy(), Weights: []v1alpha1.PluginWeight{*makeWeight("fit", "default", "NodeResourcesFit", 2)}, Source: "c.yaml",
		}},
		check: func(t *testing.T, r *explain.Report) {
			if live, cand := r.Results[0].Weights["NodeResourcesFit"], r.Results[1].Weights["NodeResourcesFit"]; live != 7 || cand != 2 {
				t.Errorf("NodeResourcesFit weight live %d candidate %d, want 7 and 2", live, cand)
			}
			if r.Diff.Changed {
				t.Errorf("diff %+v, want no change on a single node", r.Diff)
			}
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			e, kube := tc.cluster.explainer(t)
			r, err := e.Explain(testContext(t), tc.req)
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, r)
			for _, a := range kube.Actions() {
				if v := a.GetVerb(); v != "get" && v != "list" && v != "watch" {
					t.Errorf("explain wrote to the cluster: %s %s", v, a.GetResource().Resource)
				}
			}
			// Every format renders.
			for _, format := range []string{"table", "json", "yaml"} {
				var buf bytes.Buffer
				if err := r.Write(&buf, format); err != nil || buf.Len() == 0 {
					t.Errorf("writing %s: %v (%d bytes)", format, err, buf.Len())
				}
			}
		})
	}
}

func TestExplainErrors(t *testing.T) {
	c := cluster{
		nodes:    []*v1.Node{readyNode("a", 4, 16).Obj()},
		pods:     []*v1.Pod{pendingPod("ns", "web", 500, 512).SchedulerName("nobody").Obj()},
		profiles: []*v1alpha1.SchedulingProfile{defaultProfile},
	}
	for _, tc := range []struct {
		name string
		req  explain.Request
		want string
	}{
		{"no profile serves the pod", explain.Request{Namespace: "ns", Name: "web"}, `no SchedulingProfile serves schedulerName "nobody"`},
		{"no such profile", explain.Request{Namespace: "ns", Name: "web", Profile: "missing"}, `no SchedulingProfile "missing"`},
		{"no such pod", explain.Request{Namespace: "ns", Name: "absent"}, "getting pod ns/absent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := c.explainer(t)
			_, err := e.Explain(testContext(t), tc.req)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestReportFormats checks that JSON and YAML carry the same report.
func TestReportFormats(t *testing.T) {
	e, _ := cluster{
		nodes:    []*v1.Node{readyNode("a", 4, 16).Obj(), readyNode("b", 1, 1).Obj()},
		pods:     []*v1.Pod{pendingPod("ns", "web", 2000, 512).Obj()},
		profiles: []*v1alpha1.SchedulingProfile{defaultProfile},
	}.explainer(t)
	r, err := e.Explain(testContext(t), explain.Request{Namespace: "ns", Name: "web"})
	if err != nil {
		t.Fatal(err)
	}
	var j, y bytes.Buffer
	if err := r.Write(&j, "json"); err != nil {
		t.Fatal(err)
	}
	if err := r.Write(&y, "yaml"); err != nil {
		t.Fatal(err)
	}
	var fromJSON, fromYAML explain.Report
	if err := json.Unmarshal(j.Bytes(), &fromJSON); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(y.Bytes(), &fromYAML); err != nil {
		t.Fatal(err)
	}
	if fromJSON.Results[0].Chosen[0] != "a" || fromYAML.Results[0].Chosen[0] != "a" {
		t.Errorf("chosen %v / %v, want a", fromJSON.Results[0].Chosen, fromYAML.Results[0].Chosen)
	}
	if err := r.Write(&j, "xml"); err == nil {
		t.Error("writing xml succeeded")
	}
}

// TestExplainRecordedDecision checks that a bound pod is shown with the
// live decision that placed it, when its profile recorded it, and that
// otherwise the report says why there is none.
func TestExplainRecordedDecision(t *testing.T) {
	nodes := []*v1.Node{readyNode("a", 4, 16).Obj(), readyNode("b", 8, 32).Obj()}
	other := decision("ns", "other", "a", 2)
	for _, tc := range []struct {
		name      string
		pod       *v1.Pod
		profile   *v1alpha1.SchedulingProfile
		want      *explain.Recorded
		wantNote  string
		wantTable []string
	}{{
		name:    "recorded",
		pod:     pendingPod("ns", "web", 500, 512).NodeName("b").Phase(v1.PodRunning).Obj(),
		profile: st.Profile("default").Created(t0).SchedulerName(v1.DefaultSchedulerName).Generation(3).RecordDecisions(10).RecentDecisions(other, decision("ns", "web", "b", 2)).Obj(),
		want:    &explain.Recorded{Profile: "default", SchedulingDecision: decision("ns", "web", "b", 2)},
		wantTable: []string{
			"Recorded: SchedulingProfile default, generation 2, bound it to b at 2030-01-01T00:00:00Z; 2 of 3 nodes searched were feasible.",
			"b          chosen     180    90",
			"runner-up  runner-up  150    70",
		},
	}, {
		name:    "recorded for a member of a PodGroup",
		pod:     pendingPod("ns", "web", 500, 512).NodeName("b").Phase(v1.PodRunning).Obj(),
		profile: st.Profile("default").Created(t0).SchedulerName(v1.DefaultSchedulerName).Generation(3).RecordDecisions(10).RecentDecisions(groupDecision("ns", "web", "b", 2)).Obj(),
		want:    &explain.Recorded{Profile: "default", SchedulingDecision: groupDecision("ns", "web", "b", 2)},
		wantTable: []string{
			"Its PodGroup ns/crew was placed as a group in test.berth.io/rack=r2: the whole group fitted in 2 of the 3 placements tried.",
			"PLACEMENT  RESULT     TOTAL  PodGroupPodsCount",
			"r2         chosen     100    100",
			"r1         runner-up  50     50",
		},
	}, {
		name:      "pending: nothing to look for",
		pod:       pendingPod("ns", "web", 500, 512).Obj(),
		profile:   st.Profile("default").Created(t0).SchedulerName(v1.DefaultSchedulerName).RecordDecisions(10).RecentDecisions(other).Obj(),
		wantTable: []string{"is pending."},
	}, {
		name:      "the profile records nothing",
		pod:       pendingPod("ns", "web", 500, 512).NodeName("b").Phase(v1.PodRunning).Obj(),
		profile:   defaultProfile,
		wantNote:  "SchedulingProfile default records no decisions; set spec.recordDecisions to keep its last placements",
		wantTable: []string{"No recorded decision: SchedulingProfile default records no decisions"},
	}, {
		name:     "aged out of the profile's last decisions",
		pod:      pendingPod("ns", "web", 500, 512).NodeName("b").Phase(v1.PodRunning).Obj(),
		profile:  st.Profile("default").Created(t0).SchedulerName(v1.DefaultSchedulerName).RecordDecisions(1).RecentDecisions(other).Obj(),
		wantNote: "the placement is not among the last 1 that SchedulingProfile default recorded (status.recentDecisions): it is older, or another scheduler bound the pod",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := cluster{nodes: nodes, pods: []*v1.Pod{tc.pod}, profiles: []*v1alpha1.SchedulingProfile{tc.profile}}.explainer(t)
			r, err := e.Explain(testContext(t), explain.Request{Namespace: "ns", Name: "web"})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, r.Recorded); diff != "" {
				t.Errorf("recorded (-want +got):\n%s", diff)
			}
			if r.RecordedNote != tc.wantNote {
				t.Errorf("note %q, want %q", r.RecordedNote, tc.wantNote)
			}
			var table bytes.Buffer
			if err := r.WriteTable(&table); err != nil {
				t.Fatal(err)
			}
			for _, line := range tc.wantTable {
				if !strings.Contains(table.String(), line) {
					t.Errorf("table lacks %q:\n%s", line, table.String())
				}
			}
			var j bytes.Buffer
			if err := r.Write(&j, "json"); err != nil {
				t.Fatal(err)
			}
			var back explain.Report
			if err := json.Unmarshal(j.Bytes(), &back); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(r.Recorded, back.Recorded); diff != "" {
				t.Errorf("JSON round trip (-before +after):\n%s", diff)
			}
		})
	}
}
