#!/bin/bash
# Paired, interleaved runs of a benchmark (bench/varn_get_bench.c,
# bench/record_append_bench.c: PATH first) against two builds of the
# library (A, B: binaries linked to each by rpath), per rank count; the order
# of A and B alternates per repetition. Prints the RESULT lines with the
# variant and rank count, and uptime before and after.
#   A=bin_a B=bin_b NPS="1 2 4" REPS=9 DIR=/tmp/x bash bench/run_ab_pairs.sh [args...]
set -u
A=${A:?binary A}; B=${B:?binary B}; NPS=${NPS:-"1 2 4"}; REPS=${REPS:-9}; DIR=${DIR:-${TMPDIR:-/tmp}}
uptime
for rep in $(seq "$REPS"); do
  for np in $NPS; do
    if (( rep % 2 )); then order="A B"; else order="B A"; fi
    for v in $order; do
      bin=$A; [ "$v" = B ] && bin=$B
      out=$(mpiexec --oversubscribe -n "$np" "$bin" "$DIR/ab_$v.nc" "$@" | grep '^RESULT')
      echo "rep=$rep variant=$v $out"
    done
  done
done
uptime
