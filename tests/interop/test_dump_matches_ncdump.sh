#!/usr/bin/env bash
# `exacdf dump` must print exactly what netCDF-C's ncdump prints.
#
# usage: EXACDF_TOOL=/path/to/exacdf test_dump_matches_ncdump.sh SCRATCH_DIR
#
# Every tests/interop/cdl/*.cdl is turned into netCDF files with ncgen, one per
# classic format the CDL fits in:
#   classic (ncgen -k nc3), 64-bit offset (-k nc6), cdf5 (-k nc5), and cdf5 made
#   through netCDF-4 + `nccopy -k cdf5` (ncgen 4.9's nc5 writer turns int64
#   variables into int, so this is the way to get real int64 variables).
# For each file the outputs of `ncdump [opts] F` and `exacdf dump [opts] F` are
# compared byte for byte with opts: none, -h, -k, -c, -v <vars>, and the full dump
# again with the data read in tiny pieces (EXACDF_DUMP_CHUNK_BYTES).  Error cases
# (missing file, not a netCDF file, unknown variable) must fail with a message.
# Prints a diff on each failure and "N passed, N failed" at the end; exits non-zero
# on any failure.
set -u

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cdl_dir="$here/cdl"
tool="${EXACDF_TOOL:?set EXACDF_TOOL to the exacdf executable}"
scratch="${1:?usage: EXACDF_TOOL=... $0 SCRATCH_DIR}"

# The project's MPI environment: Open MPI as root, shared memory only (also makes
# each singleton start in a third of the time).
if [[ -f "$here/../../scripts/env.sh" ]]; then
  # shellcheck source=../../scripts/env.sh
  source "$here/../../scripts/env.sh"
fi
jobs_max="${EXACDF_JOBS:-$(nproc 2>/dev/null || echo 2)}"
# The tool runs under `mpiexec -n 1` by default: Open MPI 4.1 singletons (a plain
# ./exacdf) now and then crash inside MPI_Finalize when many start at once.
# EXACDF_LAUNCHER="" runs the tool directly.
if [[ -z "${EXACDF_LAUNCHER+set}" ]]; then
  if command -v mpiexec >/dev/null; then EXACDF_LAUNCHER="mpiexec -n 1"; else EXACDF_LAUNCHER=""; fi
fi
read -r -a launcher <<<"$EXACDF_LAUNCHER"

for prog in ncgen ncdump nccopy; do
  command -v "$prog" >/dev/null || { echo "SKIP: $prog not found" >&2; exit 77; }
done

mkdir -p "$scratch"
work="$(mktemp -d "$scratch/dump_vs_ncdump.XXXXXX")"
mkdir -p "$work/logs"

# Results are lines "PASS: label" or "FAIL: label" (+ diff) in $work/logs/*.log,
# one log per job, counted at the end.
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; }

# Compares ncdump and exacdf dump for one file and one option set.
# usage: compare LABEL FILE [OPTIONS...]   (EXACDF_DUMP_CHUNK_BYTES in the caller's
# environment reaches both, and only exacdf reads it)
compare() {
  local label="$1" file="$2"
  shift 2
  local tmp
  tmp="$(mktemp -d "$work/cmp.XXXXXX")"
  local ref="$tmp/ref.out" got="$tmp/got.out" err="$tmp/got.err"
  (cd "$(dirname "$file")" && ncdump "$@" "$(basename "$file")") >"$ref" 2>&1
  local ref_rc=$?
  (cd "$(dirname "$file")" && "${launcher[@]}" "$tool" dump "$@" "$(basename "$file")") >"$got" 2>"$err"
  local got_rc=$?
  if [[ $ref_rc -ne 0 ]]; then
    fail "$label: ncdump itself failed ($(head -c 200 "$ref"))"
  elif [[ $got_rc -ne 0 ]]; then
    fail "$label: exacdf dump exited $got_rc: $(head -c 300 "$err")"
  elif ! cmp -s "$ref" "$got"; then
    fail "$label: output differs from ncdump"
    diff -u --label ncdump --label "exacdf dump" "$ref" "$got" | head -60
  else
    pass "$label"
  fi
  rm -rf "$tmp"
}

# Names (as stored, unescaped) of the variables in a file, from ncdump -h.
var_names() {
  ncdump -h "$1" | awk '
    /^variables:/ { in_vars = 1; next }
    /^(\/\/|data:|})/ { in_vars = 0 }
    in_vars && /^\t[a-z0-9]+ / {
      name = $2; sub(/[( ].*$/, "", name); sub(/;$/, "", name)
      if (name !~ /\\/) print name
    }'
}

