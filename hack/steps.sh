#!/usr/bin/env bash
# Times the steps of `make test`, `make test-e2e` and CI, and prints them as a table.
#
# Usage:
#   hack/steps.sh run NAME COMMAND...   run COMMAND, its output prefixed with [NAME],
#                                       and record how long it took and how it ended
#   hack/steps.sh table [BUDGET_S]      print the recorded steps; with BUDGET_S, warn
#                                       loudly when the recorded wall time is over it;
#                                       then, for each failed step, the lines of its
#                                       output that name failures and its last lines
#   hack/steps.sh reset                 forget the recorded steps
#
# The steps are recorded in $BERTH_STEPS_FILE (default bin/steps.tsv) as
# name, start (seconds since the epoch), seconds and result, one a line.
# Steps may run side by side (make test runs two lanes at once): the wall
# time is from the first step's start to the last one's end. Each step's
# output is kept in steps-logs/NAME.log beside that file, so that a failure
# in one lane is shown again at the end, after the other lane's output.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
file="${BERTH_STEPS_FILE:-$root/bin/steps.tsv}"
logs="$(dirname "$file")/steps-logs"

case "${1:-}" in
  run)
    [ $# -ge 3 ] || { echo "usage: hack/steps.sh run NAME COMMAND..." >&2; exit 2; }
    name=$2
    shift 2
    mkdir -p "$(dirname "$file")" "$logs"
    start=$(date +%s)
    echo "step $name: started"
    rc=0
    # The prefix tells the lanes' lines apart; sed -u keeps them flowing.
    "$@" 2>&1 | sed -u "s/^/[$name] /" | tee "$logs/$name.log" || rc=$?
    secs=$(( $(date +%s) - start ))
    result=ok
    [ "$rc" -eq 0 ] || result="failed ($rc)"
    printf '%s\t%s\t%s\t%s\n' "$name" "$start" "$secs" "$result" >> "$file"
    echo "step $name: $result in ${secs}s"
    exit "$rc"
    ;;
  table)
    budget=${2:-}
    [ -s "$file" ] || { echo "steps: none recorded in $file"; exit 0; }
    awk -F'\t' -v budget="$budget" '
      { name[NR] = $1; start[NR] = $2; secs[NR] = $3; result[NR] = $4
        if (first == "" || $2 < first) first = $2
        if ($2 + $3 > last) last = $2 + $3 }
      END {
        printf "\n%-28s %9s %8s  %s\n", "step", "starts at", "seconds", "result"
        for (i = 1; i <= NR; i++)
          printf "%-28s %8ds %8d  %s\n", name[i], start[i] - first, secs[i], result[i]
        wall = last - first
        printf "%-28s %9s %8d  (%d min %02d s)\n", "wall time", "", wall, wall / 60, wall % 60
        if (budget != "" && wall > budget) {
          printf "\nWARNING: the steps took %d s, over the budget of %d s (%d min): CI allows 90 min; find the step that grew.\n", wall, budget, budget / 60
        }
      }' <(sort -t "$(printf '\t')" -k2,2n -s "$file")
    awk -F'\t' '$4 != "ok" { print $1 }' "$file" | while read -r failed; do
      log="$logs/$failed.log"
      [ -s "$log" ] || continue
      echo
      echo "step $failed failed; the lines of its output that name failures:"
      grep -E '\[FAIL\]|--- FAIL|^\[[^]]*\] FAIL|panic:|Error [0-9]+$|\[(PANICKED|TIMEDOUT)\]' "$log" | tail -40 || true
      echo "and its last 60 lines:"
      tail -60 "$log"
    done
    ;;
  reset)
    rm -f "$file"
    rm -rf "$logs"
    ;;
  *)
    echo "usage: hack/steps.sh run NAME COMMAND... | table [BUDGET_S] | reset" >&2
    exit 2
    ;;
esac
