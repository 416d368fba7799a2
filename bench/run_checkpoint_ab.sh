#!/usr/bin/env bash
# run_checkpoint_ab.sh -- paired A/B of checkpoint configurations (issue 21): each repetition
# runs every configuration of CFGS once, back to back, at the same rank count and graph, in a
# shuffled order (below), `sync` before each run. A configuration is io[:policy][@old]: io a
# tc --io writer, policy an EXACDF_POLICY (default all), @old runs the tc binary TC_OLD (e.g.
# main's build) instead of TC. At the end bench/checkpoint_ab_table.py prints, for checkpoint
# time and end-to-end TC time, per graph and rank count, TARGET's (default exacdf:all) median
# and against every other configuration the median per-repetition ratio and in how many of
# the N pairs it is at most 1 (OUT, and its .summary.json beside it).
# A configuration may end in +VAR=VAL (repeatable), set for its runs only (see below).
# Usage: TC_OLD=/work/main/build/examples/tc/tc NPS="1 2" GRAPHS="usroad:4000" \
#        CFGS="mpiio-opt exacdf:all exacdf:all@old" REPS=15 bench/run_checkpoint_ab.sh
# The issue's full table (1, 2, 4, 8 ranks, three graphs, exacdf with the policy against MPI-IO
# OPT and HDF5-OPT, 36 runs a repetition; one repetition took 105 s at load 32-38, and the quiet
# 1-2 rank runs took 0.9 s a run, so 12 repetitions should take 8-12 minutes quiet):
#   NPS="1 2 4 8" CFGS="mpiio-opt hdf5-opt exacdf:all" REPS=12 bench/run_checkpoint_ab.sh
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../scripts/env.sh
source "$HERE/../scripts/env.sh"
TC="${TC:-$EXACDF_ROOT/build/examples/tc/tc}"
TC_OLD="${TC_OLD:-$TC}"
NPS="${NPS:-1 2}"
GRAPHS="${GRAPHS:-usroad:4000 fe_ocean:1200 vsp_finan:1000}"
CFGS="${CFGS:-mpiio-opt exacdf:all}"
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
# The machine's 2 MiB page faults and fallbacks during each run (/proc/vmstat, so every
# process's; on a quiet machine the run's): exacdf stages a checkpoint's rows in huge pages, and
# where none is to be had they are 4 KiB pages, ~5,000-7,000 more faults per run (docs/perf/
# checkpoint.md, "What costs exacdf 20 ms at vsp_finan, 2 ranks"). The table counts them.
thp_counts() {
  awk '$1 == "thp_fault_alloc" { a = $2 } $1 == "thp_fault_fallback" { f = $2 } END { print a + 0, f + 0 }' /proc/vmstat
}
failed=0
for rep in $(seq 1 "$REPS"); do
  for np in $NPS; do
    for gv in $GRAPHS; do
      read -r -a cfgs <<< "$CFGS"
      for c in $(shuffled "${cfgs[@]}"); do
        bin=$TC cc=$c envs=()
        # cfg+VAR=VAL (repeatable): VAR=VAL in that run's environment only, e.g.
        # exacdf:all+EXACDF_STAGING_POOL=0 against exacdf:all+EXACDF_STAGING_POOL=1 in one run.
        while [[ $cc == *+*=* ]]; do envs+=("${cc##*+}") cc=${cc%+*}; done
        if [[ $cc == *@old ]]; then bin=$TC_OLD cc=${cc%@old}; fi
        io=${cc%%:*} policy=all
        [[ $cc == *:* ]] && policy=${cc#*:}
        rm -rf "$SCRATCH/run"
        [[ $SYNC == 1 ]] && sync
        thp0=$(thp_counts)
        out=$(env "${envs[@]}" EXACDF_POLICY=$policy timeout 300 mpiexec --oversubscribe -n "$np" "$bin" --graph "${gv%%:*}" \
              --vertices "${gv##*:}" --every 10 --full-every 1 --dir "$SCRATCH/run" --io "$io" --json)
        if [[ $? != 0 || $out != \{* ]]; then  # a failed run is left out of the table, and counted
          echo "run failed: rep $rep np $np $gv $c" >&2
          failed=$((failed + 1))
          continue
        fi
        read -r a0 f0 <<< "$thp0"
        read -r a1 f1 <<< "$(thp_counts)"
        echo "{\"rep\": $rep, \"cfg\": \"$c\", \"load\": $(cut -d' ' -f1 /proc/loadavg), \"thp_alloc\": $((a1 - a0)), \"thp_fallback\": $((f1 - f0)), ${out#\{}" >> "$OUT"
      done
    done
  done
done
rm -rf "$SCRATCH/run"
echo "$(date -u +%FT%TZ) done, $SECONDS s, $failed failed runs; load now: $(cut -d' ' -f1-3 /proc/loadavg)"
TARGET="${TARGET:-exacdf:all}"
peers=""  # the other configurations, in the order of CFGS
for c in $CFGS; do [[ $c != "$TARGET" ]] && peers+="$c "; done
TARGET=$TARGET PEERS=$peers python3 "$HERE/checkpoint_ab_table.py" "$OUT" "${OUT%.jsonl}.summary.json"
