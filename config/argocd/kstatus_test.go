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

package argocd_test

import (
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/yaml"
)

// argoHealthOf is the Argo CD health that agrees with each kstatus status.
var argoHealthOf = map[status.Status][]string{
	status.CurrentStatus:    {"Healthy"},
	status.InProgressStatus: {"Progressing", "Suspended"},
	status.FailedStatus:     {"Degraded"},
}

// kstatusExceptions are the test inputs on which the health check is
// knowingly stricter than kstatus, with why.
var kstatusExceptions = map[string]string{
	// Ready=True with activeGeneration behind generation: Berth never
	// writes it, and the script says the current generation is not live.
	"SchedulingProfile/testdata/ready-but-not-active.yaml": "Degraded where kstatus, reading Ready=True, says Current",
	// An Applied=False status of a Berth without Ready: kstatus sees no
	// condition it knows and says Current.
	"PluginWeight/testdata/legacy-conflict.yaml": "Degraded where kstatus, without Ready, says Current",
	// A status without conditions, which Berth never writes: the script
	// waits for Ready, kstatus knows no condition and says Current.
	"SchedulingProfile/testdata/no-conditions.yaml": "Progressing where kstatus, without conditions, says Current",
}

// TestHealthAgreesWithKstatus runs every test input through kstatus, as
// Flux and `kubectl wait` read it, and checks that the Argo CD health check
// says the same thing.
func TestHealthAgreesWithKstatus(t *testing.T) {
	for _, kind := range kinds {
		var cases healthTests
		if err := yaml.Unmarshal(readFile(t, filepath.Join(kind, "health_test.yaml")), &cases); err != nil {
			t.Fatal(err)
		}
		for _, tc := range cases.Tests {
			path := filepath.Join(kind, tc.InputPath)
			t.Run(path, func(t *testing.T) {
				j, err := yaml.YAMLToJSON(readFile(t, path))
				if err != nil {
					t.Fatal(err)
				}
				// Decoded as the apiserver's clients decode it: integers are int64.
				u := &unstructured.Unstructured{}
				if err := u.UnmarshalJSON(j); err != nil {
					t.Fatal(err)
				}
				res, err := status.Compute(u)
				if err != nil {
					t.Fatal(err)
				}
				agrees := false
				for _, h := range argoHealthOf[res.Status] {
					agrees = agrees || h == tc.HealthStatus.Status
				}
				if _, observed, _ := unstructured.NestedInt64(u.Object, "status", "observedGeneration"); !observed {
					// Without a status kstatus cannot tell that a controller will
					// write one and says Current; the checks wait for it.
					if res.Status != status.CurrentStatus || tc.HealthStatus.Status != "Progressing" {
						t.Errorf("without a status, Argo CD says %s and kstatus %s; want Progressing and Current", tc.HealthStatus.Status, res.Status)
					}
					return
				}
				if why, ok := kstatusExceptions[path]; ok {
					if agrees {
						t.Errorf("listed as an exception (%s), but Argo CD says %s and kstatus %s", why, tc.HealthStatus.Status, res.Status)
					}
					return
				}
				if !agrees {
					t.Errorf("Argo CD says %s %q, kstatus says %s %q", tc.HealthStatus.Status, tc.HealthStatus.Message, res.Status, res.Message)
				}
			})
		}
	}
}
