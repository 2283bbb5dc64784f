#!/usr/bin/env bash
# Compares this build with a base ref, both measured in the same window so
# that the machine's drift from hour to hour cancels out.
#
# Usage:
#   hack/bench-compare.sh cluster BASE   the throughput bench: berth (this
#       tree) and berth-base (BASE) take turns, round by round, each on a
#       fresh control plane with the same settings; bench prints per workload
#       the per-round ratios berth/berth-base of pods/s and CPU per pod.
#       NODES, PODS, REPEAT, WORKLOADS, BENCH_ARGS (extra bench flags).
#   hack/bench-compare.sh go BASE        the scheduler's Go benchmarks of
#       the per-pod hot path, no cluster: both test binaries run one
#       -count at a time, alternating, then benchstat compares them.
#       GO_BENCH (regexp), GO_COUNT, GO_BENCHTIME.
#
# BASE is built in a detached worktree under bin/bench-base/<sha>, kept and
# reused: the binaries of a commit do not change. Its berth binary is the
# main package at the root (v0.1) or cmd/berth (later).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mode=${1:?usage: hack/bench-compare.sh cluster|go BASE}
base=${2:?usage: hack/bench-compare.sh cluster|go BASE}
bin="$root/bin"
sha=$(git -C "$root" rev-parse --short=12 "$base^{commit}")
dir="$bin/bench-base/$sha"

if [ ! -e "$dir/.git" ]; then
  git -C "$root" worktree add --detach "$dir" "$sha" >&2
fi

# Both builds are compiled by this tree's toolchain (go.mod's toolchain line),
# so that a base older than that line measures its code, not an older Go.
toolchain=$(cd "$root" && go env GOVERSION)

# base_berth builds the base's berth binary once per toolchain.
base_berth() {
  local out="$dir/bin/berth-$toolchain"
  if [ ! -x "$out" ]; then
    local pkg=./cmd/berth
    [ -d "$dir/cmd/berth" ] || pkg=.
    (cd "$dir" && GOTOOLCHAIN=$toolchain go build -o "$out" "$pkg") >&2
  fi
  echo "$out"
}

case "$mode" in
cluster)
  nodes=${NODES:-5000} pods=${PODS:-10000} repeat=${REPEAT:-3}
  workloads=${WORKLOADS:-SchedulingBasic,PodAntiAffinity,TopologySpreading}
  berth_base=$(base_berth)
  (cd "$root" && go build -o "$bin/berth" ./cmd/berth && go build -o "$bin/bench" ./test/perf/cmd/bench)
  out="$bin/bench-compare-$sha"
  echo "Comparing $(git -C "$root" rev-parse --short=12 HEAD)$(git -C "$root" diff --quiet HEAD || echo '+changes') with $sha: $workloads, $nodes nodes, $pods pods, $repeat rounds" >&2
  # shellcheck disable=SC2086 # BENCH_ARGS is a list of flags.
  "$bin/bench" --schedulers=berth,berth-base --berth-bin="$bin/berth" --berth-base-bin="$berth_base" \
    --k8s-bin-dir="${K8S_BIN:-$bin/k8s}" --nodes="$nodes" --pods="$pods" --repeat="$repeat" --workloads="$workloads" \
    --out-json="$out.json" --out-md="$out.md" ${BENCH_ARGS:-}
  ;;
go)
  pattern=${GO_BENCH:-^Benchmark(SchedulePod|ScheduleOneCycle)\$}
  count=${GO_COUNT:-6}
  benchtime=${GO_BENCHTIME:-1s}
  benchstat="$bin/benchstat"
  [ -x "$benchstat" ] || (cd "$root/hack/tools/benchstat" && go build -o "$benchstat" golang.org/x/perf/cmd/benchstat)
  # Benchmarks that use only what the base already had are copied into its
  # worktree (which exists only for this) whenever they differ from this
  # tree's, so that both trees run the same benchmark code; any other
  # benchmark the base lacks is measured here only.
  for f in ${GO_BENCH_COPY:-scheduler/schedule_cycle_bench_test.go}; do
    if ! cmp -s "$root/$f" "$dir/$f"; then
      echo "copying $f into the base's worktree" >&2
      cp "$root/$f" "$dir/$f"
      rm -f "$dir/bin/scheduler-"*.test
    fi
  done
  (cd "$root" && go test -c -o "$bin/scheduler-head.test" ./scheduler)
  base_test="$dir/bin/scheduler-$toolchain.test"
  [ -x "$base_test" ] || (cd "$dir" && GOTOOLCHAIN=$toolchain go test -c -o "$base_test" ./scheduler)
  out="$bin/bench-compare-go-$sha"
  : >"$out-base.txt"
  : >"$out-head.txt"
  # One -count at a time, the builds taking turns: a slow minute of the
  # machine then costs both, not one.
  for i in $(seq "$count"); do
    echo "round $i/$count" >&2
    (cd "$dir/scheduler" && "$base_test" -test.run='^$' -test.bench="$pattern" -test.benchmem -test.benchtime="$benchtime") >>"$out-base.txt"
    (cd "$root/scheduler" && "$bin/scheduler-head.test" -test.run='^$' -test.bench="$pattern" -test.benchmem -test.benchtime="$benchtime") >>"$out-head.txt"
  done
  # A benchmark the base does not have is listed with this build's figures
  # only: the comparison covers what both trees measure.
  missing=$(comm -13 <(grep -o '^Benchmark[^ 	]*' "$out-base.txt" | sort -u) <(grep -o '^Benchmark[^ 	]*' "$out-head.txt" | sort -u))
  [ -z "$missing" ] || printf 'Not in the base (this build only):\n%s\n\n' "$missing"
  "$benchstat" base="$out-base.txt" head="$out-head.txt"
  ;;
*)
  echo "unknown mode $mode (want cluster or go)" >&2
  exit 2
  ;;
esac
