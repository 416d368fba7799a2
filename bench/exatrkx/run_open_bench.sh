#!/usr/bin/env bash
# run_open_bench.sh -- issue 6's open-side benchmark: the Exa.TrkX objects in
# CDF-5 and in the partitioned format (bench/exatrkx/open_bench.c), from 10^3
# to 10^7 objects: create (independent define), open, open + one object,
# open + every object's metadata (seed 000's Table 2), best of REPS, at each
# rank count. Writes OUT_DIR (default docs/perf)/exatrkx_open.{json,md,png}.
#
# Usage: bench/exatrkx/run_open_bench.sh
#        SIZES="25 2500" RANKS="1 2" REPS=1 OUT_DIR=/tmp/x bench/exatrkx/run_open_bench.sh
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
# shellcheck source=/dev/null
source "$ROOT/scripts/env.sh"
OUT_DIR="${OUT_DIR:-$ROOT/docs/perf}"
SIZES="${SIZES:-25 2500 98M 250000}"     # samples: 10^3, 10^5, 1.42 x 10^6, 10^7 objects
RANKS="${RANKS:-1 2 4}"
BIG_RANKS="${BIG_RANKS:-1 2}"            # for the 10^7-object set
REPS="${REPS:-3}"
SCRATCH="${SCRATCH:-$ROOT/build-exatrkx-bench/scratch}"
export EXACDF_BUILD="${EXACDF_BUILD:-$ROOT/build-exatrkx-bench}"
cmake -S "$ROOT" -B "$EXACDF_BUILD" "${EXACDF_GENERATOR[@]}" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$EXACDF_BUILD" --target exacdf -j2 >/dev/null
BIN="$EXACDF_BUILD/bench-exatrkx"
"$HERE/build.sh" "$BIN" >/dev/null
mkdir -p "$OUT_DIR" "$SCRATCH"
RAW="$OUT_DIR/exatrkx_open.raw.jsonl"
: > "$RAW"
for size in $SIZES; do
  ranks=$RANKS
  [[ "$size" == 250000 ]] && ranks=$BIG_RANKS
  for np in $ranks; do
    for fmt in cdf5 partitioned; do
      line=$(mpiexec -n "$np" "$BIN/open_bench" --dataset "$size" --format "$fmt" --reps "$REPS" \
               --out "$SCRATCH/open.nc" --json | tail -1)
      echo "$line" >> "$RAW"
      echo "  $fmt $size np=$np: $line" | cut -c1-200
    done
  done
done
CMD="bench/exatrkx/run_open_bench.sh (SIZES=\"$SIZES\" RANKS=\"$RANKS\" BIG_RANKS=\"$BIG_RANKS\" REPS=$REPS)"
python_bin="$ROOT/.venv/bin/python"; [[ -x "$python_bin" ]] || python_bin=python3
"$python_bin" "$HERE/open_report.py" "$RAW" "$OUT_DIR" "$CMD" "$(git -C "$ROOT" rev-parse --short HEAD)"
