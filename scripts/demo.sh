#!/usr/bin/env bash
# The main job: set up, build and install exacdf into _install/, build examples/demo.c against
# the installed library with mpicc + pkg-config (as a user would), run it with 4 MPI ranks to
# write a CDF-5 dataset and verify it, dump the file with netCDF-C's ncdump, PnetCDF's
# ncmpidump and `exacdf dump`, and read it back in Python with xarray.
# Usage: bash scripts/demo.sh [NSTEPS]     (default 8 time steps)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh
# shellcheck source=env.sh
source scripts/env.sh

NSTEPS="${1:-8}"
PREFIX="$ROOT/_install"
OUT="$PREFIX/demo"
NRANKS=4

banner() { printf '\n=== %s ===\n' "$*"; }

banner "build (build/) and install ($PREFIX)"
mkdir -p build
gen=()
[[ -f build/CMakeCache.txt ]] || gen=("${EXACDF_GENERATOR[@]}")
# The same options as scripts/test.sh, so the two share build/ without rebuilding.
cmake -S . -B build "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEXACDF_WERROR=ON \
  -DEXACDF_SANITIZE=OFF >build/configure.log 2>&1 || { cat build/configure.log; exit 1; }
cmake --build build -j "$EXACDF_JOBS"
cmake --install build --prefix "$PREFIX" >/dev/null
echo "installed into $PREFIX"

banner "compile examples/demo.c against the installed exacdf"
export PKG_CONFIG_PATH="$(dirname "$(find "$PREFIX" -name exacdf.pc -print -quit)")${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
LIBDIR="$(pkg-config --variable=libdir exacdf)"
mkdir -p "$OUT"
echo "mpicc examples/demo.c -o $OUT/demo \$(pkg-config --cflags --libs exacdf) -lm"
# shellcheck disable=SC2046
mpicc -O2 -Werror=implicit-function-declaration examples/demo.c -o "$OUT/demo" $(pkg-config --cflags --libs exacdf) -lm \
  -Wl,-rpath,"$LIBDIR"

banner "run: mpiexec -n $NRANKS demo ($NSTEPS time steps)"
rm -f "$OUT/demo.nc"
mpiexec -n "$NRANKS" --oversubscribe "$OUT/demo" "$OUT/demo.nc" "$NSTEPS"
ls -l "$OUT/demo.nc"

banner "ncdump -h (netCDF-C)"
ncdump -h "$OUT/demo.nc"
if command -v ncmpidump >/dev/null; then
  banner "ncmpidump -h (PnetCDF)"
  ncmpidump -h "$OUT/demo.nc"
fi
if [[ -x "$PREFIX/bin/exacdf" ]]; then
  banner "exacdf dump -h"
  "$PREFIX/bin/exacdf" dump -h "$OUT/demo.nc"
fi

banner "read back with xarray (netCDF4-python)"
"$ROOT/.venv/bin/python" - "$OUT/demo.nc" "$NSTEPS" <<'PY'
import sys
import numpy as np
import xarray as xr

path, nsteps = sys.argv[1], int(sys.argv[2])
with xr.open_dataset(path) as ds:
    print(ds)
    t = ds["temperature"]
    y = np.arange(ds.sizes["y"])[None, :, None]
    x = np.arange(ds.sizes["x"])[None, None, :]
    steps = np.arange(nsteps)[:, None, None]
    expected = (280.0 + steps + 0.5 * y - 0.25 * x).astype(np.float32)
    assert t.shape == (nsteps, ds.sizes["y"], ds.sizes["x"]), t.shape
    assert np.array_equal(t.values, expected), "temperature differs"
    assert list(ds["step"].values) == list(range(nsteps)), "step differs"
    print(f"\ntemperature {t.dims} {t.shape}: mean {float(t.mean()):.3f} {t.attrs['units']}, "
          f"min {float(t.min()):.2f}, max {float(t.max()):.2f}")
    print(f"time: {ds['time'].values[0]} .. {ds['time'].values[-1]}")
    print("xarray: values match what the 4 ranks wrote")
PY

banner "done"
echo "dataset: $OUT/demo.nc"
