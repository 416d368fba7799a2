#!/usr/bin/env bash
# Interop checks between exacdf, PnetCDF and netCDF-C.  One invocation is one
# ctest case:
#
#   run_interop.sh cdl FILE.cdl     ncgen -> ref.nc; nc_copy (exacdf) -> ex.nc;
#                                   nc_copy (PnetCDF) -> pn.nc; compare them
#   run_interop.sh define FORMAT MODE
#                                   define_only built both ways; compare files
#
# Programs and tools come from the environment (CMake sets them):
#   EX_COPY, EX_DEFINE   the programs built against exacdf (required)
#   PN_COPY, PN_DEFINE   the same sources built against the system PnetCDF
#                        (optional: PnetCDF checks are skipped when unset)
#   WORKDIR              scratch directory for this case (required)
#   MPIEXEC, MPIEXEC_NUMPROC_FLAG, MPIEXEC_FLAGS   how to start MPI programs
#   NPROCS               rank counts to run at (default "1 2 4")
#   NCGEN NCDUMP NCMPIDUMP   tools (default: from PATH)
#   NC_BYTECMP           nc_bytecmp (optional): explains a cmp mismatch that is
#                        only in bytes no reader looks at (padding, holes)
#   EXACDF_DUMP          the `exacdf` tool (optional): `exacdf dump` of the ncgen
#                        and PnetCDF files must print what ncdump prints
#   PYTHON               a python with netCDF4 (optional)
#   PY_CHECK             path of py_check.py (optional)
#
# A CDL file may say which formats it is valid in, with a comment line
#   // formats: nc3 nc6 nc5
# (ncgen -k kinds: nc3 = CDF-1, nc6 = CDF-2, nc5 = CDF-5).  Without that line
# every kind ncgen accepts is used, and at least one must be accepted.
#
# Each check prints PASS/FAIL (with diff -u output on a mismatch); the script
# ends with "N passed, N failed" and exits non-zero if anything failed.
set -u

mode=${1:?usage: run_interop.sh cdl FILE.cdl | define FORMAT MODE}
: "${WORKDIR:?WORKDIR must be set}"
: "${EX_COPY:=}" "${EX_DEFINE:=}" "${PN_COPY:=}" "${PN_DEFINE:=}"
: "${MPIEXEC:=mpiexec}" "${MPIEXEC_NUMPROC_FLAG:=-n}" "${MPIEXEC_FLAGS:=--oversubscribe}"
: "${NPROCS:=1 2 4}"
: "${NCGEN:=ncgen}" "${NCDUMP:=ncdump}" "${NCMPIDUMP:=ncmpidump}"
: "${PYTHON:=}" "${PY_CHECK:=}" "${EXACDF_DUMP:=}" "${NC_BYTECMP:=}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "PASS: $*"; }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }
note() { echo "NOTE: $*"; }

finish() {
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
  exit $?
}

rm -rf "$WORKDIR"
mkdir -p "$WORKDIR"
cd "$WORKDIR" || exit 1

# run NP PROGRAM ARGS... -> 0 on success; output kept in a log shown on failure.
run() {
  local np=$1
  shift
  local log
  log=$(mktemp "$WORKDIR/run.XXXXXX")
  # shellcheck disable=SC2086
  if timeout 300 "$MPIEXEC" $MPIEXEC_FLAGS "$MPIEXEC_NUMPROC_FLAG" "$np" "$@" >"$log" 2>&1; then
    rm -f "$log"
    return 0
  fi
  echo "---- $* (np=$np) failed:"
  sed -e 's/^/    /' "$log" | head -40
  rm -f "$log"
  return 1
}

