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
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// RunPodInit is the init process of a local pod: `localcluster pod-init SPEC`.
// The host side starts it in new mount, network, PID and UTS namespaces; it
// builds the container's root filesystem from the image's files and the
// pod's volumes, brings up the pod's loopback, forwards the kubernetes
// Service's port to the apiserver and the container's ports to unix sockets
// on this machine, then runs the container's process chrooted into that root
// as the pod's user. It passes SIGTERM and SIGINT on, and exits as the
// container's process does. It returns the exit code.
func RunPodInit(specPath string, stderr io.Writer) int {
	spec, err := readSandboxSpec(specPath)
	if err != nil {
		fmt.Fprintf(stderr, "pod-init: %v\n", err)
		return 1
	}
	if err := prepareSandbox(spec); err != nil {
		fmt.Fprintf(stderr, "pod-init: %v\n", err)
		return 1
	}
	code, err := runContainer(spec)
	if err != nil {
		fmt.Fprintf(stderr, "pod-init: %v\n", err)
	}
	return code
}

// prepareSandbox makes the pod's root filesystem and network.
func prepareSandbox(s *sandboxSpec) error {
	// Mounts made here must not leak to this machine.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making the mounts private (is this process in its own mount namespace?): %w", err)
	}
	if err := unix.Sethostname([]byte(s.Hostname)); err != nil {
		return fmt.Errorf("setting the hostname: %w", err)
	}
	if err := loopbackUp(); err != nil {
		return err
	}
	if err := buildRoot(s); err != nil {
		return err
	}
	return wireNetwork(s)
}

// buildRoot fills the root with the image's files, a minimal /dev, /proc,
// /etc and the pod's volumes.
func buildRoot(s *sandboxSpec) error {
	root := s.Root
	if err := os.MkdirAll(root, 0o755); err != nil {
		return fmt.Errorf("creating the root: %w", err)
	}
	if err := unix.Mount("tmpfs", root, "tmpfs", 0, "mode=0755,size=64m"); err != nil {
		return fmt.Errorf("mounting the root: %w", err)
	}
	for _, dir := range []string{"dev", "proc", "etc", "tmp"} {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			return fmt.Errorf("creating /%s: %w", dir, err)
		}
	}
	if err := os.Chmod(filepath.Join(root, "tmp"), 0o1777); err != nil {
		return fmt.Errorf("making /tmp writable: %w", err)
	}
	// A distroless image's /etc: the root and nonroot users, nothing else.
	if err := os.WriteFile(filepath.Join(root, "etc", "passwd"),
		[]byte("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n"), 0o644); err != nil {
		return fmt.Errorf("writing /etc/passwd: %w", err)
	}
	if err := os.WriteFile(filepath.Join(root, "etc", "group"), []byte("root:x:0:\nnonroot:x:65532:\n"), 0o644); err != nil {
		return fmt.Errorf("writing /etc/group: %w", err)
	}
	if err := os.WriteFile(filepath.Join(root, "etc", "hostname"), []byte(s.Hostname+"\n"), 0o644); err != nil {
		return fmt.Errorf("writing /etc/hostname: %w", err)
	}
	images := make([]string, 0, len(s.ImageFiles))
	for p := range s.ImageFiles {
		images = append(images, p)
	}
	sort.Strings(images)
	for _, p := range images {
		if err := bindFile(s.ImageFiles[p], filepath.Join(root, p), true); err != nil {
			return fmt.Errorf("placing the image's %s: %w", p, err)
		}
	}
	for _, dev := range []string{"null", "zero", "random", "urandom"} {
		if err := bindFile("/dev/"+dev, filepath.Join(root, "dev", dev), false); err != nil {
			return fmt.Errorf("placing /dev/%s: %w", dev, err)
		}
	}
	if err := unix.Mount("proc", filepath.Join(root, "proc"), "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mounting /proc: %w", err)
	}
	// Shallow mount points first, so that a secret inside an emptyDir lands in it.
	mounts := append([]sandboxMount(nil), s.Mounts...)
	sort.SliceStable(mounts, func(i, j int) bool {
		return strings.Count(filepath.Clean(mounts[i].Target), "/") < strings.Count(filepath.Clean(mounts[j].Target), "/")
	})
	for _, m := range mounts {
		if err := mountVolume(root, m); err != nil {
			return err
		}
	}
	if s.ReadOnlyRoot {
		if err := unix.Mount("", root, "", unix.MS_REMOUNT|unix.MS_RDONLY, ""); err != nil {
			return fmt.Errorf("remounting the root read-only: %w", err)
		}
	}
	return nil
}

