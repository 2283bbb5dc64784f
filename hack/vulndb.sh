#!/usr/bin/env bash
# Builds the Go vulnerability database `make vulncheck` checks against,
# offline: the OSV reports of golang.org/x/vulndb at the version
# hack/tools/vuln/go.mod pins (its data/osv, fetched through the Go module
# proxy like any module) indexed by that module's own cmd/indexdb into the
# v1 database layout that `govulncheck -db file://DIR` reads (index/db.json,
# index/modules.json, index/vulns.json, ID/GO-*.json). Nothing is
# downloaded but Go modules; vuln.go.dev is never asked. The database is as
# new as the pinned vulndb: bump the pin to learn of newer reports.
#
# Usage: hack/vulndb.sh OUT_DIR INDEXDB_BIN
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:?usage: hack/vulndb.sh OUT_DIR INDEXDB_BIN}
indexdb=${2:?usage: hack/vulndb.sh OUT_DIR INDEXDB_BIN}

cd "$root/hack/tools/vuln"
src=$(go list -m -f '{{.Dir}}' golang.org/x/vulndb)
if [ -z "$src" ] || [ ! -d "$src/data/osv" ]; then
  go mod download golang.org/x/vulndb
  src=$(go list -m -f '{{.Dir}}' golang.org/x/vulndb)
fi
version=$(go list -m -f '{{.Version}}' golang.org/x/vulndb)
if [ -f "$out/VERSION" ] && [ "$(cat "$out/VERSION")" = "$version" ]; then
  exit 0
fi
rm -rf "$out"
mkdir -p "$out"
"$indexdb" -vulns "$src/data/osv" -out "$out"
echo "$version" > "$out/VERSION"
echo "hack/vulndb.sh: built the vulnerability database of golang.org/x/vulndb $version ($(find "$out/ID" -name "*.json" | wc -l) reports) in $out"