# dump TOOL FILE OUT: a CDL dump with the first line ("netcdf NAME {") made
# independent of the file name.
dump() {
  local tool=$1 file=$2 out=$3
  if ! "$tool" "$file" >"$out.raw" 2>"$out.err"; then
    echo "---- $tool $file failed:"
    sed -e 's/^/    /' "$out.err" | head -20
    return 1
  fi
  sed -e '1s/^netcdf .* {$/netcdf NAME {/' "$out.raw" >"$out"
  rm -f "$out.raw" "$out.err"
}

# same WHAT A B: the two text files are identical, else show diff -u.
same() {
  local what=$1 a=$2 b=$3
  if diff -q "$a" "$b" >/dev/null; then
    pass "$what"
  else
    fail "$what"
    diff -u "$a" "$b" | head -80
  fi
}

# bytes WHAT A B: byte identity of two netCDF files (A is PnetCDF's).  If
# they differ only in bytes that carry no information (padding between
# variables, holes: see nc_bytecmp.c) the check passes with a NOTE saying so;
# PnetCDF's own files differ from run to run there.
bytes() {
  local what=$1 a=$2 b=$3 out rc
  if cmp "$a" "$b" >/dev/null 2>&1; then
    pass "$what"
    return
  fi
  if [ -n "$NC_BYTECMP" ]; then
    out=$("$NC_BYTECMP" "$a" "$b" 2>&1)
    rc=$?
    if [ $rc -eq 3 ]; then
      pass "$what (only in bytes no reader reads)"
      note "$what: $a and $b differ only in padding/holes:"
      echo "$out" | sed -e 's/^/    /'
      return
    fi
  fi
  fail "$what"
  cmp "$a" "$b" 2>&1 | head -3 | sed -e 's/^/    /'
  echo "    sizes: $(stat -c %s "$a") vs $(stat -c %s "$b"); first differing bytes (offset, octal):"
  cmp -l "$a" "$b" 2>&1 | head -10 | sed -e 's/^/    /'
  [ -z "${out:-}" ] || echo "$out" | sed -e 's/^/    /'
}

# mpidump_same WHAT PN EX: ncmpidump prints the same for both files.  When
# ncmpidump cannot print PnetCDF's own file (it crashes on some attributes,
# e.g. C_format) the comparison is skipped with a NOTE.
mpidump_same() {
  local what=$1 pn=$2 ex=$3
  if ! dump "$NCMPIDUMP" "$pn" "$pn.ncmpidump" >"$pn.ncmpidump.log" 2>&1; then
    note "$what: skipped, ncmpidump fails on PnetCDF's own file ($(grep -m1 -o 'Signal: .*\|rror.*' "$pn.ncmpidump.log"))"
    return
  fi
  if dump "$NCMPIDUMP" "$ex" "$ex.ncmpidump"; then
    same "$what" "$pn.ncmpidump" "$ex.ncmpidump"
  else
    fail "$what: ncmpidump fails on exacdf file"
  fi
}

# exdump WHAT FILE REF: `exacdf dump FILE` prints what ncdump prints (REF).
exdump() {
  [ -n "$EXACDF_DUMP" ] || return 0
  local what=$1 file=$2 ref=$3
  if "$EXACDF_DUMP" dump "$file" >"$file.exdump.raw" 2>"$file.exdump.err"; then
    sed -e '1s/^netcdf .* {$/netcdf NAME {/' "$file.exdump.raw" >"$file.exdump"
    same "$what" "$ref" "$file.exdump"
  else
    fail "$what"
    sed -e 's/^/    /' "$file.exdump.err" | head -20
  fi
}

kind_name() {
  case $1 in nc3) echo cdf1 ;; nc6) echo cdf2 ;; nc5) echo cdf5 ;; *) echo "$1" ;; esac
}

[ -n "$PN_COPY$PN_DEFINE" ] ||
  note "system PnetCDF not found: checks against PnetCDF-written files are skipped"

