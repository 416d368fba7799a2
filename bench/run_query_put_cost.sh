#!/bin/bash
# Paired CPU time of typed puts with and without min/max taken at put time
# (issue 20, docs/perf/query_minmax.md): bench/query_put_cost.c run in
# rotation against the libraries and modes in CFGS, PAIRS times per size and
# kind. One line per run: values-per-put kind pair config cpu_s wall_s task_clock_s load
# (ROUNDS=r: r rounds over the 256 MiB per run, a longer timed loop).
#   usage: LIBS="new=/path/build old=/path/oldbuild" CFGS="new:put new:queried" \
#          bash bench/run_query_put_cost.sh OUT PAIRS "1024 262144 16777216" "float int d2d double"
# (putcost: mpicc bench/query_put_cost.c -O2 -o putcost -Iinclude -Lbuild -lexacdf)
set -eu
OUT=$1 PAIRS=$2 SIZES=$3 KINDS=$4
PUTCOST=${PUTCOST:-./putcost} ROUNDS=${ROUNDS:-1} FILE=${FILE:-${TMPDIR:-/tmp}/putcost.nc}
declare -A lib
for kv in $LIBS; do lib[${kv%%=*}]=${kv#*=}; done
for n in $SIZES; do for kind in $KINDS; do for i in $(seq 1 "$PAIRS"); do
  for cfg in $CFGS; do
    r=$(EXACDF_QUERY_MINMAX=${cfg#*:} LD_LIBRARY_PATH=${lib[${cfg%%:*}]} "$PUTCOST" "$FILE" "$n" "$kind" "$ROUNDS")
    echo "$n $kind $i $cfg $r $(cut -d' ' -f1 /proc/loadavg)" >> "$OUT"
  done
done; done; done
