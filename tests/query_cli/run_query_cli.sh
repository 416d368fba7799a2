#!/usr/bin/env bash
# `exacdf index` and `exacdf query` on a small CDL file (ncgen): counts and
# first hits printed, the same with and without an index, at 1 and 2 ranks;
# bad expressions and specs fail with a message and exit 1/2.
# Usage: run_query_cli.sh EXACDF_TOOL NCGEN SCRATCH   (MPIEXEC in the environment)
set -euo pipefail
tool=$1 ncgen=$2 dir=$3
mkdir -p "$dir"
cdl=$dir/q.cdl nc=$dir/q.nc
cat > "$cdl" <<'CDL'
netcdf q {
dimensions:
  n = 8 ;
  w = 2 ;
variables:
  float energy(n) ;
  double x(n) ;
  int grid(n, w) ;
data:
  energy = 0.5, 2.0, 1.9, 3.5, NaN, 1.91, 0.1, 2.5 ;
  x = 0.1, 0.4, 0.9, 0.2, 0.3, 0.6, 0.7, 0.45 ;
  grid = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 ;
}
CDL
"$ncgen" -k cdf5 -o "$nc" "$cdl"
fail=0
expect() {  # expect NAME WANT GOT
  if [ "$2" != "$3" ]; then
    echo "FAIL $1:"; echo "--- want"; echo "$2"; echo "--- got"; echo "$3"; fail=1
  fi
}
q() { "${MPIEXEC:-mpiexec}" --oversubscribe -n "$1" "$tool" query "${@:2}" | sed -E 's/ \([0-9.]+ s on [0-9]+ ranks?\)//'; }
want=$'hits: 3\n  (1)  x = 0.4\n  (3)  x = 0.2\n  (7)  x = 0.45'
for np in 1 2; do
  expect "query np$np" "$want" "$(q $np -v x "$nc" 'energy > 1.9 and x < 0.5')"
done
"${MPIEXEC:-mpiexec}" --oversubscribe -n 2 "$tool" index build "$nc" energy 'bins=3;chunk=3' > "$dir/build.txt"
grep -q "index of 3 bins" "$dir/build.txt" || { echo "FAIL build"; cat "$dir/build.txt"; fail=1; }
# Without a spec: an update, which keeps every chunk of a current index.
"${MPIEXEC:-mpiexec}" --oversubscribe -n 2 "$tool" index build "$nc" energy > "$dir/update.txt"
grep -q "made 0 chunks and kept 3" "$dir/update.txt" || { echo "FAIL update"; cat "$dir/update.txt"; fail=1; }
for np in 1 2; do
  expect "indexed query np$np" "$want" "$(q $np -v x "$nc" 'energy > 1.9 and x < 0.5')"
done
expect "not/or" $'hits: 1\n  (4)' "$(q 1 "$nc" 'not (energy <= 2.5 or energy > 3) or energy < 0 and x == 7')"
expect "nan" $'hits: 1\n  (4)' "$(q 2 "$nc" 'energy != 1 and not energy >= -inf')"
expect "2-D" $'hits: 3\n  (6, 1)\n  (7, 0)\n  (7, 1)' "$(q 2 -n 5 "$nc" 'grid >= 14')"
expect "first" $'hits: 3\n  (6, 1)' "$(q 1 -n 1 "$nc" 'grid > 13.5')"
# Errors: a message and a nonzero exit, never a crash.
for bad in 'energy >' 'nosuch > 1' 'energy > 1 and (x < 2' 'energy >> 1'; do
  set +e; "$tool" query "$nc" "$bad" > /dev/null 2> "$dir/err.txt"; rc=$?; set -e
  if [ $rc -ne 1 ] || ! grep -q "exacdf query:" "$dir/err.txt"; then echo "FAIL bad query '$bad' rc=$rc"; fail=1; fi
done
set +e; "$tool" index build "$nc" energy 'bins=0' > /dev/null 2>&1; rc=$?; set -e
[ $rc -eq 1 ] || { echo "FAIL bad spec rc=$rc"; fail=1; }
"$tool" index info "$nc" energy | grep -q current || { echo "FAIL info"; fail=1; }
"$tool" index drop "$nc" energy
"$tool" index info "$nc" energy | grep -q "no index" || { echo "FAIL drop"; fail=1; }
[ $fail -eq 0 ] && echo PASS
exit $fail