case $mode in
cdl)
  cdl=${2:?cdl FILE}
  [ -n "$EX_COPY" ] || { echo "EX_COPY not set"; exit 2; }
  kinds=$(sed -n 's|^[[:space:]]*//[[:space:]]*formats:[[:space:]]*||p' "$cdl" | head -1)
  explicit=1
  if [ -z "$kinds" ]; then
    kinds="nc3 nc6 nc5"
    explicit=0
  fi
  nkinds=0
  for k in $kinds; do
    f=$(kind_name "$k")
    if ! "$NCGEN" -k "$k" -o "ref_$f.nc" "$cdl" >"ncgen_$f.log" 2>&1; then
      if [ $explicit -eq 1 ]; then
        fail "ncgen -k $k $(basename "$cdl")"
        sed -e 's/^/    /' "ncgen_$f.log"
      else
        note "ncgen -k $k rejects $(basename "$cdl"): not a $f file ($(head -1 "ncgen_$f.log"))"
      fi
      continue
    fi
    nkinds=$((nkinds + 1))
    dump "$NCDUMP" "ref_$f.nc" "ref_$f.ncdump" || { fail "ncdump of ncgen's $f file"; continue; }
    exdump "$f: exacdf dump(ncgen file) == ncdump(ncgen file)" "ref_$f.nc" "ref_$f.ncdump"

    for np in $NPROCS; do
      tag="$f np=$np"
      ex="ex_${f}_np$np.nc" pn="pn_${f}_np$np.nc"
      ex_ok=0 pn_ok=0
      if run "$np" "$EX_COPY" "ref_$f.nc" "$ex"; then
        pass "$tag: nc_copy(exacdf) of ncgen's file"
        ex_ok=1
      else
        fail "$tag: nc_copy(exacdf) of ncgen's file"
      fi
      if [ $ex_ok -eq 1 ]; then
        if dump "$NCDUMP" "$ex" "$ex.ncdump"; then
          same "$tag: ncdump(exacdf file) == ncdump(ncgen file)" "ref_$f.ncdump" "$ex.ncdump"
        else
          fail "$tag: ncdump reads exacdf file"
        fi
        # The same copy with iget/iput + one wait_all each: the same bytes.
        exnb="exnb_${f}_np$np.nc"
        if NC_COPY_NONBLOCKING=1 run "$np" "$EX_COPY" "ref_$f.nc" "$exnb"; then
          bytes "$tag: nonblocking nc_copy(exacdf) == blocking nc_copy(exacdf)" "$ex" "$exnb"
        else
          fail "$tag: nonblocking nc_copy(exacdf) of ncgen's file"
        fi
        if [ "$("$NCDUMP" -k "$ex" 2>&1)" = "$("$NCDUMP" -k "ref_$f.nc" 2>&1)" ]; then
          pass "$tag: ncdump -k: same kind"
        else
          fail "$tag: ncdump -k: $("$NCDUMP" -k "$ex" 2>&1) vs $("$NCDUMP" -k "ref_$f.nc" 2>&1)"
        fi
      fi
      [ -n "$PN_COPY" ] || continue

      if run "$np" "$PN_COPY" "ref_$f.nc" "$pn"; then
        pn_ok=1
      else
        fail "$tag: nc_copy(PnetCDF) of ncgen's file (harness problem, not exacdf)"
      fi
      if [ $ex_ok -eq 1 ] && [ $pn_ok -eq 1 ]; then
        mpidump_same "$tag: ncmpidump(exacdf file) == ncmpidump(PnetCDF file)" "$pn" "$ex"
        bytes "$tag: cmp exacdf file == PnetCDF file" "$pn" "$ex"
      fi
      if [ $pn_ok -eq 1 ]; then
        [ "$np" != "${NPROCS%% *}" ] ||
          exdump "$tag: exacdf dump(PnetCDF file) == ncdump(ncgen file)" "$pn" "ref_$f.ncdump"
        # exacdf reads what PnetCDF wrote.
        expn="expn_${f}_np$np.nc"
        if run "$np" "$EX_COPY" "$pn" "$expn" && dump "$NCDUMP" "$expn" "$expn.ncdump"; then
          same "$tag: nc_copy(exacdf) of PnetCDF file: ncdump == ncgen file's" "ref_$f.ncdump" "$expn.ncdump"
        else
          fail "$tag: nc_copy(exacdf) of PnetCDF file"
        fi
      fi
    done

    # netCDF4-python / xarray read the exacdf file (optional).
    if [ -n "$PYTHON" ] && [ -n "$PY_CHECK" ] && [ -e "ex_${f}_np${NPROCS##* }.nc" ]; then
      "$PYTHON" "$PY_CHECK" "ex_${f}_np${NPROCS##* }.nc" "ref_$f.nc" >"py_$f.log" 2>&1
      rc=$?
      if [ $rc -eq 0 ]; then
        pass "$f: netCDF4-python reads exacdf file as ncgen's ($(tail -1 "py_$f.log"))"
      elif [ $rc -eq 77 ]; then
        note "$f: netCDF4-python check skipped: $(tail -1 "py_$f.log")"
      else
        fail "$f: netCDF4-python reads exacdf file as ncgen's"
        sed -e 's/^/    /' "py_$f.log" | head -40
      fi
    fi
  done
  [ $nkinds -gt 0 ] || fail "ncgen accepts $(basename "$cdl") in no classic kind"
  ;;

