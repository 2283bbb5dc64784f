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

package throughput

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/berth-io/berth/internal/localcluster"
)

// Env is what a scheduler under test is given to reach the control plane.
type Env struct {
	// Kubeconfig is the path of an administrator kubeconfig.
	Kubeconfig string
	// Dir is a directory the scheduler may write its files in.
	Dir string
	// Cluster is the running control plane.
	Cluster *localcluster.Cluster
	// FeatureGates are the Kubernetes feature gates the workload needs
	// kube-scheduler to run with, in --feature-gates form; "" for none.
	FeatureGates string
}

// Scheduler is a scheduler under test, run as a separate process.
type Scheduler struct {
	// Name names the scheduler in reports.
	Name string
	// Binary is the executable to run.
	Binary string
	// Args returns the command-line arguments for env.
	Args func(env Env) ([]string, error)
	// Setup, when set, prepares the cluster before the process starts.
	Setup func(ctx context.Context, env Env) error
}

// Berth runs `berth manager` from binary, reported as name, with a
// SchedulingProfile named default-scheduler (all defaults) applied first.
// extraArgs are appended.
func Berth(name, binary string, extraArgs ...string) Scheduler {
	return Scheduler{
		Name:   name,
		Binary: binary,
		Args: func(env Env) ([]string, error) {
			return append([]string{"manager",
				"--kubeconfig=" + env.Kubeconfig,
				"--leader-elect=false", "--enable-webhook=false",
				"--metrics-bind-address=0", "--health-probe-bind-address=0",
				"--kube-api-qps=5000", "--kube-api-burst=5000",
			}, extraArgs...), nil
		},
		Setup: applyDefaultProfile,
	}
}

// BerthWithShadow is Berth with a shadow of the default profile, identical
// to it and sampling every attempt (SchedulingProfile
// default-scheduler-shadow, shadowOf default-scheduler): what the live
// path loses to a shadow at 100% sampling.
func BerthWithShadow(name, binary string, extraArgs ...string) Scheduler {
	s := Berth(name, binary, extraArgs...)
	s.Setup = func(ctx context.Context, env Env) error {
		if err := applyDefaultProfile(ctx, env); err != nil {
			return err
		}
		return applyProfile(ctx, env, SchedulerName+"-shadow", map[string]any{"shadowOf": SchedulerName, "shadowSampleRatePercent": int64(100)})
	}
	return s
}

// applyDefaultProfile creates the SchedulingProfile default-scheduler with an empty spec.
func applyDefaultProfile(ctx context.Context, env Env) error {
	return applyProfile(ctx, env, SchedulerName, map[string]any{})
}

// applyProfile creates a SchedulingProfile with the spec given.
func applyProfile(ctx context.Context, env Env, name string, spec map[string]any) error {
	applier, err := localcluster.NewApplier(env.Cluster.Config)
	if err != nil {
		return fmt.Errorf("building an applier: %w", err)
	}
	profile := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "scheduling.berth.io/v1alpha1",
		"kind":       "SchedulingProfile",
		"metadata":   map[string]any{"name": name},
		"spec":       spec,
	}}
	if err := applier.Apply(ctx, profile); err != nil {
		return fmt.Errorf("applying the SchedulingProfile %s: %w", name, err)
	}
	return nil
}

// kubeSchedulerConfig is upstream's configuration for the bench: default
// profile, no leader election, client QPS and burst 5000.
const kubeSchedulerConfig = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: %q
  qps: 5000
  burst: 5000
leaderElection:
  leaderElect: false
`

// KubeScheduler runs upstream kube-scheduler from binary with its default
// profile, leader election off and client QPS/burst 5000.
func KubeScheduler(binary string) Scheduler {
	return Scheduler{
		Name:   "kube-scheduler",
		Binary: binary,
		Args: func(env Env) ([]string, error) {
			path := filepath.Join(env.Dir, "kube-scheduler.yaml")
			if err := os.WriteFile(path, fmt.Appendf(nil, kubeSchedulerConfig, env.Kubeconfig), 0o600); err != nil {
				return nil, fmt.Errorf("writing kube-scheduler's configuration: %w", err)
			}
			args := []string{"--config=" + path, "--secure-port=0"}
			if env.FeatureGates != "" {
				args = append(args, "--feature-gates="+env.FeatureGates)
			}
			return args, nil
		},
	}
}

// NullBinder runs binary with args followed by --kubeconfig, reported as
// name: a process that calls NullBind, binding pods round-robin without
// filtering or scoring.
func NullBinder(name, binary string, args ...string) Scheduler {
	return Scheduler{
		Name:   name,
		Binary: binary,
		Args: func(env Env) ([]string, error) {
			return append(append([]string(nil), args...), "--kubeconfig="+env.Kubeconfig), nil
		},
	}
}
