#!/usr/bin/env bash
# run_export_hdf5_test.sh PYTHON PROGRAM SCRATCH MPIEXEC [FLAGS...] -n NP: runs the export
# program under mpiexec, then checks its HDF5 files with h5py (check_export_hdf5.py).
set -eu
python=$1 program=$2 scratch=$3
shift 3
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
rm -rf "$scratch"
timeout 240 "$@" "$program" "$scratch"
timeout 60 "$python" "$here/check_export_hdf5.py" "$scratch"
