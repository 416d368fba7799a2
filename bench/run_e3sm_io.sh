#!/usr/bin/env bash
# run_e3sm_io.sh -- the E3SM-like output benchmark (issue 4): bench/e3sm_io.c
# built against exacdf and against Debian's PnetCDF from the same source, each
# in two modes:
#   nb        per variable ncmpi_iput_varn_*, then one ncmpi_wait_all per step
#   blocking  the same bytes, per variable ncmpi_put_varn_*_all
# at 1, 2, 4, 8 ranks (8 -- and 4 -- oversubscribed on this 2-core machine),
# median of REPS repetitions (the four variants interleaved in a repetition).
# MPI-IO calls are counted by the PMPI interposer bench/mpiio_count.c, which is
# LD_PRELOADed (mpiexec -x) into every run of both builds.
# Writes OUT_DIR/e3sm_io.{json,md} and, with matplotlib, e3sm_io.png.
#
# Usage: bench/run_e3sm_io.sh                  full run (RANKS="1 2 4 8" REPS=3 NCOL=1024 STEPS=3)
#        EXACDF_BENCH_QUICK=1 bench/run_e3sm_io.sh
#              ~1-minute smoke run (NCOL=256 STEPS=2 REPS=1); results go to
#              build-bench-e3sm/quick/ unless OUT_DIR is given
#        OUT_DIR=/tmp/x RANKS="1 2" REPS=1 bench/run_e3sm_io.sh
#        EXACDF_SOURCE=tree bench/run_e3sm_io.sh    build exacdf from the working tree
# Builds exacdf (CMake Release) in build-bench-e3sm/ and the benchmark with mpicc;
# touches no other build directory.  By default (EXACDF_SOURCE=head) exacdf is
# built from a `git archive` snapshot of the committed HEAD (read-only on the
# repository), so a run is reproducible from the recorded commit.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../scripts/env.sh
source "$HERE/../scripts/env.sh"
ROOT="$EXACDF_ROOT"
BUILD="${BUILD:-$ROOT/build-bench-e3sm}"
QUICK="${EXACDF_BENCH_QUICK:-0}"
if [[ "$QUICK" == 1 ]]; then
  OUT_DIR="${OUT_DIR:-$BUILD/quick}"
  NCOL="${NCOL:-256}"; STEPS="${STEPS:-2}"; REPS="${REPS:-1}"
else
  OUT_DIR="${OUT_DIR:-$ROOT/docs/perf}"
  NCOL="${NCOL:-1024}"; STEPS="${STEPS:-3}"; REPS="${REPS:-3}"
fi
RANKS="${RANKS:-1 2 4 8}"
MAXLEN="${MAXLEN:-16}"
RUN_TIMEOUT="${RUN_TIMEOUT:-600}"
PY="${EXACDF_PYTHON:-python3}"
EXACDF_SOURCE="${EXACDF_SOURCE:-head}"
CFLAGS=(-O2 -Wall -Wextra -Wno-unused-parameter)
COMMAND="bench/run_e3sm_io.sh"
[[ "$QUICK" == 1 ]] && COMMAND="EXACDF_BENCH_QUICK=1 $COMMAND"
COMMAND="$COMMAND (RANKS=\"$RANKS\" REPS=$REPS NCOL=$NCOL STEPS=$STEPS MAXLEN=$MAXLEN EXACDF_SOURCE=$EXACDF_SOURCE)"

log() { printf '[e3sm_io] %s\n' "$*" >&2; }
LOAD_START="$(cut -d' ' -f1-3 /proc/loadavg)"
UPTIME_START="$(uptime)"
log "load average at start: $LOAD_START"