func mountVolume(root string, m sandboxMount) error {
	target := filepath.Join(root, m.Target)
	if err := os.MkdirAll(target, 0o755); err != nil {
		return fmt.Errorf("creating the mount point %s: %w", m.Target, err)
	}
	if m.Source == "" {
		opts := "mode=1777"
		if m.SizeBytes > 0 {
			opts += ",size=" + strconv.FormatInt(m.SizeBytes, 10)
		}
		var flags uintptr = unix.MS_NOSUID | unix.MS_NODEV
		if m.ReadOnly {
			flags |= unix.MS_RDONLY
		}
		if err := unix.Mount("tmpfs", target, "tmpfs", flags, opts); err != nil {
			return fmt.Errorf("mounting an emptyDir at %s: %w", m.Target, err)
		}
		return nil
	}
	if err := unix.Mount(m.Source, target, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("mounting %s at %s: %w", m.Source, m.Target, err)
	}
	if m.ReadOnly {
		if err := unix.Mount("", target, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY, ""); err != nil {
			return fmt.Errorf("making %s read-only: %w", m.Target, err)
		}
	}
	return nil
}

// bindFile shows the file src at dst, which it creates.
func bindFile(src, dst string, readOnly bool) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	_ = f.Close()
	if err := unix.Mount(src, dst, "", unix.MS_BIND, ""); err != nil {
		return err
	}
	if readOnly {
		return unix.Mount("", dst, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY, "")
	}
	return nil
}

// loopbackUp brings up lo, the only interface of the pod's network namespace.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("opening a socket to configure lo: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return fmt.Errorf("configuring lo: %w", err)
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("reading lo's flags: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("bringing lo up: %w", err)
	}
	return nil
}

// wireNetwork starts the forwarders: the pod's kubernetes Service port to the
// apiserver's socket, and a socket on this machine to each container port.
func wireNetwork(s *sandboxSpec) error {
	api, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(s.APIPort)))
	if err != nil {
		return fmt.Errorf("listening for the kubernetes Service: %w", err)
	}
	go forward(api, func() (net.Conn, error) { return net.Dial("unix", s.APISocket) })
	for _, port := range s.Ports {
		path := portSocket(s.SocketDir, port)
		_ = os.Remove(path)
		l, err := net.Listen("unix", path)
		if err != nil {
			return fmt.Errorf("listening for port %d: %w", port, err)
		}
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		go forward(l, func() (net.Conn, error) { return net.Dial("tcp", addr) })
	}
	return nil
}

// forward accepts connections on l and joins each to a connection from dial.
func forward(l net.Listener, dial func() (net.Conn, error)) {
	for {
		in, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			out, err := dial()
			if err != nil {
				_ = in.Close()
				return
			}
			splice(in, out)
		}()
	}
}

// runContainer runs the container's process in the root and waits for it.
func runContainer(s *sandboxSpec) (int, error) {
	if len(s.Argv) == 0 {
		return 1, errors.New("the container has no command: neither its command nor the image's ENTRYPOINT")
	}
	cmd := &exec.Cmd{Path: s.Argv[0], Args: s.Argv, Env: s.Env, Dir: s.WorkingDir, Stdout: os.Stdout, Stderr: os.Stderr}
	if cmd.Dir == "" {
		cmd.Dir = "/"
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Chroot:     s.Root,
		Credential: &syscall.Credential{Uid: s.UID, Gid: s.GID, Groups: s.Groups},
		// Its own group, so that a SIGTERM to the pod reaches it once, through this init.
		Setpgid:   true,
		Pdeathsig: syscall.SIGKILL,
	}
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	if err := cmd.Start(); err != nil {
		return 128, fmt.Errorf("starting %s: %w", strings.Join(s.Argv, " "), err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for {
			select {
			case sig := <-signals:
				_ = cmd.Process.Signal(sig)
			case <-ctx.Done():
				return
			}
		}
	}()
	err := cmd.Wait()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, nil
	case errors.As(err, &exit):
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal()), nil
		}
		return exit.ExitCode(), nil
	default:
		return 1, err
	}
}
