#!/bin/bash
# Seed 001's SWMR experiment, scaled (bench/swmr_bench.c): one writer appends
# 1-D records of 1 KiB .. MAXSIZE (x16 steps), APPENDS times each, while 3
# readers follow: SWMR (lock-free), a flock baseline, and the writer alone.
# Usage: bench/run_swmr_bench.sh [APPENDS] [MAXSIZE]   (writes docs/perf/swmr.json)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$here/build}
appends=${1:-100}
maxsize=${2:-4194304}
work=${TMPDIR:-/tmp}/swmr_bench.$$
mkdir -p "$work"
source "$here/scripts/env.sh"
mpicc -O2 "$here/bench/swmr_bench.c" -o "$work/swmr_bench" -I"$here/include" -L"$build" -lexacdf \
  -Wl,-rpath,"$build"
mpiexec -n 4 --oversubscribe "$work/swmr_bench" "$work" "$appends" "$maxsize" | tee "$work/out.jsonl"
python3 - "$work/out.jsonl" "$here/docs/perf/swmr.json" "$appends" "$maxsize" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
json.dump({"command": "bench/run_swmr_bench.sh %s %s" % (sys.argv[3], sys.argv[4]), "rows": rows},
          open(sys.argv[2], "w"), indent=1)
PY
rm -rf "$work"
