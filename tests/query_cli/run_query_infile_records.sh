#!/usr/bin/env bash
# Index blocks inside a partitioned file WITH records, from the command line
# (issue 20): `exacdf index build` writes the index into the file and moves
# the current record section past it (docs/format.md "Index blocks"); the
# file verifies, queries answer as on the classic original, and the CDF-5
# copy reads in ncdump exactly as the original (every record where it was).
# Usage: run_query_infile_records.sh EXACDF_TOOL NCGEN NCDUMP SCRATCH   (MPIEXEC in the environment)
set -euo pipefail
tool=$1 ncgen=$2 ncdump=$3 dir=$4
mkdir -p "$dir"
cdl=$dir/r.cdl nc=$dir/r.nc exa=$dir/r.exa
rm -f "$exa" "$exa".exaidx.*
cat > "$cdl" <<'CDL'
netcdf r {
dimensions:
  t = UNLIMITED ;
  w = 2 ;
variables:
  float energy(t) ;
    energy:units = "MeV" ;
  double x(t) ;
  int grid(t, w) ;
  short fixed(w) ;
data:
  energy = 0.5, 2.0, 1.9, 3.5, NaN, 1.91, 0.1, 2.5 ;
  x = 0.1, 0.4, 0.9, 0.2, 0.3, 0.6, 0.7, 0.45 ;
  grid = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 ;
  fixed = 7, 9 ;
}
CDL
"$ncgen" -k cdf5 -o "$nc" "$cdl"
run() { local np=$1; shift; "${MPIEXEC:-mpiexec}" --oversubscribe -n "$np" "$tool" "$@"; }
fail=0
expect() {  # expect NAME WANT GOT
  if [ "$2" != "$3" ]; then
    echo "FAIL $1:"; echo "--- want"; echo "$2"; echo "--- got"; echo "$3"; fail=1
  fi
}
q() { run "$1" query "${@:2}" | sed -E 's/ \([0-9.]+ s on [0-9]+ ranks?\)//'; }
run 1 convert -q -f partitioned "$nc" "$exa"
want=$'hits: 3\n  (1)  x = 0.4\n  (3)  x = 0.2\n  (7)  x = 0.45'
run 2 index build "$exa" energy 'bins=3;chunk=3' > "$dir/build.txt"
grep -q "current" "$dir/build.txt" || { echo "FAIL build not current"; cat "$dir/build.txt"; fail=1; }
ls "$exa".exaidx.* > /dev/null 2>&1 && { echo "FAIL: a sidecar was written"; ls "$exa".exaidx.*; fail=1; }
run 2 index build "$exa" grid 'bins=4;chunk=2' > /dev/null
for np in 1 2; do
  out=$(run $np verify "$exa" 2>&1) || { echo "FAIL verify np$np: $out"; fail=1; }
  expect "indexed query np$np" "$want" "$(q $np -v x "$exa" 'energy > 1.9 and x < 0.5')"
  expect "2-D np$np" $'hits: 3\n  (6, 1)\n  (7, 0)\n  (7, 1)' "$(q $np -n 5 "$exa" 'grid >= 14')"
done
run 2 index build "$exa" energy > "$dir/update.txt"
grep -q "made 0 chunks and kept 3" "$dir/update.txt" || { echo "FAIL update"; cat "$dir/update.txt"; fail=1; }
run 2 convert -q -f cdf5 "$exa" "$dir/back.nc"
expect "ncdump" "$("$ncdump" "$nc" | sed 1d)" "$("$ncdump" "$dir/back.nc" | sed 1d)"
if run 1 dump "$exa" | grep -q exaidx; then echo "FAIL: exacdf dump shows an index name"; fail=1; fi
run 1 index drop "$exa" energy
run 1 verify "$exa" > /dev/null || { echo "FAIL verify after drop"; fail=1; }
run 2 convert -q -f cdf5 "$exa" "$dir/back2.nc"
expect "ncdump after drop" "$("$ncdump" "$nc" | sed 1d)" "$("$ncdump" "$dir/back2.nc" | sed 1d)"
expect "query after drop" "$want" "$(q 2 -v x "$exa" 'energy > 1.9 and x < 0.5')"
[ $fail -eq 0 ] && echo PASS
exit $fail
