#!/usr/bin/env bash
# Builds the control-plane binaries that tests and the local cluster run
# (etcd, kube-apiserver and, on request, kube-controller-manager,
# kube-scheduler and kubectl) from Go modules into bin/k8s. Nothing but Go
# modules is downloaded. A binary that is already there at the right version is kept.
#
# Usage: hack/control-plane.sh [component...]   (default: etcd kube-apiserver)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out="${BERTH_K8S_BIN:-$root/bin/k8s}"
k8s_version=v1.37.1
components=("$@")
[ ${#components[@]} -gt 0 ] || components=(etcd kube-apiserver)

mkdir -p "$out"

# stamp prints what identifies a build: the component, the Go toolchain and
# the tools module's go.sum, so a change to any of them rebuilds.
stamp() {
  local dir=$1
  printf '%s %s %s\n' "$2" "$(cd "$dir" && go env GOVERSION)" "$(sha256sum "$dir/go.mod" "$dir/go.sum" | sha256sum | cut -c1-16)"
}

build() {
  local name=$1 dir=$2 pkg=$3 ldflags=$4
  local want have=""
  want=$(stamp "$dir" "$name")
  [ -f "$out/.$name.stamp" ] && have=$(cat "$out/.$name.stamp")
  if [ -x "$out/$name" ] && [ "$have" = "$want" ]; then
    echo "control-plane: $name is up to date ($out/$name)"
    return
  fi
  echo "control-plane: building $name from Go modules into $out (the first build takes minutes)"
  local start=$SECONDS
  (cd "$dir" && go build -trimpath -ldflags "-s -w $ldflags" -o "$out/$name" "$pkg")
  echo "$want" > "$out/.$name.stamp"
  echo "control-plane: built $name in $((SECONDS - start))s"
}

version_ldflags=""
for v in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  version_ldflags+=" -X $v.gitVersion=$k8s_version -X $v.gitMajor=1 -X $v.gitMinor=37 -X $v.gitTreeState=clean"
done

for c in "${components[@]}"; do
  case "$c" in
    etcd) build etcd "$root/hack/tools/etcd" . "" ;;
    kube-apiserver|kube-controller-manager|kube-scheduler|kubectl)
      build "$c" "$root/hack/tools/controlplane" "k8s.io/kubernetes/cmd/$c" "$version_ldflags" ;;
    *) echo "control-plane: unknown component $c" >&2; exit 2 ;;
  esac
done