define)
  fmt=${2:?define FORMAT MODE}
  fill=${3:-nofill}
  [ -n "$EX_DEFINE" ] || { echo "EX_DEFINE not set"; exit 2; }
  for np in $NPROCS; do
    tag="define_only $fmt $fill np=$np"
    ex="ex_np$np.nc" pn="pn_np$np.nc"
    ex_ok=0 pn_ok=0
    if run "$np" "$EX_DEFINE" "$ex" "$fmt" "$fill"; then
      pass "$tag: exacdf build runs, all inquiries as expected"
    else
      fail "$tag: exacdf build runs, all inquiries as expected"
    fi
    # Compare the file even when some inquiry was wrong: it shows what differs.
    [ -s "$ex" ] && ex_ok=1
    if [ -n "$PN_DEFINE" ]; then
      if run "$np" "$PN_DEFINE" "$pn" "$fmt" "$fill"; then
        pn_ok=1
      else
        fail "$tag: PnetCDF build runs (harness problem, not exacdf)"
      fi
    fi
    if [ $ex_ok -eq 1 ]; then
      # The file must at least be valid for netCDF-C.
      if dump "$NCDUMP" "$ex" "$ex.ncdump"; then
        pass "$tag: ncdump reads exacdf file"
      else
        fail "$tag: ncdump reads exacdf file"
      fi
    fi
    if [ $ex_ok -eq 1 ] && [ $pn_ok -eq 1 ]; then
      if dump "$NCDUMP" "$pn" "$pn.ncdump"; then
        same "$tag: ncdump(exacdf file) == ncdump(PnetCDF file)" "$pn.ncdump" "$ex.ncdump"
      else
        fail "$tag: ncdump reads PnetCDF file (harness problem, not exacdf)"
      fi
      mpidump_same "$tag: ncmpidump(exacdf file) == ncmpidump(PnetCDF file)" "$pn" "$ex"
      bytes "$tag: cmp exacdf file == PnetCDF file" "$pn" "$ex"
    fi
    if [ $pn_ok -eq 1 ] && [ -e "$pn.ncdump" ]; then
      exdump "$tag: exacdf dump(PnetCDF file) == ncdump(PnetCDF file)" "$pn" "$pn.ncdump"
    fi
    # (No nc_copy of these files: their variables were never written, the
    # files end before the data, and what a library returns for data past
    # the end of file is undefined -- PnetCDF returns uninitialized memory.)
  done
  ;;

*)
  echo "unknown mode $mode"
  exit 2
  ;;
esac
finish
