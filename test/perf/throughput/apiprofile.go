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
	"strconv"
	"time"

	"k8s.io/client-go/kubernetes"
)

// apiServerProfile asks kube-apiserver for a CPU profile of d (its
// /debug/pprof endpoint, on by default) and writes it to path.
func apiServerProfile(ctx context.Context, client kubernetes.Interface, path string, d time.Duration) error {
	secs := max(1, int(d/time.Second))
	raw, err := client.Discovery().RESTClient().Get().
		AbsPath("/debug/pprof/profile").
		Param("seconds", strconv.Itoa(secs)).
		DoRaw(ctx)
	if err != nil {
		return fmt.Errorf("fetching kube-apiserver's CPU profile: %w", err)
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		return fmt.Errorf("writing kube-apiserver's CPU profile: %w", err)
	}
	return nil
}
