#!/usr/bin/env bash
# Checks that the generated files (deepcopy methods, CRDs, RBAC, the
# webhook configuration and the chart's copies of them) match what
# `make generate manifests` would write, without writing to the checkout:
# the generators run in a scratch copy of it, and the copy is compared with
# the checkout. make test runs verify beside the envtest suites, which read
# the CRDs and compile the API package while it runs; rewriting them in
# place (a truncate, then a write) could hand a suite half a file.
#
# Usage: hack/verify-generated.sh CONTROLLER_GEN
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
controller_gen=${1:?usage: hack/verify-generated.sh CONTROLLER_GEN}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/berth-verify-XXXXXX")
trap 'rm -rf "$scratch"' EXIT

cd "$root"
# The checkout as it is, committed or not, but nothing git ignores (bin/).
git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
  [ -e "$f" ] && printf '%s\0' "$f"
done | xargs -0 cp --parents -t "$scratch"

cd "$scratch"
"$controller_gen" object:headerFile="hack/boilerplate.go.txt" paths="./api/..."
"$controller_gen" crd:allowDangerousTypes=false rbac:roleName=berth-manager webhook paths="./..." \
  output:crd:artifacts:config=config/crd/bases output:rbac:artifacts:config=config/rbac \
  output:webhook:artifacts:config=config/webhook
make --no-print-directory helm-sync >/dev/null

stale=0
for dir in api config charts; do
  if ! diff -r -q "$root/$dir" "$scratch/$dir" >/dev/null; then
    stale=1
    diff -r -u "$root/$dir" "$scratch/$dir" | sed "s|$scratch/||; s|$root/||" | head -200 || true
  fi
done
if [ "$stale" -ne 0 ]; then
  echo "generated files are stale; run 'make generate manifests' and commit"
  exit 1
fi
echo "verify-generated: the generated files are up to date"
