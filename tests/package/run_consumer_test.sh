#!/usr/bin/env bash
# Install a built exacdf into a scratch prefix and build + run programs against the installed
# copy: through find_package(exacdf) (shared and static) and through pkg-config (mpicc, and a
# plain C compiler). Each program runs at 1 rank.
# Usage: run_consumer_test.sh BUILD_DIR [WORK_DIR]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="$(cd "$1" && pwd)"
work="${2:-$build/package-test}"
rm -rf "$work"
mkdir -p "$work"
prefix="$work/prefix"

step() { printf 'package: %s\n' "$*"; }

step "install into $prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
pcdir="$(dirname "$(find "$prefix" -name exacdf.pc -print -quit)")"
[[ -f "$pcdir/exacdf.pc" ]] || { echo "package: exacdf.pc not installed" >&2; exit 1; }
[[ -n "$(find "$prefix" -name exacdfConfig.cmake -print -quit)" ]] \
  || { echo "package: exacdfConfig.cmake not installed" >&2; exit 1; }

mpirun1() { mpiexec -n 1 "$@"; }

step "find_package(exacdf) consumer"
cmake -S "$here" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
  >"$work/cmake-configure.log" || { cat "$work/cmake-configure.log"; exit 1; }
cmake --build "$work/cmake" >"$work/cmake-build.log" 2>&1 || { cat "$work/cmake-build.log"; exit 1; }
mpirun1 "$work/cmake/consumer_shared" "$work/cmake_shared.nc"
mpirun1 "$work/cmake/consumer_static" "$work/cmake_static.nc"

step "pkg-config consumer (mpicc)"
export PKG_CONFIG_PATH="$pcdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
libdir="$(pkg-config --variable=libdir exacdf)"
# shellcheck disable=SC2046
mpicc "$here/consumer.c" -o "$work/consumer_pc" $(pkg-config --cflags --libs exacdf)
LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" mpirun1 "$work/consumer_pc" "$work/pc.nc"

if [[ -n "$(pkg-config --print-requires exacdf)" ]]; then
  step "pkg-config consumer (cc, MPI flags from pkg-config)"
  # shellcheck disable=SC2046
  cc "$here/consumer.c" -o "$work/consumer_pc_cc" $(pkg-config --cflags --libs exacdf) -Wl,-rpath,"$libdir"
  mpirun1 "$work/consumer_pc_cc" "$work/pc_cc.nc"
fi
if [[ -f "$pcdir/exacdf-fortran.pc" ]] && command -v mpifort >/dev/null; then
  step "pkg-config consumer (mpifort, exacdf-fortran)"
  # shellcheck disable=SC2046
  mpifort "$here/consumer.f90" -o "$work/consumer_f" $(pkg-config --cflags --libs exacdf-fortran) \
    -Wl,-rpath,"$libdir"
  mpirun1 "$work/consumer_f" "$work/fortran.nc"
fi
if [[ -n "$(find "$prefix" -name exacdfFortranTargets.cmake -print -quit)" ]]; then
  step "find_package(exacdf) Fortran consumer (exacdf::fortran)"
  cmake -S "$here/fortran" -B "$work/cmake-fortran" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_BUILD_TYPE=Release >"$work/cmake-fortran-configure.log" \
    || { cat "$work/cmake-fortran-configure.log"; exit 1; }
  cmake --build "$work/cmake-fortran" >"$work/cmake-fortran-build.log" 2>&1 \
    || { cat "$work/cmake-fortran-build.log"; exit 1; }
  mpirun1 "$work/cmake-fortran/consumer_fortran" "$work/cmake_fortran.nc"
fi
step "all consumers passed"
