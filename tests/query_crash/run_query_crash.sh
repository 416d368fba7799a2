#!/usr/bin/env bash
# The index sidecar's header rewrite killed by SIGKILL at every I/O event
# (tests/query_crash/query_crash.c says what is checked): a reference run
# counts the events E of the writer from its first query on; then for each
# k = 1..E a fresh copy of one indexed file, a writer that must die at its kth event,
# and a check run on what it left.
#   run_query_crash.sh QUERY_CRASH WORKDIR
# Environment: MPIEXEC, MPIEXEC_NUMPROC_FLAG, MPIEXEC_FLAGS.
set -u
bin=${1:?usage: run_query_crash.sh QUERY_CRASH WORKDIR}
work=${2:?usage: run_query_crash.sh QUERY_CRASH WORKDIR}
: "${MPIEXEC:=mpiexec}" "${MPIEXEC_NUMPROC_FLAG:=-n}" "${MPIEXEC_FLAGS:=--oversubscribe}"
run() { # args...
  # shellcheck disable=SC2086
  "$MPIEXEC" $MPIEXEC_FLAGS "$MPIEXEC_NUMPROC_FLAG" 1 "$@"
}
rm -rf "$work"; mkdir -p "$work"
failed=0
# One indexed file, copied (with its sidecar) for every run.
run "$bin" setup "$work/base.nc" || { echo "FAIL: setup"; exit 1; }
# (-p: the data file's mtime is part of the fingerprint that ties the sidecar to it)
fresh() { cp -p "$work/base.nc" "$1" && cp -p "$work/base.nc.exaidx.0" "$1.exaidx.0"; }
fresh "$work/ref.nc" || exit 1
out=$(run "$bin" write "$work/ref.nc") || { echo "FAIL: the reference writer"; exit 1; }
events=$(echo "$out" | sed -n 's/^events //p')
[ "${events:-0}" -gt 0 ] || { echo "FAIL: the reference writer logged no events"; exit 1; }
run "$bin" check "$work/ref.nc" || failed=1
echo "$events kill points"
for k in $(seq 1 "$events"); do
  f="$work/k$k.nc"
  fresh "$f" || { echo "FAIL: copy $k"; failed=1; continue; }
  if run "$bin" write "$f" "$k" >/dev/null 2>&1; then echo "FAIL: the writer was not killed at event $k"; failed=1; fi
  run "$bin" check "$f" || { echo "FAIL: check after a kill at event $k"; failed=1; }
done
[ "$failed" -eq 0 ] && echo "PASS" || echo "FAIL"
exit "$failed"
