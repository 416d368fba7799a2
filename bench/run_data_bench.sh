#!/usr/bin/env bash
# run_data_bench.sh -- builds and runs the data-path benchmarks side by side
# (exacdf, PnetCDF, parallel HDF5, raw MPI-IO, and plain pwrite per rank as the
# physical ceiling) and writes docs/perf/data_bench.{json,md,png}.
#
#   bench/run_data_bench.sh                   full run: every partition3d pattern and
#                                             FLASH-IO at 1, 2, 4, 8 ranks, 64 MiB, 3 reps,
#                                             plus Z,ZYX and FLASH-IO at 1 GiB, 2 reps
#                                             (661 s on the quiet machine, 2026-11-24)
#   EXACDF_BENCH_LARGE_PATTERNS=none bench/run_data_bench.sh   the same without 1 GiB
#   EXACDF_BENCH_QUICK=1 bench/run_data_bench.sh   smoke run (~1-2 min)
#
# Environment:
#   EXACDF_BENCH_QUICK=1     small sizes, 1 repetition (results go to
#                            build-bench/quick/ unless EXACDF_BENCH_OUT is set)
#   EXACDF_BENCH_DIR=dir     where the benchmark files are written
#                            (default /tmp/exacdf_bench.$$, removed at the end)
#   EXACDF_BENCH_OUT=dir     where data_bench.{json,md,png} go (default docs/perf)
#   EXACDF_BENCH_REPS=n      repetitions at 64 MiB (default 3; the median is reported)
#   EXACDF_BENCH_LARGE_REPS=n  repetitions at 1 GiB (default 2, to stay within ~20 min)
#   EXACDF_BENCH_RANKS="1 2 4 8"
#   EXACDF_BENCH_LARGE_PATTERNS=Z,ZYX   partition patterns run at 1 GiB (none: no
#                            1 GiB runs, partition3d and FLASH-IO alike)
#   EXACDF_BENCH_NOBUILD=1   reuse build-bench/ as it is
#   PYTHON=...               python for the plot (default .venv/bin/python)
#
# Runs are interleaved: for every size and rank count, each repetition runs
# all five variants (in an order rotated per repetition), so drift of the
# machine (page cache, writeback, other load) hits all libraries alike.  Every
# benchmark deletes its files after each measurement, so their dirty pages are
# dropped rather than written back; `sync` runs before each launch.  Nothing
# needs root: the page cache is NOT dropped, so reads after writes come from
# memory (said in the report).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$ROOT/build-bench
QUICK=${EXACDF_BENCH_QUICK:-0}
REPS=${EXACDF_BENCH_REPS:-3}
RANKS=${EXACDF_BENCH_RANKS:-"1 2 4 8"}
LARGE_PATTERNS=${EXACDF_BENCH_LARGE_PATTERNS:-Z,ZYX}
LARGE_REPS=${EXACDF_BENCH_LARGE_REPS:-2}
OUT=${EXACDF_BENCH_OUT:-$ROOT/docs/perf}
if [[ $QUICK == 1 ]]; then
  REPS=${EXACDF_BENCH_REPS:-1}
  OUT=${EXACDF_BENCH_OUT:-$BUILD/quick}
fi
DATADIR=${EXACDF_BENCH_DIR:-/tmp/exacdf_bench.$$}
mkdir -p "$DATADIR" "$OUT"
[[ -n ${EXACDF_BENCH_DIR:-} ]] || trap 'rm -rf "$DATADIR"' EXIT

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPIEXEC=${MPIEXEC:-mpiexec}
MPIFLAGS=${MPIFLAGS:---oversubscribe}
LIBS=(exacdf pnetcdf hdf5 mpiio posix)
CMDLINE="$( (env | grep -E "^EXACDF_BENCH_[A-Z_]*=" || true) | sort | tr "\n" " ")bench/run_data_bench.sh"
START=$(date +%s)

