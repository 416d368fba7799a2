#!/usr/bin/env bash
# run_checkpoint_ab.sh -- paired A/B of checkpoint configurations on a loaded machine (issue 21):
# each repetition runs every configuration of CFGS once, back to back, at the same rank count
# and graph, in a shuffled order (below); ratios are per repetition against
# BASE. A configuration is io[:policy][@old]: io a tc --io writer, policy an EXACDF_POLICY
# (default all), @old runs the tc binary TC_OLD (e.g. main's build) instead of TC.
# Usage: TC_OLD=/work/main/build/examples/tc/tc NPS="1 2" GRAPHS="usroad:4000" \
#        CFGS="mpiio-opt exacdf:all exacdf:all@old" REPS=15 bench/run_checkpoint_ab.sh
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../scripts/env.sh
source "$HERE/../scripts/env.sh"
TC="${TC:-$EXACDF_ROOT/build/examples/tc/tc}"
TC_OLD="${TC_OLD:-$TC}"
NPS="${NPS:-1 2}"
GRAPHS="${GRAPHS:-usroad:4000 fe_ocean:1200 vsp_finan:1000}"
CFGS="${CFGS:-mpiio-opt exacdf:all}"
BASE="${BASE:-mpiio-opt}"
REPS="${REPS:-5}"
# SYNC=1 (default): `sync` before each run, so no run's fsync waits on the dirty pages the run
# before it left (which run came before moved a cell's ratio more than the library did).
SYNC="${SYNC:-1}"
SCRATCH="${SCRATCH:-${TMPDIR:-/tmp}/exacdf-ckab}"
OUT="${OUT:-$SCRATCH/ab.jsonl}"
mkdir -p "$SCRATCH"
: > "$OUT"
# The order of the configurations is shuffled afresh for every graph of every repetition (seeded
# by SEED): rotating one fixed cycle kept each configuration behind the same predecessor, and
# the predecessor moved a run's checkpoint time by up to 40% (vsp_finan at 2 ranks: 52 ms after
# HDF5-OPT, 38 ms after MPI-IO OPT), however the repetitions were rotated.
RANDOM="${SEED:-1}"
shuffled() {  # Fisher-Yates over the arguments, one per line
  local -a a=("$@")
  local i j t
  for ((i = ${#a[@]} - 1; i > 0; i--)); do
    j=$((RANDOM % (i + 1))) t=${a[i]}
    a[i]=${a[j]} a[j]=$t
  done
  printf '%s\n' "${a[@]}"
}
for rep in $(seq 1 "$REPS"); do
  for np in $NPS; do
    for gv in $GRAPHS; do
      read -r -a cfgs <<< "$CFGS"
      for c in $(shuffled "${cfgs[@]}"); do
        bin=$TC cc=$c
        if [[ $c == *@old ]]; then bin=$TC_OLD cc=${c%@old}; fi
        io=${cc%%:*} policy=all
        [[ $cc == *:* ]] && policy=${cc#*:}
        rm -rf "$SCRATCH/run"
        [[ $SYNC == 1 ]] && sync
        out=$(EXACDF_POLICY=$policy timeout 300 mpiexec --oversubscribe -n "$np" "$bin" --graph "${gv%%:*}" \
              --vertices "${gv##*:}" --every 10 --full-every 1 --dir "$SCRATCH/run" --io "$io" --json)
        echo "{\"rep\": $rep, \"cfg\": \"$c\", \"load\": $(cut -d' ' -f1 /proc/loadavg), ${out#\{}" >> "$OUT"
      done
    done
  done
done
rm -rf "$SCRATCH/run"
python3 - "$OUT" "$BASE" <<'PY'
import collections, json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
base = sys.argv[2]
by, times = collections.defaultdict(dict), collections.defaultdict(list)
for r in runs:
    by[(r["graph"], r["ranks"], r["rep"])][r["cfg"]] = r["checkpoint_time"]
ratios = collections.defaultdict(list)
for (g, np, rep), d in by.items():
    for c, t in d.items():
        times[(g, np, c)].append(t)
        if c != base and base in d:
            ratios[(g, np, c)].append(t / d[base])
loads = [r["load"] for r in runs]
print(f"load average {min(loads)}-{max(loads)}; ratio = cfg / {base}, median (min-max), at most 1 in")
print(f"| graph | ranks | cfg | median ckpt ms | ratio to {base} | at most 1 in |")
print("|---|---|---|---|---|---|")
for k in sorted(times):
    g, np, c = k
    xs = ratios.get(k)
    r = f"{statistics.median(xs):.2f} ({min(xs):.2f}-{max(xs):.2f}) | {sum(x <= 1 for x in xs)}/{len(xs)}" if xs else "- | -"
    print(f"| {g} | {np} | {c} | {1000 * statistics.median(times[k]):.1f} | {r} |")
digests = collections.defaultdict(set)
for r in runs:
    digests[r["graph"]].add(r["digest"])
print("closure digests agree:", all(len(v) == 1 for v in digests.values()))
PY
