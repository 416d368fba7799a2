#!/bin/sh
# Regenerates the golden classic-format files in this directory with the
# system PnetCDF (Debian libpnetcdf-dev 1.12.3) and records what PnetCDF
# reports for each (header size, header extent, variable offsets) in
# golden.txt, which test_layout.cpp reads.
set -e
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mpicc -O1 -Wall -o "$tmp/make_golden" "$here/make_golden.c" -lpnetcdf
rm -f "$here"/*.nc
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
  mpiexec --oversubscribe -n 1 "$tmp/make_golden" "$here" > "$here/golden.txt"
echo "wrote $(ls "$here"/*.nc | wc -l) files and golden.txt"
