#!/bin/bash
# SWMR soak: a writer job (WRITERS ranks) and 3 reader jobs (1, 2, 1 ranks) at
# once, N commits (default 10000). Fails on any torn value or decreasing generation.
# The program and its runner are the suite's (tests/swmr_soak/; ctest runs them as
# swmr.soak_w1 and swmr.soak_w2); this builds the program against BUILD and runs it.
# Usage: bench/run_swmr_soak.sh [N] [WRITERS]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$here/build}
n=${1:-10000}
writers=${2:-2}
work=${TMPDIR:-/tmp}/swmr_soak.$$
mkdir -p "$work"
source "$here/scripts/env.sh"
mpicc -O2 "$here/tests/swmr_soak/swmr_soak.c" -o "$work/swmr_soak" -I"$here/include" -L"$build" -lexacdf -Wl,-rpath,"$build"
status=0
bash "$here/tests/swmr_soak/run_swmr_soak.sh" "$work/swmr_soak" "$build/tools/exacdf" "$work/run" "$n" "$writers" || status=1
rm -rf "$work"
exit $status
