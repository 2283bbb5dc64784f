#!/usr/bin/env bash
# Prints the CHANGELOG.md section of a release, its heading left out: the
# notes of the GitHub release the release workflow creates. Fails when the
# CHANGELOG has no section for the version, or an empty one.
#
# Usage: hack/release-notes.sh vX.Y.Z
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
version=${1:?usage: hack/release-notes.sh vX.Y.Z}

notes=$(awk -v v="$version" '
  /^## / { if (found) exit; if (index($0, "## [" v "]") == 1) { found = 1; next } }
  found { print }
' "$root/CHANGELOG.md")
if [ -z "$(tr -d '[:space:]' <<<"$notes")" ]; then
  echo "hack/release-notes.sh: CHANGELOG.md has no section \"## [$version] ...\" with notes" >&2
  exit 1
fi
# The compare links at the end of the file are not part of the notes.
sed -e '/^\[[^]]*\]: /d' <<<"$notes"
