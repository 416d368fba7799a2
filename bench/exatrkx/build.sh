#!/usr/bin/env bash
# Builds the Exa.TrkX workload generator and the application-level baseline.
#
#   bench/exatrkx/build.sh [OUTDIR]
#
# OUTDIR (default build-exatrkx/bench-exatrkx under the tree) receives:
#   exatrkx_gen                 the generator CLI (plain C, no MPI)
#   baseline_pnetcdf_pnetcdf    baseline against the system PnetCDF (-lpnetcdf)
#   baseline_pnetcdf_exacdf     baseline against the in-tree exacdf (EXACDF_BUILD,
#                               default build-exatrkx; built first if missing)
#   indep_exacdf                exacdf's independent define mode (EXA_INDEP_DEFINE)
#   open_bench                  open / one object / every object, CDF-5 vs partitioned
# Standalone on purpose: it does not touch the top-level CMakeLists.txt.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
# shellcheck source=/dev/null
source "$ROOT/scripts/env.sh"
EXACDF_BUILD="${EXACDF_BUILD:-$ROOT/build-exatrkx}"
OUT="${1:-$EXACDF_BUILD/bench-exatrkx}"
mkdir -p "$OUT"
CFLAGS=(-O2 -g -std=c11 -Wall -Wextra -Wno-unused-parameter -D_DEFAULT_SOURCE)
SRC=("$HERE/workload.c")

cc "${CFLAGS[@]}" -I"$HERE" -o "$OUT/exatrkx_gen" "$HERE/exatrkx_gen.c" "${SRC[@]}" -lm

# System PnetCDF: only /usr/include (its pnetcdf.h), never this tree's include/.
if [[ -f /usr/include/pnetcdf.h ]] && ! grep -q exacdf /usr/include/pnetcdf.h; then
  mpicc "${CFLAGS[@]}" -DBENCH_EXPECT_EXACDF=0 -I"$HERE" -o "$OUT/baseline_pnetcdf_pnetcdf" \
    "$HERE/baseline_pnetcdf.c" "${SRC[@]}" -lpnetcdf -lm
else
  echo "build.sh: system PnetCDF not found, baseline_pnetcdf_pnetcdf not built" >&2
fi

# exacdf: the in-tree library.
if [[ ! -f "$EXACDF_BUILD/libexacdf.so" ]]; then
  cmake -S "$ROOT" -B "$EXACDF_BUILD" "${EXACDF_GENERATOR[@]}" >/dev/null
  cmake --build "$EXACDF_BUILD" --target exacdf -j2
fi
mpicc "${CFLAGS[@]}" -DBENCH_EXPECT_EXACDF=1 -I"$ROOT/include" -I"$HERE" \
  -o "$OUT/baseline_pnetcdf_exacdf" "$HERE/baseline_pnetcdf.c" "${SRC[@]}" \
  -L"$EXACDF_BUILD" -Wl,-rpath,"$EXACDF_BUILD" -lexacdf -lm

mpicc "${CFLAGS[@]}" -I"$ROOT/include" -I"$HERE" \
  -o "$OUT/indep_exacdf" "$HERE/indep_exacdf.c" "${SRC[@]}" \
  -L"$EXACDF_BUILD" -Wl,-rpath,"$EXACDF_BUILD" -lexacdf -lm

mpicc "${CFLAGS[@]}" -I"$ROOT/include" -I"$HERE" \
  -o "$OUT/open_bench" "$HERE/open_bench.c" "${SRC[@]}" \
  -L"$EXACDF_BUILD" -Wl,-rpath,"$EXACDF_BUILD" -lexacdf -lm

echo "built in $OUT: exatrkx_gen baseline_pnetcdf_pnetcdf baseline_pnetcdf_exacdf indep_exacdf open_bench"
