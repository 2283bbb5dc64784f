#!/usr/bin/env bash
# Builds the control-plane binaries that tests and the local cluster run
# (etcd, kube-apiserver and, on request, kube-controller-manager,
# kube-scheduler and kubectl) from Go modules into bin/k8s. Nothing but Go
# modules is downloaded. A binary that is already there at the right version is kept.
# Each binary built is also kept in a cache of this machine's
# ($BERTH_MACHINE_CACHE, default ~/.cache/berth/control-plane), by its
# stamp: another clone on the same machine copies it instead of building
# it again. BERTH_MACHINE_CACHE=off turns that cache off.
#
# Usage: hack/control-plane.sh [component...]   (default: etcd kube-apiserver)
set -euo pipefail
# The toolchain go.mod names, as the Makefile selects it (hack/toolsalign keeps it one for all).
export GOTOOLCHAIN=auto

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out="${BERTH_K8S_BIN:-$root/bin/k8s}"
machine_cache="${BERTH_MACHINE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/berth/control-plane}"
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
  local cached=""
  if [ "$machine_cache" != off ]; then
    cached="$machine_cache/$(printf '%s' "$want" | sha256sum | cut -c1-16)/$name"
  fi
  if [ -x "$out/$name" ] && [ "$have" = "$want" ]; then
    echo "control-plane: $name is up to date ($out/$name)"
    [ -z "$cached" ] || [ -x "$cached" ] || keep "$out/$name" "$cached"
    return
  fi
  if [ -n "$cached" ]; then
    if [ -x "$cached" ]; then
      cp "$cached" "$out/$name.tmp" && mv "$out/$name.tmp" "$out/$name"
      echo "$want" > "$out/.$name.stamp"
      echo "control-plane: $name copied from this machine's cache ($cached)"
      return
    fi
  fi
  echo "control-plane: building $name from Go modules into $out (the first build takes minutes)"
  local start=$SECONDS
  (cd "$dir" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w $ldflags" -o "$out/$name" "$pkg")
  echo "$want" > "$out/.$name.stamp"
  echo "control-plane: built $name in $((SECONDS - start))s"
  [ -z "$cached" ] || keep "$out/$name" "$cached"
}

# keep copies a binary built into the machine's cache, under a temporary
# name first, so that a clone building beside this one never copies half
# of it; a cache that cannot be written is skipped.
keep() {
  mkdir -p "$(dirname "$2")" 2>/dev/null || return 0
  if cp "$1" "$2.$$" 2>/dev/null && mv "$2.$$" "$2"; then
    echo "control-plane: kept $(basename "$1") in this machine's cache ($2)"
  else
    rm -f "$2.$$"
  fi
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
