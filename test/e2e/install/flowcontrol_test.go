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

package install_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// dispatchedMetric counts, per FlowSchema and priority level, the requests
// the apiserver's API Priority and Fairness let through.
const dispatchedMetric = "apiserver_flowcontrol_dispatched_requests_total"

// dispatched reads dispatchedMetric from the apiserver, keyed
// "flowSchema/priorityLevel".
func dispatched(ctx context.Context) (map[string]float64, error) {
	raw, err := cluster.Clientset.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the apiserver's metrics: %w", err)
	}
	out := map[string]float64{}
	for _, line := range strings.Split(string(raw), "\n") {
		rest, ok := strings.CutPrefix(line, dispatchedMetric+"{")
		if !ok {
			continue
		}
		labels, value, ok := strings.Cut(rest, "} ")
		if !ok {
			return nil, fmt.Errorf("unexpected metric line %q", line)
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil {
			return nil, fmt.Errorf("metric line %q: %w", line, err)
		}
		out[labelValue(labels, "flow_schema")+"/"+labelValue(labels, "priority_level")] += v
	}
	return out, nil
}

// labelValue returns the value of label name in a metric's label list.
func labelValue(labels, name string) string {
	_, rest, ok := strings.Cut(","+labels, ","+name+`="`)
	if !ok {
		return ""
	}
	value, _, _ := strings.Cut(rest, `"`)
	return value
}

// expectClassified binds a pod with schedulerName and checks that the
// apiserver dispatched the manager's requests meanwhile under the
// installed FlowSchemas: its Lease renewals under leaseSchema at the
// leader-election priority level, the rest (the binding among them) under
// schema at workload-high, as the built-in FlowSchemas treat kube-scheduler.
func expectClassified(ctx context.Context, schedulerName, leaseSchema, schema string) {
	GinkgoHelper()
	before, err := dispatched(ctx)
	Expect(err).NotTo(HaveOccurred())
	lease, rest := leaseSchema+"/leader-election", schema+"/workload-high"
	expectBound(ctx, schedulerName)
	Eventually(ctx, func(g Gomega) {
		now, err := dispatched(ctx)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(now[lease]).To(BeNumerically(">", before[lease]), "Lease requests dispatched under %s", lease)
		g.Expect(now[rest]).To(BeNumerically(">", before[rest]), "requests dispatched under %s", rest)
	}).WithTimeout(time.Minute).Should(Succeed())
}