# Makes the variants of one CDL file; prints the paths of those ncgen could make.
make_variants() {
  local cdl="$1" base
  base="$(basename "$cdl" .cdl)"
  local dir="$work/$base"
  mkdir -p "$dir"
  local kind
  for kind in nc3 nc6 nc5; do
    if ncgen -k "$kind" -o "$dir/$base.$kind.nc" "$cdl" 2>"$dir/ncgen.$kind.err"; then
      echo "$dir/$base.$kind.nc"
    else
      rm -f "$dir/$base.$kind.nc"
    fi
  done
  if ncgen -k nc4 -o "$dir/$base.nc4.tmp" "$cdl" 2>/dev/null &&
     nccopy -k cdf5 "$dir/$base.nc4.tmp" "$dir/$base.nccopy5.nc" 2>/dev/null; then
    echo "$dir/$base.nccopy5.nc"
  fi
  rm -f "$dir/$base.nc4.tmp"
}

shopt -s nullglob
cdl_files=("$cdl_dir"/*.cdl)
if [[ ${#cdl_files[@]} -eq 0 ]]; then
  echo "no CDL files in $cdl_dir" >&2
  exit 1
fi

# All comparisons of one netCDF file.
check_file() {
  local f="$1" label names last chunk
  label="$(basename "$f")"
  compare "$label" "$f"
  compare "$label -h" "$f" -h
  compare "$label -k" "$f" -k
  compare "$label -c" "$f" -c
  mapfile -t names < <(var_names "$f")
  if [[ ${#names[@]} -gt 0 ]]; then
    last=$(( ${#names[@]} - 1 ))
    compare "$label -v ${names[0]}" "$f" -v "${names[0]}"
    compare "$label -v ${names[0]},${names[$last]}" "$f" -v "${names[0]},${names[$last]}"
  fi
  for chunk in 1 24; do
    EXACDF_DUMP_CHUNK_BYTES=$chunk compare "$label (read in $chunk-byte pieces)" "$f"
  done
}

njob=0
for cdl in "${cdl_files[@]}"; do
  base="$(basename "$cdl" .cdl)"
  mapfile -t files < <(make_variants "$cdl")
  if [[ ${#files[@]} -eq 0 ]]; then
    fail "$base: ncgen could not make any file from the CDL" >"$work/logs/$base.ncgen.log"
    continue
  fi
  for f in "${files[@]}"; do
    while [[ $(jobs -rp | wc -l) -ge $jobs_max ]]; do wait -n; done
    njob=$((njob + 1))
    # Each job its own Open MPI session directory: mpiexec started at the same
    # moment race to create a shared one (tests/with_mpi_session_dir.sh).
    mkdir -p "$work/ompi-session/$njob"
    (export OMPI_MCA_orte_tmpdir_base="$work/ompi-session/$njob"; check_file "$f") >"$work/logs/$njob.log" 2>&1 &
  done
done
wait

# Errors: non-zero exit and a message on stderr, nothing crashes.
exec 3>"$work/logs/errors.log"
expect_error() {
  local label="$1"
  shift
  "${launcher[@]}" "$tool" dump "$@" >"$work/err.out" 2>"$work/err.err"
  local rc=$?
  if [[ $rc -eq 0 || $rc -gt 128 ]]; then
    fail "$label: expected a clean failure, exit status $rc" >&3
  elif [[ ! -s "$work/err.err" ]]; then
    fail "$label: failed without a message on stderr" >&3
  else
    pass "$label" >&3
  fi
}
expect_error "missing file" "$work/no_such_file.nc"
printf 'this is not a netCDF file\n' >"$work/not_netcdf.nc"
expect_error "not a netCDF file" "$work/not_netcdf.nc"
: >"$work/empty_file.nc"
expect_error "empty file" "$work/empty_file.nc"
ncgen -k nc3 -o "$work/err_vars.nc" "$cdl_dir/records.cdl"
expect_error "unknown variable" -v no_such_var "$work/err_vars.nc"
expect_error "no file argument"
head -c 40 "$work/err_vars.nc" >"$work/truncated.nc"
expect_error "truncated header" "$work/truncated.nc"

exec 3>&-

cat "$work"/logs/*.log | grep -v '^PASS: '
passed=$(cat "$work"/logs/*.log | grep -c '^PASS: ')
failed=$(cat "$work"/logs/*.log | grep -c '^FAIL: ')
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
