#!/bin/bash
# Seed 001's SWMR experiment, scaled (bench/swmr_bench.c): one writer appends
# 1-D records of 1 KiB .. MAXSIZE (x16 steps), APPENDS times each, while 3
# readers follow: SWMR (lock-free, a sync per append or timer commits every
# INTERVAL s), a flock baseline, and the writer alone. Readers sleep POLL s
# after a poll that found nothing new (0: spin). Each row gives the lag bound
# (commit interval + POLL + the commit's sync time) and the lag against it,
# the poll gap each reader really had and the bound with it, and how late
# timer commits began (docs/perf/swmr.md, round 6).
# Usage: bench/run_swmr_bench.sh [APPENDS] [MAXSIZE] [INTERVAL] [POLL]
#   (writes $OUT, default docs/perf/swmr.json)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$here/build}
appends=${1:-100}
maxsize=${2:-4194304}
interval=${3:-0.005}
poll=${4:-0.001}
out=${OUT:-$here/docs/perf/swmr.json}
work=${TMPDIR:-/tmp}/swmr_bench.$$
mkdir -p "$work"
source "$here/scripts/env.sh"
mpicc -O2 "$here/bench/swmr_bench.c" -o "$work/swmr_bench" -I"$here/include" -L"$build" -lexacdf \
  -Wl,-rpath,"$build"
load=$(cut -d' ' -f1-3 /proc/loadavg)
mpiexec -n 4 --oversubscribe "$work/swmr_bench" "$work" "$appends" "$maxsize" "$interval" "$poll" |
  tee "$work/out.jsonl"
python3 - "$work/out.jsonl" "$out" "$appends $maxsize $interval $poll" "$load" "$(cut -d' ' -f1-3 /proc/loadavg)" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
json.dump({"command": "bench/run_swmr_bench.sh " + sys.argv[3], "load_before": sys.argv[4],
           "load_after": sys.argv[5], "rows": rows}, open(sys.argv[2], "w"), indent=1)
PY
rm -rf "$work"
