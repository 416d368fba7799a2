#!/usr/bin/env bash
# run_python_slabs.sh: issue 22's benchmark -- a [NZ, NY, NX] float32 field written and read
# by slabs at RANKS through the Python package (bench/python_slabs.py), the same calls in C
# (bench/python_slabs_c.c against build/libexacdf), and netCDF4-python and h5py (serial).
# Knobs: SHAPE="1024 512 512" RANKS="1 2 4" REPS=3 DIR=$TMPDIR PYTHON=.venv/bin/python
# BUILD=build (its libexacdf.so), or LINK="<link flags>" for the C program (e.g. the static
# library of the Python package's build tree, the same Release build the package links). Prints JSON lines (the best of REPS per configuration) to stdout.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/env.sh"
SHAPE=${SHAPE:-1024 512 512}
RANKS=${RANKS:-1 2 4}
REPS=${REPS:-3}
DIR=${DIR:-${TMPDIR:-/tmp}}
PYTHON=${PYTHON:-$ROOT/.venv/bin/python}
BUILD=${BUILD:-$ROOT/build}
cbin="$DIR/python_slabs_c"
LINK=${LINK:--L$BUILD -lexacdf -Wl,-rpath,$BUILD}
# shellcheck disable=SC2086
mpicc -O2 "$ROOT/bench/python_slabs_c.c" -o "$cbin" -I"$ROOT/include" $LINK -lstdc++
best() {  # best of REPS runs of a command printing one JSON line (by write + read time)
  "$PYTHON" - "$@" <<'PY'
import json, subprocess, sys, os
reps = int(os.environ.get("REPS", "3"))
runs = [json.loads(subprocess.run(sys.argv[1:], check=True, capture_output=True, text=True)
                   .stdout.strip().splitlines()[-1]) for _ in range(reps)]
print(json.dumps(min(runs, key=lambda r: r["write_s"] + r["read_s"])))
PY
}
export REPS
for np in $RANKS; do
  best mpiexec -n "$np" "$PYTHON" "$ROOT/bench/python_slabs.py" --lib exacdf --shape $SHAPE --dir "$DIR"
  best mpiexec -n "$np" "$cbin" $SHAPE "$DIR/python_slabs_c.nc"
done
rm -f "$DIR/python_slabs_c.nc"
best "$PYTHON" "$ROOT/bench/python_slabs.py" --lib netcdf4 --shape $SHAPE --dir "$DIR"
best "$PYTHON" "$ROOT/bench/python_slabs.py" --lib h5py --shape $SHAPE --dir "$DIR"
