#!/bin/bash
# The cost of a redef of an SWMR writer's file holding NREC records
# (bench/swmr_redef_cost.c): record sections (split) against laying the
# records out again (copy), REPS alternating pairs per rank count. Prints
# JSON lines and writes docs/perf/swmr_redef.json.
# Usage: bench/run_swmr_redef_cost.sh [NREC] [WIDTH] [REPS] [RANKS...]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$here/build}
nrec=${1:-10000}
width=${2:-256}
reps=${3:-5}
shift $(( $# < 3 ? $# : 3 ))
ranks=("$@")
[ ${#ranks[@]} -gt 0 ] || ranks=(1 2)
work=${TMPDIR:-/tmp}/swmr_redef.$$
mkdir -p "$work"
source "$here/scripts/env.sh"
mpicc -O2 "$here/bench/swmr_redef_cost.c" -o "$work/swmr_redef_cost" -I"$here/include" -L"$build" -lexacdf \
  -Wl,-rpath,"$build"
: > "$work/out.jsonl"
for np in "${ranks[@]}"; do
  for rep in $(seq 1 "$reps"); do
    for mode in split copy; do
      mpiexec -n "$np" --oversubscribe "$work/swmr_redef_cost" "$work/$mode.nc" "$nrec" "$width" "$mode" |
        tee -a "$work/out.jsonl"
      "$build/tools/exacdf" verify "$work/$mode.nc" > /dev/null
    done
  done
done
python3 - "$work/out.jsonl" "$here/docs/perf/swmr_redef.json" "$nrec" "$width" "$reps" "${ranks[*]}" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
json.dump({"command": "bench/run_swmr_redef_cost.sh %s %s %s %s" % tuple(sys.argv[3:7]), "rows": rows},
          open(sys.argv[2], "w"), indent=1)
for np in sorted({r["ranks"] for r in rows}):
    for key in ("var_redef", "att_redef"):
        s = [r for r in rows if r["ranks"] == np and r["mode"] == "split"]
        c = [r for r in rows if r["ranks"] == np and r["mode"] == "copy"]
        med = lambda rs, f: statistics.median(r[f] for r in rs)
        ratio = statistics.median(a[key + "_cpu_s"] / b[key + "_cpu_s"] for a, b in zip(s, c) if b[key + "_cpu_s"] > 0)
        print("np %d %s: bytes split %d copy %d; wall median split %.4f copy %.4f s; cpu median split %.4f copy %.4f s;"
              " paired cpu split/copy %.3f" % (np, key, med(s, key + "_bytes"), med(c, key + "_bytes"),
              med(s, key + "_wall_s"), med(c, key + "_wall_s"), med(s, key + "_cpu_s"), med(c, key + "_cpu_s"), ratio))
PY
rm -rf "$work"
