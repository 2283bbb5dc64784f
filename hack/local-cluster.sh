#!/usr/bin/env bash
# Runs Berth on a local cluster: builds what is missing (etcd, kube-apiserver
# and kube-controller-manager v1.37.1, kwok v0.8.0, metrics-server v0.8.0 and
# berth, all from Go modules), then starts the control plane with $NODES kwok
# fake nodes and metrics-server, installs the CRDs, config/samples and the
# demo workloads, and runs `berth manager` in the foreground. Ctrl-C stops
# everything it started.
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

# build_kwok builds kwok from hack/tools/kwok and writes its configuration
# next to it, taken from the module: kwok's own node and pod Stages
# (kwok-stages.yaml), and what sets the pods' usage that the fake nodes
# report to metrics-server (kwok-usage.yaml: the CRDs of ResourceUsage and
# ClusterResourceUsage, and kwok's ClusterResourceUsage that reads a pod's
# usage from its annotations).
# A stamp of the Go toolchain and the tools module keeps the binary until
# they change; the configuration is cheap and written every time.
build_kwok() {
  local dir="$root/hack/tools/kwok" want have="" mod f
  want="kwok $(cd "$dir" && go env GOVERSION) $(cat "$dir/go.mod" "$dir/go.sum" | sha256sum | cut -c1-16)"
  [ -f "$bin/.kwok.stamp" ] && have=$(cat "$bin/.kwok.stamp")
  if [ -x "$bin/kwok" ] && [ "$have" = "$want" ]; then
    echo "local-cluster: kwok is up to date ($bin/kwok)"
  else
    echo "local-cluster: building kwok from Go modules into $bin (the first build takes minutes)"
    local start=$SECONDS
    (cd "$dir" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$bin/kwok" sigs.k8s.io/kwok/cmd/kwok)
    echo "$want" > "$bin/.kwok.stamp"
    echo "local-cluster: built kwok in $((SECONDS - start))s"
  fi
  mod=$(cd "$dir" && go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)
  {
    for f in node/fast/node-initialize.yaml node/heartbeat-with-lease/node-heartbeat-with-lease.yaml \
             pod/fast/pod-ready.yaml pod/fast/pod-complete.yaml pod/fast/pod-delete.yaml; do
      echo "---"
      cat "$mod/kustomize/stage/$f"
    done
  } > "$bin/kwok-stages.yaml.tmp"
  mv "$bin/kwok-stages.yaml.tmp" "$bin/kwok-stages.yaml"
  {
    for f in crd/bases/kwok.x-k8s.io_resourceusages.yaml crd/bases/kwok.x-k8s.io_clusterresourceusages.yaml \
             metrics/usage/usage-from-annotation.yaml; do
      echo "---"
      cat "$mod/kustomize/$f"
    done
  } > "$bin/kwok-usage.yaml.tmp"
  mv "$bin/kwok-usage.yaml.tmp" "$bin/kwok-usage.yaml"
}

# build_metrics_server builds metrics-server from hack/tools/metrics-server,
# kept, as kwok is, until the toolchain or the tools module changes.
build_metrics_server() {
  local dir="$root/hack/tools/metrics-server" want have=""
  want="metrics-server $(cd "$dir" && go env GOVERSION) $(cat "$dir/go.mod" "$dir/go.sum" | sha256sum | cut -c1-16)"
  [ -f "$bin/.metrics-server.stamp" ] && have=$(cat "$bin/.metrics-server.stamp")
  if [ -x "$bin/metrics-server" ] && [ "$have" = "$want" ]; then
    echo "local-cluster: metrics-server is up to date ($bin/metrics-server)"
    return
  fi
  echo "local-cluster: building metrics-server from Go modules into $bin"
  local start=$SECONDS
  (cd "$dir" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$bin/metrics-server" sigs.k8s.io/metrics-server/cmd/metrics-server)
  echo "$want" > "$bin/.metrics-server.stamp"
  echo "local-cluster: built metrics-server in $((SECONDS - start))s"
}

build() {
  hack/control-plane.sh etcd kube-apiserver kube-controller-manager
  build_kwok
  build_metrics_server
  go build -o "$bin/localcluster" ./cmd/localcluster
  go build -o "$bin/berth" ./cmd/berth
}

if [ "${1:-}" = "build" ]; then
  build
  exit 0
fi

build
exec "$bin/localcluster" up --nodes "${NODES:-10}" \
  --k8s-bin-dir "$bin/k8s" --kwok "$bin/kwok" --kwok-stages "$bin/kwok-stages.yaml" \
  --metrics-server "$bin/metrics-server" --kwok-usage "$bin/kwok-usage.yaml" --berth "$bin/berth" \
  --apply config/samples --apply internal/localcluster/samples "$@"
