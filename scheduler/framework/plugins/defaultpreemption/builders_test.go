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

package defaultpreemption

import (
	"errors"
	"time"

	v1 "k8s.io/api/core/v1"
	policy "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/klog/v2"
	testingclock "k8s.io/utils/clock/testing"

	st "github.com/berth-io/berth/scheduler/schedtest"
)

// t0 is the start of every test's clock.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// preemptedByScheduler is the condition of a victim of an earlier preemption.
var preemptedByScheduler = v1.PodCondition{Type: v1.DisruptionTarget, Status: v1.ConditionTrue, Reason: v1.PodReasonPreemptionByScheduler}

// makeNode is a node with the CPU and room for 110 pods.
func makeNode(name, cpu string) *v1.Node {
	return st.Node(name).Alloc("cpu", cpu, "memory", "100Gi", "pods", "110").Obj()
}

// makePDB protects pods labelled app=<app> in "default", allowing the disruptions.
func makePDB(app string, allowed int32) *policy.PodDisruptionBudget {
	one := intstr.FromInt32(1)
	return &policy.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: app, Namespace: "default"},
		Spec:       policy.PodDisruptionBudgetSpec{MinAvailable: &one, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}},
		Status:     policy.PodDisruptionBudgetStatus{DisruptionsAllowed: allowed},
	}
}

func fakeClock() *testingclock.FakePassiveClock { return testingclock.NewFakePassiveClock(t0) }

func metav1GetOptions() metav1.GetOptions { return metav1.GetOptions{} }

// errInjected is the error of failing fake API calls.
var errInjected = errors.New("injected failure")

func (*DefaultPreemption) logger() klog.Logger { return klog.Background() }
