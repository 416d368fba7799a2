#!/bin/sh
# MPI calls per collective put/get (fixed-size and record variable), for
# PnetCDF and exacdf: bench/collective_mpi_calls.c counts by PMPI.
# Usage: bench/run_collective_mpi_calls.sh [exacdf build dir] [ranks] [extra exacdf lib dir to compare]
set -e
src=$(cd "$(dirname "$0")" && pwd)
build=${1:-$src/../build}; np=${2:-2}; other=$3
out=${TMPDIR:-/tmp}/collective_mpi_calls; mkdir -p "$out"
mpicc -O2 -rdynamic "$src/collective_mpi_calls.c" -o "$out/calls_pnetcdf" -lpnetcdf
mpicc -O2 -rdynamic "$src/collective_mpi_calls.c" -o "$out/calls_exacdf" -I"$src/../include" \
  -L"$build" -lexacdf -Wl,-rpath,"$build"
echo "== PnetCDF ($np ranks)"; mpiexec -n "$np" "$out/calls_pnetcdf" "$out"
echo "== exacdf $build ($np ranks)"; mpiexec -n "$np" "$out/calls_exacdf" "$out"
if [ -n "$other" ]; then
  echo "== exacdf $other ($np ranks)"; LD_LIBRARY_PATH="$other" mpiexec -x LD_LIBRARY_PATH -n "$np" \
    sh -c "LD_LIBRARY_PATH=$other exec \"$out/calls_exacdf\" \"$out\""
fi
