#!/usr/bin/env bash
# Runs Berth on a local cluster: builds what is missing (etcd, kube-apiserver
# and kube-controller-manager v1.37.1, kwok v0.8.0 and berth, all from Go
# modules), then starts the control plane with $NODES kwok fake nodes,
# installs the CRDs, config/samples and a demo Deployment, and runs
# `berth manager` in the foreground. Ctrl-C stops everything it started.
#
# Usage: hack/local-cluster.sh [localcluster up flags]   e.g. NODES=50 hack/local-cluster.sh -v
#        hack/local-cluster.sh build                     only build the binaries
# Flags: see `bin/localcluster up -h`. The run directory is .run/local-cluster.
set -euo pipefail
# The toolchain go.mod names, as the Makefile selects it (hack/toolsalign keeps it one for all).
export GOTOOLCHAIN=auto

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bin="$root/bin"
mkdir -p "$bin"

# build_kwok builds kwok from hack/tools/kwok and writes its Stage
# configuration (kwok's own node and pod stages, taken from the module) next
# to it; a stamp of the Go toolchain and the tools module keeps it until they change.
build_kwok() {
  local dir="$root/hack/tools/kwok" want have=""
  want="kwok $(cd "$dir" && go env GOVERSION) $(cat "$dir/go.mod" "$dir/go.sum" | sha256sum | cut -c1-16)"
  [ -f "$bin/.kwok.stamp" ] && have=$(cat "$bin/.kwok.stamp")
  if [ -x "$bin/kwok" ] && [ -f "$bin/kwok-stages.yaml" ] && [ "$have" = "$want" ]; then
    echo "local-cluster: kwok is up to date ($bin/kwok)"
    return
  fi
  echo "local-cluster: building kwok from Go modules into $bin (the first build takes minutes)"
  local start=$SECONDS mod
  (cd "$dir" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$bin/kwok" sigs.k8s.io/kwok/cmd/kwok)
  mod=$(cd "$dir" && go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)
  {
    for f in node/fast/node-initialize.yaml node/heartbeat-with-lease/node-heartbeat-with-lease.yaml \
             pod/fast/pod-ready.yaml pod/fast/pod-complete.yaml pod/fast/pod-delete.yaml; do
      echo "---"
      cat "$mod/kustomize/stage/$f"
    done
  } > "$bin/kwok-stages.yaml"
  echo "$want" > "$bin/.kwok.stamp"
  echo "local-cluster: built kwok in $((SECONDS - start))s"
}

build() {
  hack/control-plane.sh etcd kube-apiserver kube-controller-manager
  build_kwok
  go build -o "$bin/localcluster" ./cmd/localcluster
  go build -o "$bin/berth" ./cmd/berth
}

if [ "${1:-}" = "build" ]; then
  build
  exit 0
fi

build
exec "$bin/localcluster" up --nodes "${NODES:-10}" \
  --k8s-bin-dir "$bin/k8s" --kwok "$bin/kwok" --kwok-stages "$bin/kwok-stages.yaml" --berth "$bin/berth" \
  --apply config/samples --apply internal/localcluster/samples "$@"
