#!/usr/bin/env bash
# Independent define mode against PnetCDF: indep_define.c makes the same
# definitions independently (exacdf, EXA_INDEP_DEFINE) and collectively in
# rank order (PnetCDF, and exacdf); the three files must be byte-identical
# and ncdump must print the same for them.
#
#   run_indep_define.sh FORMAT      (cdf1 | cdf2 | cdf5)
#
# Environment: EX_INDEP (built against exacdf, required), PN_INDEP (against
# PnetCDF, optional), WORKDIR, MPIEXEC, MPIEXEC_NUMPROC_FLAG, MPIEXEC_FLAGS,
# NPROCS (default "1 2 4"), NCDUMP.
set -u
fmt=${1:?usage: run_indep_define.sh cdf1|cdf2|cdf5}
: "${WORKDIR:?WORKDIR must be set}" "${EX_INDEP:?EX_INDEP must be set}" "${PN_INDEP:=}"
: "${MPIEXEC:=mpiexec}" "${MPIEXEC_NUMPROC_FLAG:=-n}" "${MPIEXEC_FLAGS:=--oversubscribe}"
: "${NPROCS:=1 2 4}" "${NCDUMP:=ncdump}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$WORKDIR"
passed=0 failed=0
pass() { passed=$((passed + 1)); echo "PASS: $*"; }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }
run() { # np program args...
  local np=$1; shift
  # shellcheck disable=SC2086
  "$MPIEXEC" $MPIEXEC_FLAGS "$MPIEXEC_NUMPROC_FLAG" "$np" "$@"
}
dump() { "$NCDUMP" "$1" | sed 1d; }  # without the line naming the file

for np in $NPROCS; do
  ind="$WORKDIR/${fmt}_np${np}_independent.nc"
  col="$WORKDIR/${fmt}_np${np}_collective_exacdf.nc"
  pn="$WORKDIR/${fmt}_np${np}_collective_pnetcdf.nc"
  run "$np" "$EX_INDEP" "$ind" "$fmt" independent || { fail "np$np: independent run"; continue; }
  run "$np" "$EX_INDEP" "$col" "$fmt" collective || { fail "np$np: exacdf collective run"; continue; }
  if cmp "$ind" "$col"; then pass "np$np $fmt: independent == collective (exacdf), byte for byte"
  else fail "np$np $fmt: independent and collective files differ"; fi
  # every rank's objects are in the file, in rank order
  if [[ "$(dump "$ind" | grep -c 'own_[0-9]*(s_')" == "$np" ]]; then pass "np$np $fmt: $np own_r variables"
  else fail "np$np $fmt: expected $np own_r variables"; dump "$ind"; fi
  if [[ -n "$PN_INDEP" ]]; then
    run "$np" "$PN_INDEP" "$pn" "$fmt" collective || { fail "np$np: PnetCDF run"; continue; }
    if cmp "$ind" "$pn"; then pass "np$np $fmt: independent (exacdf) == collective (PnetCDF), byte for byte"
    else fail "np$np $fmt: exacdf independent file differs from PnetCDF's"; fi
    if diff -u <(dump "$pn") <(dump "$ind"); then pass "np$np $fmt: ncdump output identical"
    else fail "np$np $fmt: ncdump output differs"; fi
  fi
done
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
