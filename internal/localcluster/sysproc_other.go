//go:build !linux

package localcluster

import "syscall"

// processGroupAttr puts a child in its own process group.
func processGroupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
