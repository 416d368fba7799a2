#!/usr/bin/env bash
# run_differential.sh FORMAT -- one program, two libraries: the same PnetCDF user program
# built against exacdf (EX_PROGRAM) and against the system PnetCDF (PN_PROGRAM), run at
# NPROCS ranks writing a FORMAT (1, 2, 5) file. Its standard output (return codes, values
# read back, inquiries) and the ncdump of the file must be the same. Ends with
# "N passed, N failed"; exits non-zero on any difference.
set -u
fmt=${1:?usage: run_differential.sh 1|2|5}
: "${EX_PROGRAM:?}" "${PN_PROGRAM:?}" "${WORKDIR:?}"
: "${MPIEXEC:=mpiexec}" "${MPIEXEC_NUMPROC_FLAG:=-n}" "${MPIEXEC_FLAGS:=--oversubscribe}"
: "${NPROCS:=1 2 4}" "${NCDUMP:=ncdump}"
mkdir -p "$WORKDIR"
passed=0
failed=0
check() {  # check NAME FILE-A FILE-B
  if diff -u "$2" "$3" >"$WORKDIR/diff.txt"; then
    echo "PASS: $1"
    passed=$((passed + 1))
  else
    echo "FAIL: $1 (exacdf: -, PnetCDF: +)"
    head -80 "$WORKDIR/diff.txt"
    failed=$((failed + 1))
  fi
}
for np in $NPROCS; do
  for lib in ex pn; do
    prog=$EX_PROGRAM
    [[ $lib == pn ]] && prog=$PN_PROGRAM
    # shellcheck disable=SC2086
    "$MPIEXEC" $MPIEXEC_FLAGS "$MPIEXEC_NUMPROC_FLAG" "$np" "$prog" "$WORKDIR/$lib.nc" "$fmt" \
      >"$WORKDIR/$lib.out" 2>"$WORKDIR/$lib.err"
    echo "exit $?" >>"$WORKDIR/$lib.out"
    # The file's name is the only line that may differ.
    "$NCDUMP" "$WORKDIR/$lib.nc" 2>&1 | sed 1d >"$WORKDIR/$lib.cdl"
  done
  check "CDF-$fmt at $np ranks: standard output" "$WORKDIR/ex.out" "$WORKDIR/pn.out"
  check "CDF-$fmt at $np ranks: ncdump" "$WORKDIR/ex.cdl" "$WORKDIR/pn.cdl"
done
echo "$passed passed, $failed failed"
((failed == 0))
