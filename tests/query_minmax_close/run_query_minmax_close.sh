#!/usr/bin/env bash
# Min/max kept beyond the close (tests/query_minmax_close/query_minmax_close.c
# says what each step checks), at NP ranks: written, closed, and checked by
# a new process that reopens the file; then a rewrite of two chunks killed by
# SIGKILL at every I/O event from its puts through its close (partitioned:
# the close's commit of the records), each damaged file checked.
#   run_query_minmax_close.sh BIN WORKDIR NP
# Environment: MPIEXEC, MPIEXEC_NUMPROC_FLAG, MPIEXEC_FLAGS.
set -u
bin=${1:?usage: run_query_minmax_close.sh BIN WORKDIR NP}
work=${2:?usage} np=${3:?usage}
: "${MPIEXEC:=mpiexec}" "${MPIEXEC_NUMPROC_FLAG:=-n}" "${MPIEXEC_FLAGS:=--oversubscribe}"
export EXACDF_QUERY_MINMAX_CHUNK=512
unset EXACDF_QUERY_MINMAX EXACDF_QUERY_SIDECAR
run() { # args...
  # shellcheck disable=SC2086
  "$MPIEXEC" $MPIEXEC_FLAGS "$MPIEXEC_NUMPROC_FLAG" "$np" "$bin" "$@"
}
put() { EXACDF_QUERY_MINMAX=put run "$@"; }
rm -rf "$work"; mkdir -p "$work"
failed=0
fail() { echo "FAIL: $*"; failed=1; }
sidecars() { ls "$1".exaidx.* 2>/dev/null | wc -l; }

# Partitioned, EXACDF_QUERY_MINMAX=put: the records inside the file, none beside it.
p=$work/part.nc
put write "$p" part || fail "write part"
[ "$(sidecars "$p")" -eq 0 ] || fail "a sidecar beside the partitioned file"
run check "$p" part 8 || fail "check part"
# A new writer rewrites chunks 2 and 5: the close's commit
# replaces the records of both variables.
cp -p "$p" "$work/part_ref.nc"
put rewrite "$p" part >/dev/null || fail "rewrite part"
run check "$p" part 8 || fail "check part after the rewrite"
[ "$(sidecars "$p")" -eq 0 ] || fail "a sidecar beside the partitioned file after the rewrite"

# Partitioned with the default (unset: "put"): the records inside the file too.
q=$work/part_default.nc
run write "$q" part || fail "write part (default)"
[ "$(sidecars "$q")" -eq 0 ] || fail "a sidecar beside the partitioned file (default)"
run check "$q" part 8 || fail "check part (default)"
# "queried" and "off" selected: no put took a range, no record, queries scan.
for mode in queried off; do
  q=$work/part_$mode.nc
  EXACDF_QUERY_MINMAX=$mode run write "$q" part || fail "write part ($mode)"
  [ "$(sidecars "$q")" -eq 0 ] || fail "a sidecar beside the partitioned file ($mode)"
  run check "$q" part 0 || fail "check part ($mode)"
done

# CDF-5 with EXACDF_QUERY_MINMAX=put: min/max record sidecars, trusted by a new process.
c=$work/cdf5.nc
put write "$c" cdf5 || fail "write cdf5"
[ "$(sidecars "$c")" -eq 2 ] || fail "cdf5: $(sidecars "$c") sidecars, want 2"
run check "$c" cdf5 8 || fail "check cdf5"
# Without the setting, a writer extends the records already there.
run rewrite "$c" cdf5 >/dev/null || fail "rewrite cdf5"
run check "$c" cdf5 8 || fail "check cdf5 after the rewrite"

# CDF-5 without the setting (the default, "put") and without a sidecar: none
# made -- exacdf leaves no file beside a classic one unless asked.
d=$work/plain.nc
run write "$d" cdf5 || fail "write plain"
[ "$(sidecars "$d")" -eq 0 ] || fail "plain cdf5: a sidecar nobody asked for"
run check "$d" cdf5 0 || fail "check plain"

# The rewrite of the partitioned file killed at every I/O event.
cp -p "$work/part_ref.nc" "$work/ref.nc"
out=$(put rewrite "$work/ref.nc" part) || fail "the reference rewrite"
events=$(echo "$out" | sed -n 's/^events //p')
[ "${events:-0}" -gt 0 ] || { echo "FAIL: the reference rewrite logged no events"; exit 1; }
echo "$events kill points"
new=0 none=0
for k in $(seq 1 "$events"); do
  f=$work/k$k.nc
  cp -p "$work/part_ref.nc" "$f" || { fail "copy $k"; continue; }
  if put rewrite "$f" part "$k" >/dev/null 2>&1; then fail "the writer was not killed at event $k"; fi
  # The new records, or none trusted (the old ones, which the writer's open
  # marked writer-open: readers scan) -- never old bounds over new values.
  r=$(run check "$f" part 8 0) || fail "check after a kill at event $k"
  echo "k=$k: $r"
done
[ "$failed" -eq 0 ] && echo "PASS" || echo "FAIL"
exit "$failed"
