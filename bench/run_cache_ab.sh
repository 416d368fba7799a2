#!/usr/bin/env bash
# Two libraries paired on bench/run_cache_bench.sh (issue 18): per repetition, one
# run_cache_bench.sh repetition of library A, then of B (A B A B ...), each into
# OUT/pair-<name>-<rep>. A and B are "name:vpic_io binary" (each binary built against its
# library, e.g. mpicc -O2 bench/vpic_io.c -Iinclude -L$LIB -lexacdf -Wl,-rpath,$LIB -lm).
# The other variables go to run_cache_bench.sh (RANKS, TARGETS, MODES, TIER, FAST, ...).
# Then bench/cache_ab_table.py OUT prints the paired figures. As root (the slow tier).
#   A=before:/tmp/before/vpic_io B=after:/tmp/after/vpic_io OUT=/tmp/ab REPS=3 RANKS="2 4" \
#     TARGETS=slow MODES="fast cache async_cache" bench/run_cache_ab.sh
set -eu
OUT=${OUT:-/tmp/cache-ab}
REPS=${REPS:-3}
here=$(dirname "$0")
for rep in $(seq 1 "$REPS"); do
  for lib in "$A" "$B"; do
    name=${lib%%:*} vpic=${lib#*:}
    VPIC=$vpic OUT="$OUT/pair-$name-$rep" REPS=1 bash "$here/run_cache_bench.sh"
  done
done
