//go:build !linux

package localcluster

import (
	"fmt"
	"io"
)

// RunPodInit is the init process of a local pod; local pods need Linux namespaces.
func RunPodInit(_ string, stderr io.Writer) int {
	fmt.Fprintln(stderr, "pod-init: local pods need Linux")
	return 1
}
