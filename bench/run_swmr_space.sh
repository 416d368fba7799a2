#!/bin/bash
# SWMR space over many commits (bench/swmr_space.c): a writer rewrites
# compact variables COMMITS times while READERS readers follow, once with a
# refresh bound (space of old generations reused after 2 bounds) and once
# without (nothing reused). Prints JSON lines; writes docs/perf/swmr_space.json.
# Usage: bench/run_swmr_space.sh [COMMITS] [BOUND_S] [READERS]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$here/build}
commits=${1:-10000}
bound=${2:-0.01}
readers=${3:-2}
work=${TMPDIR:-/tmp}/swmr_space.$$
mkdir -p "$work"
source "$here/scripts/env.sh"
mpicc -O2 "$here/bench/swmr_space.c" -o "$work/swmr_space" -I"$here/include" -L"$build" -lexacdf -Wl,-rpath,"$build"
: > "$work/out.jsonl"
for b in "$bound" 0; do
  mpiexec -n $((1 + readers)) --oversubscribe "$work/swmr_space" "$work/space_$b.nc" "$commits" "$b" \
    $((commits / 10 > 0 ? commits / 10 : 1)) | tee -a "$work/out.jsonl"
  "$build/tools/exacdf" verify "$work/space_$b.nc"
done
python3 - "$work/out.jsonl" "$here/docs/perf/swmr_space.json" "$commits" "$bound" "$readers" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
json.dump({"command": "bench/run_swmr_space.sh %s %s %s" % tuple(sys.argv[3:6]), "rows": rows},
          open(sys.argv[2], "w"), indent=1)
PY
rm -rf "$work"
