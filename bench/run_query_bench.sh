#!/usr/bin/env bash
# Query benchmark (issue 20): bench/query_bench.c at 1, 2, 4 ranks over three
# energy distributions; writes docs/perf/query.{json,md,png}.
#   bash bench/run_query_bench.sh            # N=10000000 REPS=3 RANKS="1 2 4"
#   N=100000000 RANKS=2 DISTS=smooth REPS=1 OUT=query_1e8 bash bench/run_query_bench.sh
# Needs build/libexacdf.so (ninja -C build exacdf).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
N=${N:-10000000}
REPS=${REPS:-3}
RANKS=${RANKS:-"1 2 4"}
DISTS=${DISTS:-"uniform lognormal smooth"}
WORK=${WORK:-${TMPDIR:-/tmp}/query_bench}
OUT=${OUT:-query}  # docs/perf/$OUT.{json,md,png}
PY=${PY:-$here/.venv/bin/python}
[ -x "$PY" ] || PY=python3
mkdir -p "$WORK" "$here/docs/perf"
source "$here/scripts/env.sh"
mpicc -O2 -std=c11 -Wall -Wextra -o "$WORK/query_bench" "$here/bench/query_bench.c" \
  -I"$here/include" -L"$here/build" -lexacdf -Wl,-rpath,"$here/build" -lm
out="$here/docs/perf/$OUT.json"
: > "$out.tmp"
for np in $RANKS; do
  for dist in $DISTS; do
    echo "== $dist, $np rank(s), N=$N" >&2
    mpiexec -n "$np" --oversubscribe "$WORK/query_bench" "$N" "$dist" "$WORK" "$REPS" | tee -a "$out.tmp"
  done
done
mv "$out.tmp" "$out"
"$PY" "$here/bench/query_report.py" "$out" "$here/docs/perf/$OUT.md" "$here/docs/perf/$OUT.png" \
  "N=$N REPS=$REPS RANKS=\"$RANKS\" DISTS=\"$DISTS\" OUT=$OUT bash bench/run_query_bench.sh"
