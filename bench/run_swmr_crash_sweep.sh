#!/bin/bash
# The full SWMR kill -9 sweep (tests/swmr_crash; the suite's swmr.crash_kill9
# runs 12 kill points of each short scenario at 1 rank, verifying every 4th
# file): every kill point of every
# scenario, including records_full (a second redef changing and deleting
# attributes and adding a fixed-size variable), at 1 and 2 writer ranks,
# `exacdf verify` on every file that opens.
# Usage: bench/run_swmr_crash_sweep.sh [RANKS...]   (default: 1 2)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$here/build}
source "$here/scripts/env.sh"
work=${TMPDIR:-/tmp}/swmr_crash_sweep.$$
status=0
for np in "${@:-1 2}"; do
  for n in $np; do
    EXACDF_TOOL="$build/tools/exacdf" JOBS=${JOBS:-2} VERIFY_EVERY=1 SAMPLE=0 \
      bash "$here/tests/swmr_crash/run_swmr_crash.sh" "$build/tests/swmr_crash" "$work/np$n" "$n" \
      records records_full compact sections reopen || status=1
  done
done
rm -rf "$work"
exit $status
