package localcluster

import "syscall"

// processGroupAttr puts a child in its own process group and has the kernel
// kill it if this program dies without stopping it.
func processGroupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
