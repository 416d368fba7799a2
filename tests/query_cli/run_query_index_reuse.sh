#!/usr/bin/env bash
# Index commits that reuse space in a partitioned file with records (issue
# 20): test_query_index_reuse writes reuse.exa (an index updated at every
# round) and plain.exa (the same puts, no index); then `exacdf verify`
# accepts reuse.exa (no two blocks overlap, every CRC holds), and the CDF-5
# copies of both read the same in ncdump (every record where it was, no
# trace of the index); then the same writer killed (SIGKILL) at every I/O
# event of an index commit that reuses space leaves a file that verifies and
# reads right.
# Usage: run_query_index_reuse.sh TEST_PROGRAM EXACDF_TOOL NCDUMP SCRATCH   (MPIEXEC in the environment)
set -euo pipefail
prog=$1 tool=$2 ncdump=$3 dir=$4
mkdir -p "$dir"
run() { local np=$1; shift; "${MPIEXEC:-mpiexec}" --oversubscribe -n "$np" "$@"; }
fail=0
run 2 "$prog" "$dir" > "$dir/test.txt" || { echo "FAIL test_query_index_reuse"; cat "$dir/test.txt"; exit 1; }
for np in 1 2; do
  out=$(run $np "$tool" verify "$dir/reuse.exa" 2>&1) || { echo "FAIL verify np$np: $out"; fail=1; }
done
run 2 "$tool" convert -q -f cdf5 "$dir/reuse.exa" "$dir/reuse.nc"
run 2 "$tool" convert -q -f cdf5 "$dir/plain.exa" "$dir/plain.nc"
want=$("$ncdump" "$dir/plain.nc" | sed 1d) got=$("$ncdump" "$dir/reuse.nc" | sed 1d)
if [ "$want" != "$got" ]; then
  echo "FAIL ncdump of the CDF-5 copies differs"; diff <(echo "$want") <(echo "$got") | head -20; fail=1
fi
[ -n "$want" ] || { echo "FAIL empty ncdump"; fail=1; }
# Kill -9 at every I/O event of an update that writes into released space:
# what is left opens at a valid generation whose values and queries are
# right (the next writer takes over), and verifies.
crash() { EXA_REUSE_CRASH=$1 run 1 "$prog" "$dir/crash"; }
events=$(crash 0 | sed -n 's/^events //p')
[ "${events:-0}" -gt 0 ] || { echo "FAIL: the crash reference run"; fail=1; events=0; }
for k in $(seq 1 "$events"); do
  if crash "$k" > /dev/null 2>&1; then echo "FAIL: the writer was not killed at event $k"; fail=1; fi
  run 1 "$tool" verify "$dir/crash/crash.exa" > /dev/null 2>&1 || { echo "FAIL: verify after a kill at event $k"; fail=1; }
  crash check > "$dir/check.txt" 2>&1 || { echo "FAIL: check after a kill at event $k"; cat "$dir/check.txt"; fail=1; }
done
echo "$events kill points"
[ $fail -eq 0 ] && echo PASS
exit $fail
