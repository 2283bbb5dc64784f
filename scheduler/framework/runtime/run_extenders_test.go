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

package runtime

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/berth-io/berth/api/v1alpha1"
	"github.com/berth-io/berth/scheduler/framework"
	"github.com/berth-io/berth/scheduler/framework/extender"
	st "github.com/berth-io/berth/scheduler/schedtest"
)

// fakeExtender serves filter (passing nodes not in reject, failing the rest)
// and prioritize (scores per node) at /filter and /prioritize.
func fakeExtender(t *testing.T, reject map[string]bool, unresolvable bool, scores map[string]int64, status int) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if status != http.StatusOK {
			w.WriteHeader(status)
			return
		}
		var args extender.Args
		if err := json.NewDecoder(r.Body).Decode(&args); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		switch r.URL.Path {
		case "/filter":
			passed := []string{}
			res := extender.FilterResult{FailedNodes: map[string]string{}, FailedAndUnresolvableNodes: map[string]string{}}
			for _, n := range *args.NodeNames {
				switch {
				case !reject[n]:
					passed = append(passed, n)
				case unresolvable:
					res.FailedAndUnresolvableNodes[n] = "gone for good"
				default:
					res.FailedNodes[n] = "no gpu"
				}
			}
			res.NodeNames = &passed
			_ = json.NewEncoder(w).Encode(res)
		case "/prioritize":
			var list extender.HostPriorityList
			for _, n := range *args.NodeNames {
				list = append(list, extender.HostPriority{Host: n, Score: scores[n]})
			}
			_ = json.NewEncoder(w).Encode(list)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// withRequest gives the pod one container requesting qty of the resource.
func withRequest(pod *v1.Pod, name, qty string) *v1.Pod {
	pod.Spec.Containers = []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{
		Requests: v1.ResourceList{v1.ResourceName(name): resource.MustParse(qty)}}}}
	return pod
}

