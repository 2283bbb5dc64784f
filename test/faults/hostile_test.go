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

package faults_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/berth-io/berth/scheduler/framework/extender"
)

// hostileExtender serves extender verbs that misbehave: filter fails every
// node with a 64 KiB reason, prioritize scores 1e18, huge answers 65 MiB of
// JSON, redirect sends the scheduler elsewhere.
func hostileExtender() string {
	GinkgoHelper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var args extender.Args
		_ = json.NewDecoder(r.Body).Decode(&args)
		var names []string
		if args.NodeNames != nil {
			names = *args.NodeNames
		}
		switch r.URL.Path {
		case "/filter":
			res := extender.FilterResult{FailedNodes: map[string]string{}}
			reason := strings.Repeat("you shall not pass ", 64<<10/19)
			for _, n := range names {
				res.FailedNodes[n] = reason
			}
			res.NodeNames = &[]string{}
			_ = json.NewEncoder(w).Encode(res)
		case "/prioritize":
			var list extender.HostPriorityList
			for _, n := range names {
				list = append(list, extender.HostPriority{Host: n, Score: 1e18})
			}
			_ = json.NewEncoder(w).Encode(list)
		case "/huge":
			_, _ = io.WriteString(w, `{"nodeNames":["`)
			chunk := strings.Repeat("n", 1<<20)
			for range 65 {
				if _, err := io.WriteString(w, chunk); err != nil {
					return
				}
			}
			_, _ = io.WriteString(w, `"]}`)
		case "/redirect":
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data", http.StatusTemporaryRedirect)
		}
	}))
	DeferCleanup(srv.Close)
	return srv.URL
}

// fuzzedProfile returns a SchedulingProfile spec that the CRD's schema
// mostly accepts but whose content is random and often absurd: unknown or
// misplaced plugins, and plugin arguments of any shape, deep, huge, with
// out-of-range numbers, which only the controllers (the webhook is off in
// this suite) can judge.
func fuzzedProfile(r *rand.Rand, i int) map[string]any {
	pick := func(vals ...any) any { return vals[r.IntN(len(vals))] }
	plugins := []string{"NodeResourcesFit", "TaintToleration", "PodTopologySpread", "InterPodAffinity", "ImageLocality",
		"NoSuchPlugin", strings.Repeat("P", 128), "DefaultPreemption", "VolumeBinding", "NodeAffinity"}
	number := func() any {
		return pick(0, -1, 1, 100, 101, 1<<31, int64(1e18), -1e18, 1e308, 0.5, "12", nil, true)
	}
	var args func(depth int) any
	args = func(depth int) any {
		if depth > 3 {
			return number()
		}
		switch r.IntN(5) {
		case 0:
			return strings.Repeat("x", r.IntN(20000))
		case 1, 2:
			m := map[string]any{}
			for range 1 + r.IntN(5) {
				key := pick("scoringStrategy", "type", "resources", "weight", "name", "bindTimeoutSeconds",
					"hardPodAffinityWeight", "defaultConstraints", "shape", "ignoredResources", "utilization", "score").(string)
				m[key] = args(depth + 1)
			}
			return m
		case 3:
			l := make([]any, r.IntN(300))
			for i := range l {
				l[i] = args(depth + 2)
			}
			return l
		default:
			return number()
		}
	}
	// Unique plugin names, as the schema's rules want.
	names := func(n int) []string {
		out := slices.Clone(plugins)
		r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		return out[:min(n, len(out))]
	}
	spec := map[string]any{
		"schedulerName":            fmt.Sprintf("fuzz-%d", i),
		"percentageOfNodesToScore": pick(0, 1, 50, 100),
	}
	var enabled []any
	for _, name := range names(r.IntN(6)) {
		enabled = append(enabled, map[string]any{"name": name, "weight": 1 + r.IntN(100)})
	}
	if enabled != nil {
		spec["plugins"] = map[string]any{pick("score", "filter", "multiPoint", "preFilter", "reserve", "bind").(string): map[string]any{"enabled": enabled}}
	}
	var config []any
	for _, name := range names(1 + r.IntN(4)) {
		// The schema wants an object; what is inside is anyone's guess.
		obj := map[string]any{}
		for range 1 + r.IntN(4) {
			obj[pick("scoringStrategy", "resources", "defaultConstraints", "bindTimeoutSeconds", "addedAffinity", "shape").(string)] = args(1)
		}
		config = append(config, map[string]any{"name": name, "args": obj})
	}
	spec["pluginConfig"] = config
	return spec
}

