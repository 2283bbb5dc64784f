// Command etcd is a minimal etcd server binary built from the etcd Go module,
// so that tests and the local cluster need no downloaded release archive.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
