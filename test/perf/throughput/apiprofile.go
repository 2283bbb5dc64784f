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
