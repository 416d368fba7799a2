#!/usr/bin/env bash
# with_mpi_session_dir.sh DIR COMMAND [ARGS...]: runs COMMAND (mpiexec, or a
# script that starts mpiexec) with Open MPI's session directory under DIR,
# which it creates. ctest gives every test its own DIR: two mpiexec started at
# the same moment by `ctest -j` would otherwise race to create the shared
# $TMPDIR/ompi.<host>.<uid>, and the one that loses fails ("A call to mkdir
# was unable to create the desired directory ... File exists").
set -u
dir=${1:?usage: with_mpi_session_dir.sh DIR COMMAND [ARGS...]}
shift
mkdir -p "$dir" || exit 1
export OMPI_MCA_orte_tmpdir_base="$dir"  # Open MPI 4 (orterun)
export PRTE_MCA_prte_tmpdir_base="$dir"  # Open MPI 5 (prterun)
exec "$@"