var _ = Describe("hostile input", func() {
	It("from extenders and fuzzed profiles: no panic, no message over 1 KiB, and Berth keeps scheduling", func(ctx SpecContext) {
		m := startManager("berth-hostile")
		m.waitReady(ctx)
		m.waitLeader(ctx)
		url := hostileExtender()

		// Profiles whose only extender misbehaves one way each.
		hostile := map[string]map[string]any{
			"hostile-reasons":  {"urlPrefix": url, "filterVerb": "filter", "nodeCacheCapable": true},
			"hostile-scores":   {"urlPrefix": url, "prioritizeVerb": "prioritize", "weight": 1000000, "nodeCacheCapable": true},
			"hostile-huge":     {"urlPrefix": url, "filterVerb": "huge", "nodeCacheCapable": true, "httpTimeout": "30s"},
			"hostile-redirect": {"urlPrefix": url, "filterVerb": "redirect", "nodeCacheCapable": true},
		}
		ns := newNamespace(ctx, "hostile")
		for name, ext := range hostile {
			applyProfile(ctx, name, map[string]any{"extenders": []any{ext}})
			for i := range 3 {
				p := podSpec(ns, fmt.Sprintf("%s-%d", name, i), "10m", "16Mi")
				p.Spec.SchedulerName = name
				_, err := client.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
				Expect(err).NotTo(HaveOccurred())
			}
		}

		// Fuzzed profiles: many are refused by the CRD's schema; the rest
		// reach the controllers, which must report, not crash.
		seed := uint64(time.Now().UnixNano())
		GinkgoWriter.Printf("fuzz seed %d\n", seed)
		r := rand.New(rand.NewPCG(seed, 0))
		dyn, err := dynamic.NewForConfig(cluster.Config)
		Expect(err).NotTo(HaveOccurred())
		accepted := 0
		for i := range 200 {
			name := fmt.Sprintf("fuzz-%d", i)
			_, err := dyn.Resource(profiles).Create(ctx, &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "scheduling.berth.io/v1alpha1", "kind": "SchedulingProfile",
				"metadata": map[string]any{"name": name}, "spec": fuzzedProfile(r, i),
			}}, metav1.CreateOptions{})
			if err != nil {
				GinkgoWriter.Printf("fuzzed profile %s refused: %.200s\n", name, err.Error())
			}
			if err == nil {
				accepted++
				DeferCleanup(func() { _ = dyn.Resource(profiles).Delete(background(), name, deleteNow) })
			}
		}
		figure("hostile/fuzzed-profiles-accepted-of-200", accepted)
		Expect(accepted).To(BeNumerically(">=", 100), "the fuzzer no longer gets past the schema; it tests nothing")

		// Each hostile pod is tried and told why it waits.
		Eventually(ctx, func(g Gomega) {
			pods, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			for _, p := range pods.Items {
				if p.Spec.SchedulerName == "hostile-scores" {
					g.Expect(p.Spec.NodeName).NotTo(BeEmpty(), "%s: a prioritizer's absurd scores must not keep a pod off every node", p.Name)
					continue
				}
				g.Expect(p.Spec.NodeName).To(BeEmpty(), "%s was bound past a failing extender", p.Name)
				g.Expect(scheduledCondition(&p)).NotTo(BeNil(), "%s has no PodScheduled condition", p.Name)
			}
		}).WithTimeout(2 * time.Minute).WithPolling(time.Second).Should(Succeed())

		// Berth still schedules a plain profile's pods.
		plainNS := newNamespace(ctx, "hostile-plain")
		b := watchBindings(ctx, plainNS)
		createPods(ctx, manyPods(plainNS, "plain", 200, "10m", "16Mi"))
		b.waitBound(ctx, 200, time.Minute)

		Expect(m.Exited()).To(BeFalse(), "the manager exited: %v", m.Err())
		log, err := os.ReadFile(m.LogFile)
		Expect(err).NotTo(HaveOccurred())
		panics := strings.Count(string(log), "panic")
		figure("hostile/panics", panics)
		Expect(panics).To(BeZero())

		longest := longestMessage(ctx, ns)
		figure("hostile/longest-status-or-event-message-bytes", longest)
		Expect(longest).To(BeNumerically("<=", 1024))
	}, SpecTimeout(8*time.Minute))
})

// scheduledCondition returns the pod's PodScheduled condition.
func scheduledCondition(p *corev1.Pod) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == corev1.PodScheduled {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// longestMessage returns the longest message Berth wrote: the pods' of ns
// PodScheduled conditions, every SchedulingProfile's conditions, and the
// events about them.
func longestMessage(ctx context.Context, ns string) int {
	GinkgoHelper()
	longest := 0
	pods, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	Expect(err).NotTo(HaveOccurred())
	for i := range pods.Items {
		if c := scheduledCondition(&pods.Items[i]); c != nil {
			longest = max(longest, len(c.Message))
		}
	}
	dyn, err := dynamic.NewForConfig(cluster.Config)
	Expect(err).NotTo(HaveOccurred())
	list, err := dyn.Resource(profiles).List(ctx, metav1.ListOptions{})
	Expect(err).NotTo(HaveOccurred())
	for _, p := range list.Items {
		conds, _, _ := unstructured.NestedSlice(p.Object, "status", "conditions")
		for _, c := range conds {
			if msg, ok := c.(map[string]any)["message"].(string); ok {
				longest = max(longest, len(msg))
			}
		}
	}
	events, err := client.EventsV1().Events("").List(ctx, metav1.ListOptions{})
	Expect(err).NotTo(HaveOccurred())
	for _, e := range events.Items {
		longest = max(longest, len(e.Note))
	}
	return longest
}
