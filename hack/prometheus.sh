#!/usr/bin/env bash
# Installs Prometheus and promtool from Debian's `prometheus` package at a
# pinned upstream version and links them into bin/ (bin/prometheus,
# bin/promtool). The pin is Prometheus' own version: Debian rebuilds the
# package (+b6, +deb12u1, ...) and mirrors keep only the newest revision, so
# any Debian revision of that upstream version is accepted.
# `make test-rules` runs promtool on the alerting rules; the e2e suite runs
# the server. Nothing is done when bin/ already holds both at that version.
# The package's service is not started (the install runs under a
# policy-rc.d that forbids it). Needs root (apt-get), as CI runs.
#
# Usage: hack/prometheus.sh        PROMETHEUS_VERSION=2.42.0 overrides the
#        upstream pin; PROMETHEUS_DEB_VERSION=... asks for one exact revision.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out="${BERTH_BIN:-$root/bin}"
upstream="${PROMETHEUS_VERSION:-2.42.0}"
exact="${PROMETHEUS_DEB_VERSION:-}"

installed() { dpkg-query -W -f='${Version}' prometheus 2>/dev/null || true; }

# wanted reports whether a Debian version string is the one asked for.
wanted() {
  if [ -n "$exact" ]; then [ "$1" = "$exact" ]; else case "$1" in "$upstream"+*|"$upstream"-*) return 0 ;; esac; return 1; fi
}

# candidate prints the newest Debian version the archive offers that is wanted.
candidate() {
  apt-cache madison prometheus 2>/dev/null | awk -F'|' '{gsub(/ /, "", $2); print $2}' |
    while read -r v; do if wanted "$v"; then echo "$v"; break; fi; done
}

if ! wanted "$(installed)"; then
  if [ "$(id -u)" != 0 ]; then
    echo "hack/prometheus.sh: installing prometheus ${exact:-$upstream} with apt-get needs root" >&2
    exit 1
  fi
  version=$(candidate || true)
  if [ -z "$version" ]; then
    apt-get update -qq
    version=$(candidate || true)
  fi
  if [ -z "$version" ]; then
    echo "hack/prometheus.sh: the Debian archive has no prometheus ${exact:-$upstream+*}; available:" >&2
    apt-cache madison prometheus >&2 || true
    exit 1
  fi
  echo "Installing Debian's prometheus=$version (promtool and the server)"
  # Forbid the package's scripts to start the service while it installs.
  policy=/usr/sbin/policy-rc.d
  had_policy=false
  if [ -e "$policy" ]; then had_policy=true; cp -p "$policy" "$policy.berth-saved"; fi
  printf '#!/bin/sh\nexit 101\n' > "$policy"
  chmod +x "$policy"
  restore() {
    if $had_policy; then mv -f "$policy.berth-saved" "$policy"; else rm -f "$policy"; fi
  }
  trap restore EXIT
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "prometheus=$version" >/dev/null
fi

mkdir -p "$out"
ln -sfn /usr/bin/promtool "$out/promtool"
ln -sfn /usr/bin/prometheus "$out/prometheus"
"$out/promtool" --version 2>&1 | head -1
