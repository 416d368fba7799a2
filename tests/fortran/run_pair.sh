#!/usr/bin/env bash
# run_pair.sh NP EXACDF_EXE PNETCDF_EXE SCRATCH: runs one Fortran test program built against
# exacdf and against Debian's PnetCDF at NP ranks, each writing its files into its own
# folder, and fails unless both succeed with the same standard output and identical files.
set -euo pipefail
np=$1 exa=$2 pn=$3 dir=$4
mpiexec=${MPIEXEC:-mpiexec}
rm -rf "$dir"
mkdir -p "$dir/exacdf" "$dir/pnetcdf"
run() {
  timeout 120 "$mpiexec" --oversubscribe -n "$np" "$1" "$2" >"$2.out" 2>"$2.err" || {
    echo "run_pair.sh: $1 failed at $np ranks:"; cat "$2.out" "$2.err"; exit 1; }
}
run "$pn" "$dir/pnetcdf"
run "$exa" "$dir/exacdf"
diff -u "$dir/pnetcdf.out" "$dir/exacdf.out"
n=0
for f in "$dir"/pnetcdf/*; do
  cmp "$f" "$dir/exacdf/$(basename "$f")"
  n=$((n + 1))
done
[[ $n -gt 0 ]] || { echo "run_pair.sh: no file written"; exit 1; }
echo "run_pair.sh: same output, $n identical file(s) at $np ranks"
