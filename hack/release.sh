#!/usr/bin/env bash
# Builds Berth's release archives without publishing anything: `berth` for
# each platform, built as the image builds it (the Dockerfile's flags:
# static, -trimpath, the version and commit stamped), packed with LICENSE,
# README.md and CHANGELOG.md into berth_<version>_<os>_<arch>.tar.gz, and a
# berth_<version>_checksums.txt of their SHA-256 sums. The archives are
# reproducible: the same commit gives the same bytes.
#
# Usage: hack/release.sh [OUT_DIR]   (default bin/release)
#   VERSION    the version stamped (default: the chart's appVersion)
#   PLATFORMS  os/arch pairs (default: linux and darwin on amd64 and arm64)
#   CHECK=1    also check what was built: every archive's checksum, its
#              files, and `berth version` of the host's binary
set -euo pipefail
# The toolchain go.mod names, as the Makefile selects it.
export GOTOOLCHAIN=auto

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-$root/bin/release}
cd "$root"

version=${VERSION:-$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' charts/berth/Chart.yaml)}
if [ -z "$version" ]; then
  echo "hack/release.sh: no VERSION and no appVersion in charts/berth/Chart.yaml" >&2
  exit 1
fi
platforms=${PLATFORMS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64}
commit=$(git rev-parse HEAD)
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  commit="$commit-dirty"
fi
# Every file in the archives carries the commit's time, so that they are
# the same bytes whenever they are built.
mtime=$(git log -1 --format=%ct)

rm -rf "$out"
mkdir -p "$out"
archives=()
for platform in $platforms; do
  os=${platform%/*} arch=${platform#*/}
  name="berth_${version}_${os}_${arch}"
  stage="$out/.stage/$name"
  mkdir -p "$stage"
  echo "release: building $name"
  CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath \
    -ldflags "-s -w -X main.gitVersion=$version -X main.gitCommit=$commit" -o "$stage/berth" ./cmd/berth
  cp LICENSE README.md CHANGELOG.md "$stage/"
  tar -C "$out/.stage" --sort=name --mtime="@$mtime" --owner=0 --group=0 --numeric-owner \
    -cf - "$name" | gzip -n > "$out/$name.tar.gz"
  archives+=("$name.tar.gz")
done
(cd "$out" && sha256sum "${archives[@]}" > "berth_${version}_checksums.txt")
rm -rf "$out/.stage"
echo "release: ${#archives[@]} archive(s) of berth $version ($commit) and berth_${version}_checksums.txt in $out"

[ "${CHECK:-}" = 1 ] || exit 0

# The check: the sums match, each archive holds exactly its files, and the
# host's binary says its version and commit.
(cd "$out" && sha256sum --quiet -c "berth_${version}_checksums.txt")
for a in "${archives[@]}"; do
  name=${a%.tar.gz}
  want=$(printf '%s\n' "$name/" "$name/CHANGELOG.md" "$name/LICENSE" "$name/README.md" "$name/berth")
  got=$(tar -tzf "$out/$a" | sort)
  if [ "$got" != "$want" ]; then
    echo "release: $a holds"$'\n'"$got"$'\n'"want"$'\n'"$want" >&2
    exit 1
  fi
done
host="berth_${version}_$(go env GOOS)_$(go env GOARCH)"
if [ -f "$out/$host.tar.gz" ]; then
  printed=$(tar -xzOf "$out/$host.tar.gz" "$host/berth" > "$out/berth-check" && chmod +x "$out/berth-check" && "$out/berth-check" version)
  rm -f "$out/berth-check"
  case "$printed" in
    "berth $version (commit $commit, "*) echo "release: $printed" ;;
    *) echo "release: berth version printed \"$printed\", want berth $version (commit $commit, ...)" >&2; exit 1 ;;
  esac
fi
