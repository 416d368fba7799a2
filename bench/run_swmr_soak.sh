#!/bin/bash
# SWMR soak: a writer job (WRITERS ranks) and 3 reader jobs (1, 2, 1 ranks) at
# once, N commits (default 10000). Fails on any torn value or decreasing generation.
# Usage: bench/run_swmr_soak.sh [N] [WRITERS]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$here/build}
n=${1:-10000}
writers=${2:-2}
work=${TMPDIR:-/tmp}/swmr_soak.$$
mkdir -p "$work"
source "$here/scripts/env.sh"
mpicc -O2 "$here/bench/swmr_soak.c" -o "$work/swmr_soak" -I"$here/include" -L"$build" -lexacdf -Wl,-rpath,"$build"
file="$work/soak.nc"
mpiexec -n "$writers" --oversubscribe "$work/swmr_soak" write "$file" "$n" &
w=$!
pids=()
for r in 1 2 1; do
  mpiexec -n "$r" --oversubscribe "$work/swmr_soak" read "$file" "$n" &
  pids+=($!)
done
status=0
wait $w || status=1
for p in "${pids[@]}"; do wait "$p" || status=1; done
"$build/tools/exacdf" verify "$file" || status=1
rm -rf "$work"
exit $status