log() { echo "[$(($(date +%s) - START))s] $*" >&2; }

# ---------------------------------------------------------------- build ---
if [[ ${EXACDF_BENCH_NOBUILD:-0} != 1 ]]; then
  log "configure + build (Release) in $BUILD"
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DEXACDF_BENCH=ON -DBUILD_TESTING=OFF >"$BUILD.cmake.log" 2>&1 \
    || { cat "$BUILD.cmake.log"; exit 1; }
  cmake --build "$BUILD" -j"$(nproc)" --target bench_all >"$BUILD.build.log" 2>&1 \
    || { tail -40 "$BUILD.build.log"; exit 1; }
fi
for lib in "${LIBS[@]}"; do
  for prog in partition3d flash_io; do
    [[ -x $BUILD/bench/${prog}_$lib ]] || { echo "missing $BUILD/bench/${prog}_$lib" >&2; exit 1; }
  done
done
# Which libraries each build really links (the two pnetcdf.h never mix: the
# sources #error on the wrong header; here the link side is checked).
# (Not `ldd ... | grep -q`: grep -q exits at the first match, and under pipefail
# ldd, still writing, then fails with SIGPIPE -- now and then.)
links() { [[ "$(ldd "$1")" == *"$2"* ]]; }  # links BINARY LIBRARY
links "$BUILD/bench/partition3d_exacdf" libexacdf || { echo "partition3d_exacdf does not link libexacdf" >&2; exit 1; }
if links "$BUILD/bench/partition3d_exacdf" libpnetcdf; then echo "partition3d_exacdf links libpnetcdf" >&2; exit 1; fi
links "$BUILD/bench/partition3d_pnetcdf" libpnetcdf || { echo "partition3d_pnetcdf does not link libpnetcdf" >&2; exit 1; }
if links "$BUILD/bench/partition3d_pnetcdf" libexacdf; then echo "partition3d_pnetcdf links libexacdf" >&2; exit 1; fi

RAW=$OUT/data_bench.raw.txt
: >"$RAW"

run() { # ranks lib prog args...; tags its RESULT lines with $LABEL and $REP
  local n=$1 lib=$2 prog=$3
  shift 3
  sync
  if ! "$MPIEXEC" $MPIFLAGS -n "$n" "$BUILD/bench/${prog}_$lib" -d "$DATADIR" "$@" 2>"$DATADIR/stderr" \
      | sed "s/^RESULT /RESULT size=$LABEL rep_run=$REP /" >>"$RAW"; then
    echo "FAILED: -n $n ${prog}_$lib $*" >&2
    cat "$DATADIR/stderr" >&2
    echo "FAILED lib=$lib prog=$prog ranks=$n args=$*" >>"$RAW"
  fi
}

# --------------------------------------------- byte identity check (small) ---
# The same ncmpi source through exacdf and PnetCDF must give identical files,
# and the MPI-IO and pwrite writers the same data bytes (the netCDF data section).
log "byte identity check (flash_io nxb=8, 3 ranks, 6 blocks/rank base)"
for lib in exacdf pnetcdf mpiio posix; do
  "$MPIEXEC" $MPIFLAGS -n 3 "$BUILD/bench/flash_io_$lib" -d "$DATADIR" -n 8 -b 6 -k >/dev/null
done
IDENT=identical
for k in chk plt_cnt plt_crn; do
  cmp -s "$DATADIR/flash_io_exacdf_$k.nc" "$DATADIR/flash_io_pnetcdf_$k.nc" || IDENT="DIFFERENT($k exacdf vs pnetcdf)"
  s=$(stat -c %s "$DATADIR/flash_io_mpiio_$k.dat")
  cmp -s <(tail -c "$s" "$DATADIR/flash_io_exacdf_$k.nc") "$DATADIR/flash_io_mpiio_$k.dat" || IDENT="DIFFERENT($k mpiio data vs netCDF data)"
  cmp -s "$DATADIR/flash_io_posix_$k.dat" "$DATADIR/flash_io_mpiio_$k.dat" || IDENT="DIFFERENT($k pwrite data vs mpiio data)"