# ---------------------------------------------------------------- build
mkdir -p "$BUILD"
case "$EXACDF_SOURCE" in
  head)
    SRC="$BUILD/src-HEAD"
    SRC_REV="$(git -C "$ROOT" rev-parse HEAD)"
    if [[ "$(cat "$SRC/.rev" 2>/dev/null)" != "$SRC_REV" ]]; then
      rm -rf "$SRC" && mkdir -p "$SRC"
      git -C "$ROOT" archive --format=tar HEAD | tar -x -C "$SRC"
      echo "$SRC_REV" >"$SRC/.rev"
    fi
    SRC_DESC="committed HEAD $(git -C "$ROOT" rev-parse --short HEAD) (git archive snapshot)" ;;
  tree)
    SRC="$ROOT"
    SRC_DESC="working tree at $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')"
    [[ -n "$(git -C "$ROOT" status --porcelain -- src include CMakeLists.txt 2>/dev/null)" ]] &&
      SRC_DESC="$SRC_DESC with uncommitted changes in src/include/CMakeLists.txt" ;;
  *) log "EXACDF_SOURCE must be head or tree"; exit 2 ;;
esac
log "building exacdf (Release) from $SRC_DESC in $BUILD/lib"
cmake -S "$SRC" -B "$BUILD/lib" "${EXACDF_GENERATOR[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DBUILD_TESTING=OFF >"$BUILD/cmake.log" 2>&1 || { cat "$BUILD/cmake.log"; exit 1; }
cmake --build "$BUILD/lib" --target exacdf -j "$EXACDF_JOBS" >"$BUILD/build.log" 2>&1 ||
  { tail -50 "$BUILD/build.log"; exit 1; }
mkdir -p "$BUILD/bench" "$BUILD/data" "$OUT_DIR"
BIN="$BUILD/bench"
log "building bench/e3sm_io.c (exacdf, PnetCDF) and bench/mpiio_count.c"
# exacdf: its include/ and libexacdf; the source #errors on the wrong pnetcdf.h.
mpicc "${CFLAGS[@]}" -DBENCH_LIB='"exacdf"' -DBENCH_EXPECT_EXACDF=1 -I"$SRC/include" \
  "$ROOT/bench/e3sm_io.c" -o "$BIN/e3sm_io_exacdf" \
  -L"$BUILD/lib" -lexacdf -Wl,-rpath,"$BUILD/lib"
# PnetCDF: /usr/include/pnetcdf.h and -lpnetcdf only.
mpicc "${CFLAGS[@]}" -DBENCH_LIB='"pnetcdf"' -DBENCH_EXPECT_EXACDF=0 \
  "$ROOT/bench/e3sm_io.c" -o "$BIN/e3sm_io_pnetcdf" -lpnetcdf
mpicc -shared -fPIC -O2 -Wall "$ROOT/bench/mpiio_count.c" -o "$BIN/libmpiio_count.so"
[[ "$(ldd "$BIN/e3sm_io_exacdf")" == *"$BUILD/lib/libexacdf"* ]] || { log "exacdf binary not linked to $BUILD"; exit 1; }
[[ "$(ldd "$BIN/e3sm_io_pnetcdf")" == *libpnetcdf* ]] || { log "pnetcdf binary not linked to libpnetcdf"; exit 1; }
# The interposer only works if libmpi's MPI_File_* are weak over PMPI_File_*.
# (Readers of a pipe read to the end here: one that stops early -- grep -q, head, awk's
# exit -- can make the writer fail with SIGPIPE, which pipefail turns into a failure.)
LIBMPI="$(ldd "$BIN/e3sm_io_pnetcdf" | awk '/libmpi\.so/ && !found {print $3; found = 1}')"
WEAK_OK=$(nm -D "$LIBMPI" | grep -cE ' W MPI_File_(write|read)(_at)?(_all)?$' || true)
log "libmpi $LIBMPI: $WEAK_OK of the 8 MPI_File_{write,read}{,_at}{,_all} are weak symbols"
[[ "$WEAK_OK" == 8 ]] || { log "MPI_File_* are not weak in libmpi: PMPI counting would miss calls"; exit 1; }

run() {  # run NRANKS BINARY ARGS...
  local n="$1"; shift
  timeout "$RUN_TIMEOUT" mpiexec --oversubscribe -n "$n" -x LD_PRELOAD="$BIN/libmpiio_count.so" "$@"
}

