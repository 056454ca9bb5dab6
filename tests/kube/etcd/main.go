// Command etcd runs etcd's own entry point (go.etcd.io/etcd/server/v3/etcdmain), so the live tests
// get the etcd server from its Go module at the version pinned in go.mod.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
