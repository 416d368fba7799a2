#!/usr/bin/env bash
# run_checkpoint_paired.sh -- paired comparison of exacdf-with-policy against MPI-IO OPT and
# HDF5-OPT on a loaded machine (issue 21): for each repetition, rank count and graph the three
# writers run back to back (same load; the order rotated each repetition), and the ratio
# exacdf / peer of their checkpoint times is taken per repetition; the report is the median
# ratio (< 1: exacdf faster) with its range, the load average at the start, and the TC
# digests (all must agree).
# Usage: RANKS="1 2 4" REPS=3 GRAPHS="fe_ocean:1200 fe_ocean:2000" bench/run_checkpoint_paired.sh
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../scripts/env.sh
source "$HERE/../scripts/env.sh"
TC="${TC:-$EXACDF_ROOT/build/examples/tc/tc}"
RANKS="${RANKS:-1 2 4}"
REPS="${REPS:-3}"
GRAPHS="${GRAPHS:-fe_ocean:1200 fe_ocean:2000}"
PEERS="${PEERS:-mpiio-opt hdf5-opt}"
SCRATCH="${SCRATCH:-${TMPDIR:-/tmp}/exacdf-ckpaired}"
OUT="${OUT:-$SCRATCH/paired.jsonl}"
mkdir -p "$SCRATCH"
: > "$OUT"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
run() {  # np graph:vertices io -> one JSON line
  local np=$1 gv=$2 io=$3
  rm -rf "$SCRATCH/run"
  EXACDF_POLICY=all timeout 900 mpiexec --oversubscribe -n "$np" "$TC" --graph "${gv%%:*}" --vertices "${gv##*:}" \
    --every 10 --full-every 1 --dir "$SCRATCH/run" --io "$io" --json
}
for rep in $(seq 1 "$REPS"); do
  for np in $RANKS; do
    for gv in $GRAPHS; do
      # The order rotates by one each repetition: in a fixed order exacdf always ran first,
      # right after the previous cell's writers, whose dirty pages its fsync then waited on.
      read -r -a ios <<< "exacdf $PEERS"
      for k in $(seq 0 $((${#ios[@]} - 1))); do
        io=${ios[$(((k + rep) % ${#ios[@]}))]}
        echo "{\"rep\": $rep, \"load\": \"$(cut -d' ' -f1 /proc/loadavg)\", $(run "$np" "$gv" "$io" | sed 's/^{//')" >> "$OUT"
      done
    done
  done
done
rm -rf "$SCRATCH/run"
python3 - "$OUT" <<'PY'
import collections, json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
by = collections.defaultdict(dict)
for r in runs:
    by[(r["graph"], r["vertices"], r["ranks"], r["rep"])][r["io"]] = r
digests = {(r["graph"], r["vertices"]): set() for r in runs}
for r in runs: digests[(r["graph"], r["vertices"])].add(r["digest"])
print("| graph | MB | ranks | peer | median exacdf/peer ckpt time (min-max) | exacdf faster in |")
print("|---|---|---|---|---|---|")
cells = collections.defaultdict(list)
for (g, v, np, rep), ios in sorted(by.items()):
    for peer, r in ios.items():
        if peer != "exacdf" and "exacdf" in ios:
            cells[(g, v, np, peer)].append((ios["exacdf"]["checkpoint_time"] / r["checkpoint_time"],
                                           r["checkpoint_bytes"]))
for (g, v, np, peer), xs in sorted(cells.items()):
    ratios = [x for x, _ in xs]
    print(f"| {g}:{v} | {xs[0][1] / 1e6:.1f} | {np} | {peer} | {statistics.median(ratios):.2f} "
          f"({min(ratios):.2f}-{max(ratios):.2f}) | {sum(x < 1 for x in ratios)}/{len(ratios)} |")
print("closure digests agree:", all(len(d) == 1 for d in digests.values()))
PY
