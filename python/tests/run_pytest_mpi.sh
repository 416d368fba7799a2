#!/usr/bin/env bash
# run_pytest_mpi.sh PYTHON NP SCRATCH MPIEXEC [MPIEXEC FLAGS...]: the Python package's pytest
# suite (python/tests) at NP ranks, every rank running every test in the same order.
# The package must be installed in PYTHON's environment (scripts/test.sh does it, the README's
# set-up too). If it is not, the test fails, unless the user chose to go without it
# (EXACDF_SKIP_PYTHON=1): then it is skipped (exit 77, ctest's SKIP_RETURN_CODE).
# No -x: a rank stopping at its first failure would leave the others waiting in collectives.
set -u
python=${1:?usage: run_pytest_mpi.sh PYTHON NP SCRATCH MPIEXEC [FLAGS...]}
np=$2
scratch=$3
shift 3
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if ! "$python" -c 'import exacdf._core' >/dev/null 2>&1; then
  if [[ "${EXACDF_SKIP_PYTHON:-0}" == 1 ]]; then
    echo "run_pytest_mpi: exacdf is not installed in $python and EXACDF_SKIP_PYTHON=1: skipped"
    exit 77
  fi
  echo "run_pytest_mpi: cannot import exacdf with $python:" >&2
  "$python" -c 'import exacdf._core' >&2
  echo "run_pytest_mpi: install it ($python -m pip install ./python) or set EXACDF_SKIP_PYTHON=1" >&2
  exit 1
fi
mkdir -p "$scratch" || exit 1
cd "$scratch" || exit 1
export EXACDF_PY_TEST_DIR="$scratch"
# The tests must import the installed package, never python/ from the source tree.
unset PYTHONPATH
exec timeout 300 "$@" -n "$np" "$python" -m pytest -q -p no:cacheprovider \
  --rootdir "$here" "$here"
