#!/usr/bin/env bash
# Paired, interleaved runs of indep_exacdf against two exacdf libraries (base
# then new, PAIRS times), each run under `perf stat -e task-clock` (CPU summed
# over every rank and mpiexec), after a `sync`, with the load average before
# and after. Optionally PnetCDF's application-level baseline in the same
# rounds (PNETCDF=1, after the two exacdf runs of each pair).
#
#   BIN=<dir from bench/exatrkx/build.sh> BASE_LIB=<dir> NEW_LIB=<dir> \
#   DATASET=1G RANKS=8 PAIRS=5 [PNETCDF=1] OUT=<raw.jsonl> bench/exatrkx/run_create_pairs.sh
#
# One JSON line a run: {"kind","pair","load_before","load_after","task_clock_ms", "run":<the program's --json>}.
# bench/exatrkx/create_pairs_table.py summarizes the lines.
set -euo pipefail
: "${BIN:?}" "${BASE_LIB:?}" "${NEW_LIB:?}"
DATASET="${DATASET:-1G}"
RANKS="${RANKS:-8}"
PAIRS="${PAIRS:-5}"
PNETCDF="${PNETCDF:-0}"
FORMAT="${FORMAT:-partitioned}"
OUT="${OUT:-create_pairs.raw.jsonl}"
T="${TMPDIR:-/tmp}"

load1() { cut -d' ' -f1 /proc/loadavg; }

one() {  # kind lib-dir program [args...]
  local kind=$1 lib=$2
  shift 2
  sync
  local lb la stat run
  lb=$(load1)
  stat="$T/pairs_stat.$$"
  run=$(LD_LIBRARY_PATH="$lib" perf stat -x, -o "$stat" -e task-clock -- mpiexec -n "$RANKS" "$@" --json)
  la=$(load1)
  local ms
  ms=$(awk -F, '/task-clock/ {print $1; exit}' "$stat")
  rm -f "$stat"
  printf '{"kind":"%s","pair":%d,"load_before":%s,"load_after":%s,"task_clock_ms":%s,"run":%s}\n' \
    "$kind" "$pair" "$lb" "$la" "$ms" "$(echo "$run" | grep '^{' | tail -1)" | tee -a "$OUT"
}

for ((pair = 1; pair <= PAIRS; pair++)); do
  one base "$BASE_LIB" "$BIN/indep_exacdf" --dataset "$DATASET" --format "$FORMAT" --out "$T/pairs_base.nc"
  one new "$NEW_LIB" "$BIN/indep_exacdf" --dataset "$DATASET" --format "$FORMAT" --out "$T/pairs_new.nc"
  if [[ "$PNETCDF" == 1 ]]; then
    one pnetcdf "" "$BIN/baseline_pnetcdf_pnetcdf" --dataset "$DATASET" --out "$T/pairs_pnetcdf.nc"
  fi
done
