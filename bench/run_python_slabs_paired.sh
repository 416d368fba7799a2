#!/usr/bin/env bash
# run_python_slabs_paired.sh: paired runs of issue 22's slab benchmark -- the Python package
# and the same calls in C (bench/python_slabs_c.c, built by run_python_slabs.sh) run one after
# the other, PAIRS times per rank count, so the ratio python/C of each pair sees the same
# machine. Prints one JSON line per pair. Extra env for the Python runs: PYENV="-x NAME=value"
# (e.g. PYENV="-x NUMPY_MADVISE_HUGEPAGE=0", see docs/perf/python.md).
# Knobs: SHAPE="1024 512 512" RANKS="2 4" PAIRS=5 DIR=$TMPDIR PYTHON=.venv/bin/python
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/env.sh"
SHAPE=${SHAPE:-1024 512 512}
RANKS=${RANKS:-2 4}
PAIRS=${PAIRS:-5}
DIR=${DIR:-${TMPDIR:-/tmp}}
PYTHON=${PYTHON:-$ROOT/.venv/bin/python}
PYENV=${PYENV:-}
cbin="$DIR/python_slabs_c"
[[ -x $cbin ]] || { echo "run bench/run_python_slabs.sh first (it builds $cbin)" >&2; exit 2; }
for np in $RANKS; do
  for ((i = 1; i <= PAIRS; i++)); do
    # shellcheck disable=SC2086
    p=$(mpiexec -n "$np" $PYENV "$PYTHON" "$ROOT/bench/python_slabs.py" --lib exacdf --shape $SHAPE --dir "$DIR" | tail -1)
    # shellcheck disable=SC2086
    c=$(mpiexec -n "$np" "$cbin" $SHAPE "$DIR/python_slabs_c.nc" | tail -1)
    echo "{\"np\": $np, \"pyenv\": \"$PYENV\", \"py\": $p, \"c\": $c}"
  done
done
rm -f "$DIR/python_slabs_c.nc"
