#!/usr/bin/env bash
# Set up everything exacdf needs to build, test and run its demo on Debian 12:
# Debian packages (compilers, Open MPI, PnetCDF, netCDF and HDF5 tools, GoogleTest, clang for
# fuzzing, gfortran for the Fortran API, CRoaring for query indexes) and a Python venv at
# .venv (numpy, netCDF4, xarray, mpi4py on the system Open MPI, h5py, pytest, nanobind and
# scikit-build-core for the Python package, matplotlib for benchmark plots).
# Idempotent: when everything is in place it only checks and returns in a second or two.
# Exports nothing permanent; scripts/env.sh holds the run-time environment.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

DEB_PACKAGES=(
  cmake g++ make ninja-build pkg-config git
  openmpi-bin libopenmpi-dev
  netcdf-bin pnetcdf-bin libpnetcdf-dev
  libhdf5-openmpi-dev hdf5-tools
  libgtest-dev
  clang libclang-rt-14-dev
  python3 python3-venv python3-dev
  gfortran
  libroaring-dev
)
PY_PACKAGES=(numpy netCDF4 xarray mpi4py h5py pytest nanobind scikit-build-core matplotlib)

log() { printf 'setup: %s\n' "$*" >&2; }

# --- Debian packages ------------------------------------------------------------------------
missing=()
for p in "${DEB_PACKAGES[@]}"; do
  status="$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)"
  [[ "$status" == installed ]] || missing+=("$p")
done
if ((${#missing[@]})); then
  log "installing Debian packages: ${missing[*]}"
  SUDO=()
  if [[ "$(id -u)" != 0 ]]; then
    command -v sudo >/dev/null || { log "not root and no sudo: install ${missing[*]} by hand"; exit 1; }
    SUDO=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${SUDO[@]}" apt-get update -qq
  "${SUDO[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
  log "Debian packages installed"
fi

# --- Python venv --------------------------------------------------------------------------
# Debian's interpreter, not whatever python3 is first on PATH: python3-dev matches it, so
# mpi4py can be built against the system Open MPI when no usable wheel exists.
VENV="$ROOT/.venv"
STAMP="$VENV/.exacdf-setup"
stamp_text="python=$(/usr/bin/python3 -c 'import sys; print(sys.version.split()[0])') packages=${PY_PACKAGES[*]} mpi=$(dpkg-query -W -f='${Version}' libopenmpi-dev)"

venv_ok() {
  [[ -x "$VENV/bin/python" && -f "$STAMP" && "$(cat "$STAMP")" == "$stamp_text" ]]
}

# mpi4py must run on the system Open MPI (the one exacdf links), not a bundled MPI.
mpi4py_ok() {
  local got want
  got="$(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    "$VENV/bin/python" -c 'from mpi4py import MPI; print(MPI.Get_library_version().split(",")[0])' 2>/dev/null)" || return 1
  want="Open MPI v$(ompi_info --parsable --version 2>/dev/null | sed -n 's/^ompi:version:full://p')"
  [[ "$got" == "$want"* ]] || { log "mpi4py uses '$got', want '$want'"; return 1; }
}

if ! venv_ok; then
  log "creating Python venv at $VENV"
  [[ -x "$VENV/bin/python" ]] || /usr/bin/python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check "${PY_PACKAGES[@]}"
  if ! mpi4py_ok; then
    log "building mpi4py from source against the system Open MPI"
    MPICC="$(command -v mpicc)" "$VENV/bin/python" -m pip install -q --disable-pip-version-check \
      --force-reinstall --no-deps --no-binary mpi4py mpi4py
    mpi4py_ok || { log "mpi4py does not work with the system Open MPI"; exit 1; }
  fi
  "$VENV/bin/python" -c 'import numpy, netCDF4, xarray' || { log "venv import check failed"; exit 1; }
  printf '%s' "$stamp_text" >"$STAMP"
  log "venv ready"
fi
