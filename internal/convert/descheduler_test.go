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

package convert

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/berth-io/berth/internal/registries"
	"github.com/berth-io/berth/scheduler/rebalance"
)

func TestConvertDeschedulerPolicy(t *testing.T) {
	tests := []struct {
		name         string // testdata/<name>.yaml in, testdata/<name>.golden out (policies or the error)
		wantErr      bool
		wantWarnings []string
	}{
		{name: "descheduler-policy", wantWarnings: []string{
			"gracePeriodSeconds is dropped",
			"eviction limits are shared by all its profiles",
			"RebalancePolicy balance: nodeFit asks the install's default SchedulingProfile",
			"dryRun: true",
		}},
		{name: "descheduler-metrics", wantWarnings: []string{
			"metricsProviders[1].prometheus.authToken: Berth reads Secrets only in its own namespace: Secret berth-system/prometheus-token must be there",
			"eviction limits are shared by all its profiles",
			"dryRun: true",
		}},
		{name: "descheduler-metrics-collector", wantWarnings: []string{
			"metricsCollector is deprecated: enabled, it is written as metricsProviders source KubernetesMetrics",
			"dryRun: true",
		}},
		{name: "descheduler-high-utilization", wantWarnings: []string{"dryRun: true"}},
		{name: "descheduler-metrics-bad", wantErr: true},
		{name: "descheduler-metrics-args", wantErr: true},
		{name: "descheduler-unsupported", wantErr: true},
		{name: "descheduler-bad-args", wantErr: true},
		{name: "descheduler-typo", wantErr: true},
		{name: "default", wantErr: true}, // a KubeSchedulerConfiguration is not a DeschedulerPolicy
	}
	c := New(registries.InTree())
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join("testdata", tc.name+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			res, err := c.ConvertDeschedulerPolicy(in, DefaultRebalanceInterval)
			var got bytes.Buffer
			switch {
			case tc.wantErr && err == nil:
				t.Fatalf("ConvertDeschedulerPolicy succeeded, want an error")
			case tc.wantErr:
				got.WriteString(err.Error() + "\n")
			case err != nil:
				t.Fatalf("ConvertDeschedulerPolicy: %v", err)
			default:
				if err := WritePolicies(&got, res.Policies); err != nil {
					t.Fatal(err)
				}
				if len(res.Warnings) != len(tc.wantWarnings) {
					t.Fatalf("warnings %q, want %d", res.Warnings, len(tc.wantWarnings))
				}
				for i, w := range tc.wantWarnings {
					if !strings.Contains(res.Warnings[i], w) {
						t.Errorf("warning %d = %q, want it to contain %q", i, res.Warnings[i], w)
					}
				}
			}
			name := tc.name
			if name == "default" {
				name = "descheduler-wrong-kind"
			}
			compareGolden(t, filepath.Join("testdata", name+".golden"), got.Bytes())
		})
	}
}

// TestConvertedPoliciesValidate checks that every converted policy is one
// the rebalancer accepts, with the interval asked for.
func TestConvertedPoliciesValidate(t *testing.T) {
	in, err := os.ReadFile(filepath.Join("testdata", "descheduler-policy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := New(registries.InTree()).ConvertDeschedulerPolicy(in, 2*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Policies) != 2 {
		t.Fatalf("got %d policies, want 2", len(res.Policies))
	}
	for _, p := range res.Policies {
		if err := rebalance.ValidateSpec(rebalance.NewInTreeRegistry(), &p.Spec); err != nil {
			t.Errorf("policy %s: %v", p.Name, err)
		}
		if got := p.Spec.Schedule.Interval.Duration; got != 2*time.Minute {
			t.Errorf("policy %s runs every %v, want 2m", p.Name, got)
		}
		if p.Spec.DryRun == nil || !*p.Spec.DryRun {
			t.Errorf("policy %s is not a dry run", p.Name)
		}
	}
}

// TestConvertedMetricsPoliciesValidate checks that the policies converted
// with metrics providers are ones the rebalancer accepts, and that each
// keeps the providers.
func TestConvertedMetricsPoliciesValidate(t *testing.T) {
	for file, want := range map[string]int{"descheduler-metrics": 2, "descheduler-metrics-collector": 1} {
		in, err := os.ReadFile(filepath.Join("testdata", file+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		res, err := New(registries.InTree()).ConvertDeschedulerPolicy(in, DefaultRebalanceInterval)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if len(res.Policies) != want {
			t.Fatalf("%s: got %d policies, want %d", file, len(res.Policies), want)
		}
		for _, p := range res.Policies {
			if err := rebalance.ValidateSpec(rebalance.NewInTreeRegistry(), &p.Spec); err != nil {
				t.Errorf("%s: policy %s: %v", file, p.Name, err)
			}
			if len(p.Spec.MetricsProviders) == 0 {
				t.Errorf("%s: policy %s has no metrics providers", file, p.Name)
			}
		}
	}
}

func TestIsDeschedulerPolicy(t *testing.T) {
	for name, want := range map[string]bool{"descheduler-policy": true, "descheduler-typo": true, "default": false, "profiles": false} {
		in, err := os.ReadFile(filepath.Join("testdata", name+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if got := IsDeschedulerPolicy(in); got != want {
			t.Errorf("IsDeschedulerPolicy(%s) = %v, want %v", name, got, want)
		}
	}
}
