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

package queue

import (
	"strconv"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/berth-io/berth/scheduler/framework"
)

func benchPods(n int) []*v1.Pod {
	pods := make([]*v1.Pod, n)
	for i := range pods {
		pods[i] = pendingPod("p"+strconv.Itoa(i)).Priority(int32(i%17)).Req("cpu", "100m").Obj()
	}
	return pods
}

func benchQueue(profiles map[string]*fakeProfile) *PriorityQueue {
	return New(byPriority, func(name string) ProfileHooks {
		if p, ok := profiles[name]; ok {
			return p
		}
		return nil
	}, WithClock(testingclock.NewFakeClock(t0)))
}

// BenchmarkAddPop adds 10,000 pods and pops them all; one op is the whole batch.
func BenchmarkAddPop(b *testing.B) {
	const n = 10_000
	pods := benchPods(n)
	profiles := map[string]*fakeProfile{defaultProfile: profile()}
	b.ReportAllocs()
	for b.Loop() {
		q := benchQueue(profiles)
		for _, p := range pods {
			q.Add(tlog, p)
		}
		for range n {
			info, err := q.Pop(tlog)
			if err != nil {
				b.Fatal(err)
			}
			q.Done(info.Pod.UID)
		}
		q.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/pod")
}

// BenchmarkMoveAllSkip offers an event that every one of 10,000 unschedulable pods' hints skip.
func BenchmarkMoveAllSkip(b *testing.B) {
	const n = 10_000
	profiles := map[string]*fakeProfile{defaultProfile: profile().on("X", nodeAdd, hintSkip)}
	q := benchQueue(profiles)
	for _, p := range benchPods(n) {
		q.Add(tlog, p)
		info, _ := q.Pop(tlog)
		info.UnschedulablePlugins = sets.New("X")
		if err := q.AddUnschedulableIfNotPresent(tlog, info, 0); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		q.MoveAllToActiveOrBackoffQueue(tlog, nodeAdd, nil, nil, nil)
	}
	if st := q.Stats(); st.Unschedulable != n {
		b.Fatalf("stats %+v", st)
	}
}

// BenchmarkMoveAllUnregistered offers 10,000 unschedulable pods an event
// that another plugin of their profile registered and their own rejecting
// plugin did not: a bound pod while they wait for node labels.
func BenchmarkMoveAllUnregistered(b *testing.B) {
	const n = 10_000
	profiles := map[string]*fakeProfile{defaultProfile: profile().on("Fit", podDelete, nil).on("Affinity", nodeAdd, nil)}
	q := benchQueue(profiles)
	for _, p := range benchPods(n) {
		q.Add(tlog, p)
		info, _ := q.Pop(tlog)
		info.UnschedulablePlugins = sets.New("Affinity")
		if err := q.AddUnschedulableIfNotPresent(tlog, info, 0); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		q.MoveAllToActiveOrBackoffQueue(tlog, podDelete, nil, nil, nil)
	}
	if st := q.Stats(); st.Unschedulable != n {
		b.Fatalf("stats %+v", st)
	}
}

// BenchmarkPodInfoDerivation is the framework.NewPodInfo share of BenchmarkAddPop,
// for telling the queue's own cost from the per-pod derivation it triggers.
func BenchmarkPodInfoDerivation(b *testing.B) {
	const n = 10_000
	pods := benchPods(n)
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range pods {
			if _, err := framework.NewPodInfo(p); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/pod")
}