# ---------------------------------------------------------------- same bytes?
# One run of each variant at 2 ranks keeping the file: all four must be equal.
log "checking that the four variants write byte-identical files (2 ranks)"
declare -A FILE_OF
for variant in pnetcdf-nb pnetcdf-blocking exacdf-nb exacdf-blocking; do
  f="$BUILD/data/same_$variant.nc"
  out=$(run 2 "$BIN/e3sm_io_${variant%%-*}" "${variant#*-}" "$f" ncol="$NCOL" steps="$STEPS" \
    maxlen="$MAXLEN" keep=1) && [[ $out == *verify=ok* ]] || { log "FAILED: $variant (identity run)"; exit 1; }
  FILE_OF[$variant]="$f"
done
IDENT=""
for variant in pnetcdf-blocking exacdf-nb exacdf-blocking; do
  if cmp -s "${FILE_OF[pnetcdf-nb]}" "${FILE_OF[$variant]}"; then r=identical
  else first=$(cmp "${FILE_OF[pnetcdf-nb]}" "${FILE_OF[$variant]}" 2>&1 || true); first=${first%%$'\n'*}; r="differs (${first##*: })"; fi
  IDENT="$IDENT$variant vs pnetcdf-nb: $r; "
done
log "$IDENT"
FILE_BYTES=$(stat -c %s "${FILE_OF[pnetcdf-nb]}")
rm -f "$BUILD"/data/same_*.nc

# ---------------------------------------------------------------- runs
RAW="$BUILD/e3sm_io_raw.txt"
: >"$RAW"
START=$(date +%s)
for rep in $(seq 1 "$REPS"); do
  for n in $RANKS; do
    for variant in exacdf-nb pnetcdf-nb exacdf-blocking pnetcdf-blocking; do
      lib="${variant%%-*}"; mode="${variant#*-}"
      out=$(run "$n" "$BIN/e3sm_io_$lib" "$mode" "$BUILD/data/e3sm_$variant.nc" ncol="$NCOL" \
              steps="$STEPS" maxlen="$MAXLEN" label="$variant") || { log "FAILED: $variant at $n ranks"; echo "$out" >&2; exit 1; }
      line=$(grep '^RESULT ' <<<"$out") || { log "no RESULT: $variant at $n ranks"; exit 1; }
      [[ "$line" == *"verify=ok"* ]] || { log "VERIFY FAILED: $variant at $n ranks"; echo "$line" >&2; exit 1; }
      [[ "$line" == *"counter=pmpi"* ]] || { log "PMPI counter not active: $variant at $n ranks"; exit 1; }
      echo "$line rep=$rep" >>"$RAW"
      log "rep $rep ranks $n $variant: $(sed -E 's/.* (step_s=[^ ]+).* (mpiio_calls_step_rank_max=[^ ]+).*/\1 \2/' <<<"$line")"
    done
  done
done
ELAPSED=$(( $(date +%s) - START ))
log "runs took ${ELAPSED}s"
LOAD_END="$(cut -d' ' -f1-3 /proc/loadavg)"

# ---------------------------------------------------------------- environment facts
cpu=$( (lscpu 2>/dev/null || true) | awk -F': *' '/^Model name:/ && !found {print $2; found = 1}')
mem=$(free -g | awk '/^Mem:/{print $2 " GiB"}')
fs=$(df -T "$BUILD/data" | awk 'NR==2{print $2 " (" $7 ")"}')
ompi=$(mpiexec --version 2>&1 || true); ompi=${ompi%%$'\n'*}
pnc=$(dpkg-query -W -f '${Version}' libpnetcdf-dev 2>/dev/null || echo unknown)
gcc_v=$(gcc -dumpfullversion)

export RAW OUT_DIR COMMAND ELAPSED REPS RANKS QUICK IDENT FILE_BYTES LOAD_START LOAD_END UPTIME_START
export M_CPU="$cpu" M_NPROC="$(nproc)" M_MEM="$mem" M_FS="$fs" M_KERNEL="$(uname -r)"
export V_OMPI="$ompi" V_PNC="$pnc" V_GCC="$gcc_v" V_SRC="$SRC_DESC"
export M_DATE="$(date -u '+%Y-%m-%d %H:%M UTC')"

"$PY" "$HERE/e3sm_io_report.py"
log "wrote $OUT_DIR/e3sm_io.json and e3sm_io.md"
cat "$OUT_DIR/e3sm_io.md"
