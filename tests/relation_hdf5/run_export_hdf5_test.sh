#!/usr/bin/env bash
# run_export_hdf5_test.sh PYTHON PROGRAM EXACDF_TOOL SCRATCH MPIEXEC [FLAGS...] -n NP: runs the
# export program under mpiexec, then `exacdf export-hdf5` on the same file and checkpoint, then
# checks both sets of HDF5 files with h5py (check_export_hdf5.py).
set -eu
python=$1 program=$2 tool=$3 scratch=$4
shift 4
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
rm -rf "$scratch"
timeout 240 "$@" "$program" "$scratch"
timeout 120 "$@" "$tool" export-hdf5 "$scratch/relations.nc" "$scratch/cmd_relations.h5"
timeout 120 "$@" "$tool" export-hdf5 "$scratch/ck" "$scratch/cmd_checkpoint.h5"
if timeout 60 "$@" "$tool" export-hdf5 "$scratch/ck" "$scratch/x.h5" T 2>/dev/null; then
  echo "export-hdf5 of a checkpoint with relation names should be refused" >&2; exit 1
fi
timeout 60 "$python" "$here/check_export_hdf5.py" "$scratch" cmd_