func extenderFramework(t *testing.T, exts ...v1alpha1.Extender) *Framework {
	t.Helper()
	f, err := NewFramework(context.Background(), registryOf(basics()...), "prof",
		&v1alpha1.SchedulingProfileSpec{Extenders: exts}, WithDefaultPlugins(basicsSet()))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func nodeNamesOf(nis []*framework.NodeInfo) []string {
	out := []string{}
	for _, ni := range nis {
		out = append(out, ni.Node().Name)
	}
	return out
}

func TestRunExtenderFilters(t *testing.T) {
	filterCfg := func(url string, ignorable bool) v1alpha1.Extender {
		return v1alpha1.Extender{URLPrefix: url, FilterVerb: "filter", NodeCacheCapable: true, Ignorable: ignorable}
	}
	tests := []struct {
		name       string
		exts       func(t *testing.T) []v1alpha1.Extender
		wantNodes  []string
		wantStatus map[string]string // node → "code: reasons"
		wantErr    string
	}{
		{
			name: "two extenders narrow in turn",
			exts: func(t *testing.T) []v1alpha1.Extender {
				return []v1alpha1.Extender{
					filterCfg(fakeExtender(t, map[string]bool{"n1": true}, false, nil, 200), false),
					filterCfg(fakeExtender(t, map[string]bool{"n2": true}, true, nil, 200), false),
				}
			},
			wantNodes: []string{"n3"},
			wantStatus: map[string]string{
				"n1": "Unschedulable: no gpu",
				"n2": "UnschedulableAndUnresolvable: gone for good",
			},
		},
		{
			name: "an ignorable extender that fails is skipped",
			exts: func(t *testing.T) []v1alpha1.Extender {
				return []v1alpha1.Extender{filterCfg(fakeExtender(t, nil, false, nil, 500), true)}
			},
			wantNodes:  []string{"n1", "n2", "n3"},
			wantStatus: map[string]string{},
		},
		{
			name: "a required extender that fails fails the cycle",
			exts: func(t *testing.T) []v1alpha1.Extender {
				return []v1alpha1.Extender{filterCfg(fakeExtender(t, nil, false, nil, 500), false)}
			},
			wantErr: "failed to filter nodes",
		},
		{
			name: "an extender not interested in the pod is not asked",
			exts: func(t *testing.T) []v1alpha1.Extender {
				c := filterCfg(fakeExtender(t, nil, false, nil, 500), false)
				c.ManagedResources = []v1alpha1.ExtenderManagedResource{{Name: "example.com/gpu"}}
				return []v1alpha1.Extender{c}
			},
			wantNodes:  []string{"n1", "n2", "n3"},
			wantStatus: map[string]string{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := extenderFramework(t, tc.exts(t)...)
			statuses := framework.NewNodeToStatus()
			got, err := f.RunExtenderFilters(context.Background(), st.Pod("p").Obj(), st.NamedNodeInfos("n1", "n2", "n3"), statuses)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "extender http://") {
					t.Fatalf("error %v, want one naming the extender and %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if names := nodeNamesOf(got); !slices.Equal(names, tc.wantNodes) {
				t.Errorf("feasible = %v, want %v", names, tc.wantNodes)
			}
			gotStatus := map[string]string{}
			statuses.ForEachExplicitNode(func(n string, s *framework.Status) {
				if s.Plugin() != ExtenderName {
					t.Errorf("node %s: status plugin %q, want %q", n, s.Plugin(), ExtenderName)
				}
				gotStatus[n] = s.Code().String() + ": " + strings.Join(s.Reasons(), ", ")
			})
			if len(gotStatus) != len(tc.wantStatus) {
				t.Fatalf("statuses %v, want %v", gotStatus, tc.wantStatus)
			}
			for n, want := range tc.wantStatus {
				if gotStatus[n] != want {
					t.Errorf("node %s: %q, want %q", n, gotStatus[n], want)
				}
			}
		})
	}
}

func TestRunExtenderPrioritizers(t *testing.T) {
	a := fakeExtender(t, nil, false, map[string]int64{"n1": 10, "n2": 5}, 200)
	b := fakeExtender(t, nil, false, map[string]int64{"n2": 10}, 200)
	broken := fakeExtender(t, nil, false, nil, 500)
	f := extenderFramework(t,
		v1alpha1.Extender{URLPrefix: a, PrioritizeVerb: "prioritize", Weight: 2, NodeCacheCapable: true},
		v1alpha1.Extender{URLPrefix: b, PrioritizeVerb: "prioritize", Weight: 3, NodeCacheCapable: true},
		v1alpha1.Extender{URLPrefix: broken, PrioritizeVerb: "prioritize", Weight: 100, NodeCacheCapable: true, Ignorable: false},
	)
	nodes := st.NamedNodeInfos("n1", "n2", "n3")
	scores := []framework.NodePluginScores{{Name: "n1", TotalScore: 50}, {Name: "n2", TotalScore: 50}, {Name: "n3", TotalScore: 50}}
	f.RunExtenderPrioritizers(context.Background(), st.Pod("p").Obj(), nodes, scores)
	// n1: 50 + 10·2·10; n2: 50 + 5·2·10 + 10·3·10; n3: 50 + 0.
	want := map[string]int64{"n1": 250, "n2": 450, "n3": 50}
	for _, s := range scores {
		if s.TotalScore != want[s.Name] {
			t.Errorf("%s: total %d, want %d (%v)", s.Name, s.TotalScore, want[s.Name], s.Scores)
		}
	}
}

func TestRunExtenderPrioritizersCutsScoresToRange(t *testing.T) {
	hostile := fakeExtender(t, nil, false, map[string]int64{"n1": 1e18, "n2": -1e18, "n3": 7}, 200)
	f := extenderFramework(t, v1alpha1.Extender{URLPrefix: hostile, PrioritizeVerb: "prioritize", Weight: 1000, NodeCacheCapable: true})
	scores := []framework.NodePluginScores{{Name: "n1"}, {Name: "n2"}, {Name: "n3"}}
	f.RunExtenderPrioritizers(context.Background(), st.Pod("p").Obj(), st.NamedNodeInfos("n1", "n2", "n3"), scores)
	// 1e18 counts as the maximum, 10; a negative score as 0.
	want := map[string]int64{"n1": 10 * 1000 * 10, "n2": 0, "n3": 7 * 1000 * 10}
	for _, s := range scores {
		if s.TotalScore != want[s.Name] {
			t.Errorf("%s: total %d, want %d", s.Name, s.TotalScore, want[s.Name])
		}
	}
}

func TestBuildExtendersValidates(t *testing.T) {
	_, err := NewFramework(context.Background(), registryOf(basics()...), "prof", &v1alpha1.SchedulingProfileSpec{Extenders: []v1alpha1.Extender{
		{URLPrefix: "http://a", BindVerb: "bind"},
		{URLPrefix: "http://b", BindVerb: "bind"},
		{URLPrefix: "http://c", PrioritizeVerb: "p"},
	}}, WithDefaultPlugins(basicsSet()))
	if err == nil || !strings.Contains(err.Error(), "at most one extender may set bindVerb") || !strings.Contains(err.Error(), "extenders[2]") {
		t.Fatalf("error %v, want both problems", err)
	}
}

func TestRunExtenderBind(t *testing.T) {
	var bound extender.BindingArgs
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewDecoder(r.Body).Decode(&bound)
		_ = json.NewEncoder(w).Encode(extender.BindingResult{})
	}))
	t.Cleanup(srv.Close)
	f := extenderFramework(t, v1alpha1.Extender{URLPrefix: srv.URL, BindVerb: "bind",
		ManagedResources: []v1alpha1.ExtenderManagedResource{{Name: "cpu"}}})

	handled, status := f.RunExtenderBind(context.Background(), st.Pod("p").Obj(), "n1")
	if handled || !status.IsSuccess() {
		t.Fatalf("pod without managed resources: handled=%v status=%v", handled, status)
	}
	handled, status = f.RunExtenderBind(context.Background(), withRequest(st.Pod("p").Obj(), "cpu", "1"), "n1")
	if !handled || !status.IsSuccess() || bound.PodName != "p" || bound.Node != "n1" {
		t.Fatalf("handled=%v status=%v bound=%+v", handled, status, bound)
	}
}
