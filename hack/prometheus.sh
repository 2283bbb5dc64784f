#!/usr/bin/env bash
# Installs Prometheus and promtool from Debian's `prometheus` package at a
# pinned version and links them into bin/ (bin/prometheus, bin/promtool).
# `make test-rules` runs promtool on the alerting rules; the e2e suite runs
# the server. Nothing is done when bin/ already holds both at that version.
# The package's service is not started (the install runs under a
# policy-rc.d that forbids it). Needs root (apt-get), as CI runs.
#
# Usage: hack/prometheus.sh        PROMETHEUS_DEB_VERSION=... overrides the pin.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out="${BERTH_BIN:-$root/bin}"
version="${PROMETHEUS_DEB_VERSION:-2.42.0+ds-5+deb12u1}"

installed() { dpkg-query -W -f='${Version}' prometheus 2>/dev/null || true; }

if [ "$(installed)" != "$version" ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "hack/prometheus.sh: installing prometheus=$version with apt-get needs root" >&2
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
  if ! apt-cache show "prometheus=$version" >/dev/null 2>&1; then
    apt-get update -qq
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "prometheus=$version" >/dev/null
fi

mkdir -p "$out"
ln -sfn /usr/bin/promtool "$out/promtool"
ln -sfn /usr/bin/prometheus "$out/prometheus"
"$out/promtool" --version 2>&1 | head -1
