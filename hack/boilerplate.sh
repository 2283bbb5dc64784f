#!/usr/bin/env bash
# Checks (or, with --fix, adds) the license header of hack/boilerplate.go.txt
# at the top of every Go file git knows, any year. Generated files carry it
# too: controller-gen writes it from the same file.
set -euo pipefail
cd "$(dirname "$0")/.."

fix=false
if [[ "${1:-}" == "--fix" ]]; then
	fix=true
	shift
fi
header=hack/boilerplate.go.txt
year=$(date +%Y)
lines=$(wc -l <"$header")

# constraints FILE: how many lines of build constraints (and the blank line
# after them) open the file; the header follows them, as a block comment
# before a constraint would void it.
constraints() {
	awk '/^\/\/go:build|^\/\/ \+build/ { n = NR; next } n && /^$/ { n = NR; next } { exit } END { print n + 0 }' "$1"
}

# has_header FILE: the file's first lines after its build constraints are
# the header, the year aside.
has_header() {
	diff -q <(tail -n +"$(($(constraints "$1") + 1))" "$1" | head -n "$lines" | sed -E 's/Copyright [0-9]{4} /Copyright YEAR /') \
		<(sed -E 's/Copyright [0-9]{4} /Copyright YEAR /' "$header") >/dev/null
}

files=("$@")
if [[ ${#files[@]} -eq 0 ]]; then
	mapfile -t files < <(git ls-files '*.go')
fi
missing=()
for f in "${files[@]}"; do
	[[ -f "$f" ]] || continue
	has_header "$f" && continue
	if $fix; then
		tmp=$(mktemp)
		n=$(constraints "$f")
		{
			head -n "$n" "$f"
			sed -E "s/Copyright [0-9]{4} /Copyright $year /" "$header"
			echo
			tail -n +"$((n + 1))" "$f"
		} >"$tmp"
		cat "$tmp" >"$f"
		rm -f "$tmp"
	else
		missing+=("$f")
	fi
done
if [[ ${#missing[@]} -gt 0 ]]; then
	echo "these Go files lack the license header of $header (run hack/boilerplate.sh --fix):"
	printf '  %s\n' "${missing[@]}"
	exit 1
fi
