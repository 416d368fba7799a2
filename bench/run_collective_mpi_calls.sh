#!/bin/sh
# MPI calls per collective put/get (fixed-size and record variable), and per
# phase of a small file's life (create .. close, open .. close), for PnetCDF
# and exacdf: bench/collective_mpi_calls.c counts by PMPI.
# Usage: bench/run_collective_mpi_calls.sh [exacdf build dir] [ranks] [extra exacdf lib dir to compare]
# LIFECYCLE_ONLY=1: only the phases, as one table (PnetCDF | exacdf [| extra]).
set -e
src=$(cd "$(dirname "$0")" && pwd)
build=${1:-$src/../build}; np=${2:-2}; other=$3
out=${TMPDIR:-/tmp}/collective_mpi_calls; mkdir -p "$out"
mpicc -O2 -rdynamic "$src/collective_mpi_calls.c" -o "$out/calls_pnetcdf" -lpnetcdf
mpicc -O2 -rdynamic "$src/collective_mpi_calls.c" -o "$out/calls_exacdf" -I"$src/../include" \
  -L"$build" -lexacdf -Wl,-rpath,"$build"
run() {  # label, program, [lib dir]
  if [ -n "$3" ]; then
    LD_LIBRARY_PATH="$3" mpiexec -x LD_LIBRARY_PATH -x LIFECYCLE_ONLY -n "$np" \
      sh -c "LD_LIBRARY_PATH=$3 exec \"$2\" \"$out\"" > "$out/$1.txt"
  else
    mpiexec -x LIFECYCLE_ONLY -n "$np" "$2" "$out" > "$out/$1.txt"
  fi
}
run pnetcdf "$out/calls_pnetcdf"
run exacdf "$out/calls_exacdf"
files="$out/pnetcdf.txt $out/exacdf.txt"
if [ -n "$other" ]; then run other "$out/calls_exacdf" "$other"; files="$files $out/other.txt"; fi
if [ -z "$LIFECYCLE_ONLY" ]; then
  echo "== PnetCDF ($np ranks)"; grep -v '^lifecycle' "$out/pnetcdf.txt"
  echo "== exacdf $build ($np ranks)"; grep -v '^lifecycle' "$out/exacdf.txt"
  if [ -n "$other" ]; then echo "== exacdf $other ($np ranks)"; grep -v '^lifecycle' "$out/other.txt"; fi
fi
# The phases side by side: collective calls of rank 0, then what they were.
echo "== collective MPI calls per phase, rank 0, $np ranks: PnetCDF | exacdf $build${other:+ | exacdf $other}"
for f in $files; do grep '^lifecycle' "$f" | sed 's/^lifecycle //' > "$f.life"; done
awk -F'|' '
  FNR == 1 { file++ }
  { key = substr($1, 1, 24); count = $1; sub(/.* coll +/, "", count); gsub(/ /, "", count);
    if (file == 1) { order[++n] = key }
    cell[key, file] = count " (" substr($2, 2) ")" }
  END { for (i = 1; i <= n; i++) { line = order[i];
          for (f = 1; f <= file; f++) line = line " | " cell[order[i], f];
          print line } }' $(for f in $files; do printf '%s.life ' "$f"; done)
