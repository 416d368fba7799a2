#!/usr/bin/env bash
# The partitioned format end to end, through the `exacdf` tool: every CDL file
# is made CDF-5 by ncgen, converted to the partitioned format (`exacdf convert`,
# at each rank count), verified (`exacdf verify`), converted back to CDF-5,
# and again to partitioned. ncdump of the round trip equals ncdump of the
# original; `exacdf dump` of the partitioned file prints the same; the two
# partitioned files are byte-identical. A damaged block fails `verify`.
#
#   run_partitioned_convert.sh CDL_DIR
# Environment: EXACDF_TOOL (required), WORKDIR, NCGEN, NCDUMP, MPIEXEC,
# MPIEXEC_NUMPROC_FLAG, MPIEXEC_FLAGS, NPROCS (default "1 2 4": for the CDL
# files in FULL; the others run at 2 ranks, each start of mpiexec costing
# about half a second).
set -u
cdl_dir=${1:?usage: run_partitioned_convert.sh CDL_DIR}
: "${EXACDF_TOOL:?}" "${WORKDIR:?}" "${NCGEN:=ncgen}" "${NCDUMP:=ncdump}"
: "${MPIEXEC:=mpiexec}" "${MPIEXEC_NUMPROC_FLAG:=-n}" "${MPIEXEC_FLAGS:=--oversubscribe}" "${NPROCS:=1 2 4}"
: "${FULL:=interop_all_types records scalars_ext multidim}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$WORKDIR"
passed=0 failed=0
pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }
tool() { # np args...
  local np=$1; shift
  # shellcheck disable=SC2086
  "$MPIEXEC" $MPIEXEC_FLAGS "$MPIEXEC_NUMPROC_FLAG" "$np" "$EXACDF_TOOL" "$@"
}
for cdl in "$cdl_dir"/*.cdl; do
  name=$(basename "$cdl" .cdl)
  in="$WORKDIR/$name.nc"
  "$NCGEN" -k nc5 -o "$in" "$cdl" 2>/dev/null || continue  # CDL valid in CDF-5 only
  "$NCDUMP" "$in" | sed 1d > "$WORKDIR/$name.want"
  nps=2
  [[ " $FULL " == *" $name "* ]] && nps=$NPROCS
  for np in $nps; do
    p1="$WORKDIR/${name}_np$np.p" back="$WORKDIR/${name}_np$np.back.nc" p2="$WORKDIR/${name}_np$np.p2"
    if ! tool "$np" convert -q -f partitioned "$in" "$p1"; then fail "$name np$np: convert to partitioned"; continue; fi
    if tool "$np" verify "$p1" > /dev/null; then pass; else fail "$name np$np: verify"; fi
    if grep -q "partitioned, version 1" <<<"$(tool "$np" stat "$p1")"; then pass; else fail "$name np$np: stat"; fi
    if ! tool "$np" convert -q -f cdf5 "$p1" "$back"; then fail "$name np$np: convert back"; continue; fi
    if diff -u "$WORKDIR/$name.want" <("$NCDUMP" "$back" | sed 1d); then pass; else fail "$name np$np: ncdump after the round trip"; fi
    if diff -u "$WORKDIR/$name.want" <(tool 1 dump "$p1" | sed 1d); then pass; else fail "$name np$np: exacdf dump of the partitioned file"; fi
    if tool "$np" convert -q "$back" "$p2" && cmp -s "$p1" "$p2"; then pass; else fail "$name np$np: partitioned -> cdf5 -> partitioned differs"; fi
  done
done
# A damaged metadata block: verify names the problem and fails, on every rank count.
damaged="$WORKDIR/damaged.p"
cp "$WORKDIR/interop_all_types_np2.p" "$damaged"
printf 'X' | dd of="$damaged" bs=1 seek=4200 conv=notrunc 2>/dev/null
for np in $NPROCS; do
  if out=$(tool "$np" verify "$damaged" 2>&1); then fail "verify accepted a damaged block"
  elif grep -q "Problem with file metadata" <<<"$out"; then pass
  else fail "verify of a damaged block: $out"; fi
done
echo "$passed passed, $failed failed"
[[ $failed -eq 0 && $passed -gt 0 ]]
