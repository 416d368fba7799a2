#!/usr/bin/env bash
# run_flash_io_f.sh -- the Fortran FLASH-IO-like writer (bench/flash_io_f.f90, use pnetcdf)
# built against exacdf (libexacdf_fortran) and against Debian's PnetCDF from the same source,
# run alternately REPS times at each rank count; prints the median bandwidth of each and the
# ratio exacdf/PnetCDF. The two executables come from a build with -DEXACDF_BENCH=ON:
#   cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DEXACDF_BENCH=ON
#   ninja -C build-bench flash_io_f_exacdf flash_io_f_pnetcdf
#   BUILD=build-bench RANKS="1 2 4" REPS=3 NXB=8 BLOCKS=80 bench/run_flash_io_f.sh
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../scripts/env.sh
source "$HERE/../scripts/env.sh"
BUILD="${BUILD:-$HERE/../build-bench}"
RANKS="${RANKS:-1 2 4}" REPS="${REPS:-3}" NXB="${NXB:-8}" BLOCKS="${BLOCKS:-80}"
OUT="${OUT:-$(mktemp -d)}"
mkdir -p "$OUT"
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf '| ranks | exacdf MiB/s | PnetCDF MiB/s | exacdf/PnetCDF (medians) | median of paired ratios |\n|---|---|---|---|---|\n'
for np in $RANKS; do
  : >"$OUT/exacdf.$np"; : >"$OUT/pnetcdf.$np"
  for _ in $(seq "$REPS"); do
    for lib in exacdf pnetcdf; do
      mkdir -p "$OUT/files_$lib"
      mpiexec --oversubscribe -n "$np" "$BUILD/bench/flash_io_f_$lib" "$OUT/files_$lib" "$NXB" "$BLOCKS" |
        sed -E 's/.*bandwidth= *([0-9.]+).*/\1/' >>"$OUT/$lib.$np"
    done
  done
  e=$(median <"$OUT/exacdf.$np") p=$(median <"$OUT/pnetcdf.$np")
  r=$(paste "$OUT/exacdf.$np" "$OUT/pnetcdf.$np" | awk '{printf "%.4f\n", $1 / $2}' | median)
  printf '| %s | %s | %s | %.2f | %.2f |\n' "$np" "$e" "$p" "$(echo "$e / $p" | bc -l)" "$r"
done