done
rm -f "$DATADIR"/flash_io_*
echo "IDENTITY flash_io=$IDENT" >>"$RAW"
log "identity: $IDENT"
# partition3d: the netCDF data section of exacdf's file, the MPI-IO file and the
# pwrite file (3 ranks, pattern ZYX, an odd shape so pieces are uneven).
P3D_IDENT=identical
for lib in exacdf mpiio posix; do
  "$MPIEXEC" $MPIFLAGS -n 3 "$BUILD/bench/partition3d_$lib" -d "$DATADIR" -z 30 -y 20 -x 10 -p ZYX -k >/dev/null
done
s=$(stat -c %s "$DATADIR/partition3d_mpiio.dat")
cmp -s <(tail -c "$s" "$DATADIR/partition3d_exacdf.nc") "$DATADIR/partition3d_mpiio.dat" || P3D_IDENT="DIFFERENT(mpiio data vs netCDF data)"
cmp -s "$DATADIR/partition3d_posix.dat" "$DATADIR/partition3d_mpiio.dat" || P3D_IDENT="DIFFERENT(pwrite data vs mpiio data)"
rm -f "$DATADIR"/partition3d_*
echo "IDENTITY partition3d=$P3D_IDENT" >>"$RAW"
log "identity partition3d: $P3D_IDENT"

# ------------------------------------------------------------- the runs ---
# size label | partition3d dims (floats) | partition patterns | flash nxb | flash target bytes
if [[ $QUICK == 1 ]]; then
  SIZES=("8MiB|128 128 128|all|8|8388608|$REPS")
else
  SIZES=("64MiB|256 256 256|all|8|67108864|$REPS")
  [[ $LARGE_PATTERNS == none ]] || SIZES+=("1GiB|1024 512 512|$LARGE_PATTERNS|16|1073741824|$LARGE_REPS")
fi

for spec in "${SIZES[@]}"; do
  IFS='|' read -r label dims pats nxb target nrep <<<"$spec"
  LABEL=$label
  read -r Z Y X <<<"$dims"
  for n in $RANKS; do
    for ((rep = 0; rep < nrep; rep++)); do
      REP=$rep
      r=$((rep % ${#LIBS[@]}))
      order=("${LIBS[@]:r}" "${LIBS[@]:0:r}")
      for lib in "${order[@]}"; do
        log "$label ranks=$n rep=$rep $lib partition3d ($pats)"
        run "$n" "$lib" partition3d -z "$Z" -y "$Y" -x "$X" -p "$pats"
      done
      for lib in "${order[@]}"; do
        log "$label ranks=$n rep=$rep $lib flash_io (nxb=$nxb)"
        run "$n" "$lib" flash_io -n "$nxb" -t "$target"
      done
    done
  done
done
ELAPSED=$(($(date +%s) - START))
log "runs done in ${ELAPSED}s"

# ------------------------------------------------------------ the report ---
PY=${PYTHON:-}
if [[ -z $PY ]]; then
  if [[ -x $ROOT/.venv/bin/python ]] && "$ROOT/.venv/bin/python" -c 'import matplotlib' 2>/dev/null; then
    PY=$ROOT/.venv/bin/python
  else
    PY=python3
  fi
fi
"$PY" "$ROOT/bench/aggregate.py" --raw "$RAW" --out "$OUT" --command "$CMDLINE" --elapsed "$ELAPSED" \
  --reps "$([[ $QUICK == 1 ]] && echo "$REPS" || echo "$REPS (64 MiB), $LARGE_REPS (1 GiB)")" --ranks "$RANKS" --quick "$QUICK" --datadir "$DATADIR"
log "wrote $OUT/data_bench.json $OUT/data_bench.md"
