#!/usr/bin/env bash
# run_create_bench.sh -- issue 5's benchmark: creating the Exa.TrkX data sets
# (seed 000) three ways, at 1, 2, 4, 8 ranks (4 and 8 oversubscribed on this
# 2-core machine), in one run:
#   (a) the application-level baseline (allgather metadata, every rank
#       defines everything collectively), baseline_pnetcdf.c built against
#       Debian's PnetCDF and against exacdf;
#   (b) exacdf's independent define mode, indep_exacdf.c, CDF-5;
#   (c) the same program writing the partitioned format (issue 6, one
#       metadata block per sample: --format partitioned).
# Each run reports phase times (max over ranks) and peak RSS per rank.
# exacdf runs are repeated REPS times (median reported); PnetCDF runs once per
# rank count (one run takes minutes).
#
# Usage: bench/exatrkx/run_create_bench.sh
#        RANKS="1 2" REPS=1 DATASET=98M bench/exatrkx/run_create_bench.sh   (RANKS="": no dataset_98M runs)
#        BIG_RANKS="1 2" ...   ranks for dataset_1G with (b), (c) and (a)-exacdf ("" skips)
#        BIG_PART_RANKS="8" ...  ranks for dataset_1G with (c) only (where (a) and (b),
#                                which hold the whole header on every rank, do not fit in memory)
#        BIG_REPS=3 ...          repetitions of the dataset_1G runs (default 1)
# Every run starts after a `sync` (not timed): the previous run's file is
# written back first.
# Writes OUT_DIR (default docs/perf)/exatrkx_create.{json,md,png} and the raw
# JSON lines in exatrkx_create.raw.jsonl.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
# shellcheck source=/dev/null
source "$ROOT/scripts/env.sh"
OUT_DIR="${OUT_DIR:-$ROOT/docs/perf}"
RANKS="${RANKS-1 2 4 8}"
BIG_RANKS="${BIG_RANKS-1 2}"
BIG_PART_RANKS="${BIG_PART_RANKS-}"
BIG_REPS="${BIG_REPS:-1}"
REPS="${REPS:-3}"
DATASET="${DATASET:-98M}"
RUN_TIMEOUT="${RUN_TIMEOUT:-2400}"
SCRATCH="${SCRATCH:-$ROOT/build-exatrkx-bench/scratch}"
export EXACDF_BUILD="${EXACDF_BUILD:-$ROOT/build-exatrkx-bench}"

# exacdf in Release from the working tree, then the three programs.
cmake -S "$ROOT" -B "$EXACDF_BUILD" "${EXACDF_GENERATOR[@]}" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$EXACDF_BUILD" --target exacdf -j2 >/dev/null
BIN="$EXACDF_BUILD/bench-exatrkx"
"$HERE/build.sh" "$BIN" >/dev/null
mkdir -p "$OUT_DIR" "$SCRATCH"
RAW="$OUT_DIR/exatrkx_create.raw.jsonl"
: > "$RAW"

run() { # dataset ranks program [program options]
  local ds=$1 np=$2 prog=$3 line
  shift 3
  # The previous run's file is still being written back (1 GB for
  # dataset_1G): let it land first, so that it does not slow this run.
  sync
  if line=$(timeout "$RUN_TIMEOUT" mpiexec -n "$np" "$BIN/$prog" --dataset "$ds" --json "$@" \
              --out "$SCRATCH/$prog.nc" | tail -1); then
    echo "$line" >> "$RAW"
    echo "  $prog np=$np $ds: $(python3 -c 'import json,sys; d=json.loads(sys.argv[1]); print("total %.3f s" % d["t_total"])' "$line")"
  else
    echo "{\"bench\":\"failed\",\"program\":\"$prog\",\"dataset\":\"$ds\",\"ranks\":$np,\"timeout_s\":$RUN_TIMEOUT}" >> "$RAW"
    echo "  $prog np=$np $ds: failed or timed out after $RUN_TIMEOUT s"
  fi
  rm -f "$SCRATCH/$prog.nc"
}

echo "dataset_$DATASET, ranks: $RANKS, exacdf repetitions: $REPS"
for np in $RANKS; do
  for ((rep = 0; rep < REPS; rep++)); do
    run "$DATASET" "$np" indep_exacdf
    run "$DATASET" "$np" indep_exacdf --format partitioned
    run "$DATASET" "$np" baseline_pnetcdf_exacdf
  done
  if [[ -x "$BIN/baseline_pnetcdf_pnetcdf" ]]; then run "$DATASET" "$np" baseline_pnetcdf_pnetcdf; fi
done
for np in $BIG_RANKS; do
  echo "dataset_1G at $np ranks"
  for ((rep = 0; rep < BIG_REPS; rep++)); do
    run 1G "$np" indep_exacdf
    run 1G "$np" indep_exacdf --format partitioned
    run 1G "$np" baseline_pnetcdf_exacdf
  done
done
for np in $BIG_PART_RANKS; do
  echo "dataset_1G at $np ranks, partitioned only"
  for ((rep = 0; rep < BIG_REPS; rep++)); do
    run 1G "$np" indep_exacdf --format partitioned
  done
done
CMD="bench/exatrkx/run_create_bench.sh (RANKS=\"$RANKS\" BIG_RANKS=\"$BIG_RANKS\" BIG_PART_RANKS=\"$BIG_PART_RANKS\" REPS=$REPS BIG_REPS=$BIG_REPS DATASET=$DATASET)"
python_bin="$ROOT/.venv/bin/python"; [[ -x "$python_bin" ]] || python_bin=python3
"$python_bin" "$HERE/create_report.py" "$RAW" "$OUT_DIR" "$CMD" "$(git -C "$ROOT" rev-parse --short HEAD)"
