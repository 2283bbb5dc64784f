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

package localcluster

import (
	"encoding/json"
	"fmt"
	"os"
)

// sandboxSpec is what the host side of a local pod hands its init process
// (`localcluster pod-init SPEC`): everything the init needs to build the
// container's root filesystem, wire its network and start its process.
type sandboxSpec struct {
	// Hostname is the pod's name, as a container sees it.
	Hostname string `json:"hostname"`
	// Root is an empty directory on this machine that becomes the container's root.
	Root string `json:"root"`
	// ReadOnlyRoot remounts the root read-only once it is built (securityContext.readOnlyRootFilesystem).
	ReadOnlyRoot bool `json:"readOnlyRoot"`
	// ImageFiles maps a path in the image to the file on this machine that it holds.
	ImageFiles map[string]string `json:"imageFiles"`
	// Mounts are the container's volume mounts, in the order they are made.
	Mounts []sandboxMount `json:"mounts"`
	// Argv is the container's command line, its first element a path inside the root.
	Argv []string `json:"argv"`
	// Env is the container's environment, as NAME=value.
	Env []string `json:"env"`
	// WorkingDir is the process's working directory inside the root.
	WorkingDir string `json:"workingDir"`
	// UID, GID and Groups are the process's credentials.
	UID    uint32   `json:"uid"`
	GID    uint32   `json:"gid"`
	Groups []uint32 `json:"groups,omitempty"`
	// APIPort is the port on the pod's loopback where the kubernetes Service
	// answers; connections to it are forwarded to APISocket.
	APIPort   int    `json:"apiPort"`
	APISocket string `json:"apiSocket"`
	// Ports are the container's ports; each is reachable from this machine
	// through the unix socket PortSocket(SocketDir, port).
	Ports     []int  `json:"ports"`
	SocketDir string `json:"socketDir"`
}

// sandboxMount is one volume mounted into a local pod.
type sandboxMount struct {
	// Target is the mount point inside the container's root.
	Target string `json:"target"`
	// Source is the directory on this machine that a bind mount shows; empty for a tmpfs.
	Source string `json:"source,omitempty"`
	// SizeBytes bounds a tmpfs (emptyDir.sizeLimit); zero means the kernel's default.
	SizeBytes int64 `json:"sizeBytes,omitempty"`
	// ReadOnly mounts it read-only.
	ReadOnly bool `json:"readOnly,omitempty"`
}

// portSocket is the unix socket through which this machine reaches port on a local pod.
func portSocket(dir string, port int) string { return fmt.Sprintf("%s/p%d.sock", dir, port) }

func readSandboxSpec(path string) (*sandboxSpec, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the pod's sandbox spec: %w", err)
	}
	s := &sandboxSpec{}
	if err := json.Unmarshal(raw, s); err != nil {
		return nil, fmt.Errorf("decoding the pod's sandbox spec %s: %w", path, err)
	}
	return s, nil
}
