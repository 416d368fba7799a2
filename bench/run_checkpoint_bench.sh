#!/usr/bin/env bash
# run_checkpoint_bench.sh -- seed 002's checkpoint benchmark (issue 21): the
# transitive-closure application examples/tc on the three generated graphs
# (usroad-, fe_ocean-, vsp_finan512-like, scaled to this machine), at RANKS,
# checkpointing every EVERY iterations (full + delta of T, as the paper), with
# each checkpoint writer:
#   posix       reference engine baseline: pwrite of packed rows at Exscan offsets (+fsync)
#   mpiio       reference engine baseline: MPI_File_write_at_all (+MPI_File_sync)
#   mpiio-opt   the same with the policy's O5 hints
#   hdf5        Baseline_HDF5 (every rank creates, contiguous, independent hyperslab writes)
#   hdf5-opt    HDF5-OPT (seed Table 1 with its H5P settings, chunk heights, deflate 1)
#   exacdf      exacdf checkpoints with EXACDF_POLICY=none (library defaults)
#   exacdf-policy  exacdf checkpoints with EXACDF_POLICY=all
# and the ladder (EXACDF_POLICY none, O1, O1,O2, ... all) on the usroad-like graph.
# Every writer syncs what it writes (same durability). Median of REPS runs.
# Writes OUT_DIR/checkpoint.{json,md} and checkpoint.png (matplotlib).
#
# Usage: bench/run_checkpoint_bench.sh       (RANKS="1 2 4 8" REPS=3)
#        TC=build/examples/tc/tc RANKS="1 2" REPS=1 OUT_DIR=/tmp/x bench/run_checkpoint_bench.sh
#        APPEND=1 REPS=2 bench/run_checkpoint_bench.sh    (more repetitions into the same medians)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../scripts/env.sh
source "$HERE/../scripts/env.sh"
ROOT="$EXACDF_ROOT"
TC="${TC:-$ROOT/build/examples/tc/tc}"
OUT_DIR="${OUT_DIR:-$ROOT/docs/perf}"
RANKS="${RANKS:-1 2 4 8}"
REPS="${REPS:-3}"
EVERY="${EVERY:-10}"
GRAPHS="${GRAPHS:-usroad:4000 fe_ocean:1200 vsp_finan:1000}"
IOS="${IOS:-posix mpiio mpiio-opt hdf5 hdf5-opt exacdf exacdf-policy}"
LADDER="${LADDER:-none O1 O1,O2 O1,O2,O3 O1,O2,O3,O4 O1,O2,O3,O4,O5 O1,O2,O3,O4,O5,O6 all}"
SCRATCH="${SCRATCH:-${TMPDIR:-/tmp}/exacdf-ckbench}"
[[ -x "$TC" ]] || { echo "no tc binary at $TC (build examples/tc first)" >&2; exit 1; }
mkdir -p "$OUT_DIR" "$SCRATCH"
RAW="$OUT_DIR/checkpoint.raw.jsonl"
[[ "${APPEND:-0}" == 1 ]] || : > "$RAW"   # APPEND=1 adds repetitions to an earlier run's

one() {  # one run: label np graph:vertices io policy
  local label=$1 np=$2 gv=$3 io=$4 policy=$5
  local g=${gv%%:*} v=${gv##*:}
  rm -rf "$SCRATCH/run"
  local out
  out=$(EXACDF_POLICY="$policy" timeout 900 mpiexec --oversubscribe -n "$np" "$TC" --graph "$g" --vertices "$v" \
        --every "$EVERY" --full-every 1 --dir "$SCRATCH/run" --io "$io" --json)
  echo "{\"label\": \"$label\", \"policy\": \"$policy\", ${out#\{}" >> "$RAW"
}

for rep in $(seq 1 "$REPS"); do
  for np in $RANKS; do
    for gv in $GRAPHS; do
      for io in $IOS; do
        case $io in
          exacdf) one exacdf "$np" "$gv" exacdf none ;;
          exacdf-policy) one exacdf-policy "$np" "$gv" exacdf all ;;
          *) one "$io" "$np" "$gv" "$io" none ;;
        esac
      done
    done
    first=${GRAPHS%% *}
    for p in $LADDER; do one "ladder:$p" "$np" "$first" exacdf "$p"; done
  done
done
rm -rf "$SCRATCH/run"
PY="${PYTHON:-$ROOT/.venv/bin/python}"
[[ -x "$PY" ]] || PY=/work/main/.venv/bin/python
"$PY" "$HERE/checkpoint_report.py" "$RAW" "$OUT_DIR"
