#!/usr/bin/env bash
# The whole test suite, as CI runs it (.ci/run):
#   1. set-up (scripts/setup.sh), then a RelWithDebInfo build in build/ with warnings as
#      errors and every ctest test: unit, MPI at 1/2/4 ranks, interop, package consumers;
#   2. an AddressSanitizer + UBSan build in build-asan/ running the unit and MPI tests
#      (interop, oracle and package tests exercise the same code paths and the peers'
#      tools, so they run only in build/; leak detection off under mpiexec: Open MPI
#      itself leaks), plus the unit tests again with leak detection on;
#   3. the libFuzzer targets (tests/fuzz, clang) in build-fuzz/, each for
#      EXACDF_FUZZ_SECONDS (default 60) seconds, if any exist.
# Prints ctest's summaries, ends with one "N passed, N failed" line, exits non-zero on any
# failure. Knobs: EXACDF_JOBS (default: all cores), EXACDF_FUZZ_SECONDS,
# EXACDF_SKIP_ASAN=1, EXACDF_SKIP_FUZZ=1.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh || { echo "test.sh: setup failed" >&2; exit 1; }
# shellcheck source=env.sh
source scripts/env.sh

FUZZ_SECONDS="${EXACDF_FUZZ_SECONDS:-60}"
passed=0
failed=0
failures=()
start_all=$SECONDS

banner() { printf '\n=== %s ===\n' "$*"; }
fail() { failures+=("$1"); failed=$((failed + 1)); }

# configure DIR ARGS...: configure a build tree (generator chosen only on first configure).
configure() {
  local dir="$1"
  shift
  local gen=()
  [[ -f "$dir/CMakeCache.txt" ]] || gen=("${EXACDF_GENERATOR[@]}")
  cmake -S "$ROOT" -B "$dir" "${gen[@]}" "$@" >"$dir/configure.log" 2>&1 \
    || { cat "$dir/configure.log"; return 1; }
}

build() { cmake --build "$1" -j "$EXACDF_JOBS"; }

# run_ctest NAME DIR CTEST-ARGS...: run ctest, show its output, add its counts to the totals.
run_ctest() {
  local name="$1" dir="$2" log
  shift 2
  log="$(mktemp)"
  (cd "$dir" && ctest --output-on-failure -j "$EXACDF_JOBS" "$@") 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  local line n_fail n_total
  line="$(grep -E 'tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -1)"
  if [[ -n "$line" ]]; then
    n_fail="$(sed -E 's/.*passed, ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<<"$line")"
    n_total="$(sed -E 's/.*failed out of ([0-9]+).*/\1/' <<<"$line")"
    passed=$((passed + n_total - n_fail))
    failed=$((failed + n_fail))
    ((n_fail == 0)) || failures+=("$name: $n_fail of $n_total tests")
  elif grep -q 'No tests were found' "$log"; then
    echo "test.sh: $name: no tests found"
  fi
  if ((rc != 0)) && [[ -z "$line" ]]; then fail "$name: ctest exited $rc"; fi
  rm -f "$log"
  return "$rc"
}

# The Python package (python/) into .venv, from this tree, so the python.* ctest tests test
# these sources. It builds the C library again inside the wheel build (statically, Release);
# its build tree is kept in build/python so later runs rebuild only what changed, and ccache
# is used when present. EXACDF_SKIP_PYTHON=1 leaves it out (the python.* tests then skip).
install_python_package() {
  [[ "${EXACDF_SKIP_PYTHON:-0}" == 1 ]] && { echo "test.sh: Python package skipped (EXACDF_SKIP_PYTHON=1)"; return 0; }
  local t1=$SECONDS cmake_args=""
  command -v ccache >/dev/null && cmake_args="-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache"
  if CMAKE_ARGS="$cmake_args" "$ROOT/.venv/bin/python" -m pip install -q --disable-pip-version-check \
    --no-build-isolation --config-settings=build-dir="$ROOT/build/python" "$ROOT/python" \
    >build/python-install.log 2>&1; then
    echo "test.sh: Python package installed into .venv in $((SECONDS - t1)) s"
  else
    cat build/python-install.log
    fail "pip install ./python"
  fi
}

# --- 1. Release build, all tests -------------------------------------------------------------
banner "build/ (RelWithDebInfo, -Werror)"
t0=$SECONDS
mkdir -p build
if configure build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEXACDF_WERROR=ON -DEXACDF_SANITIZE=OFF \
  && build build; then
  echo "test.sh: build/ built in $((SECONDS - t0)) s"
  install_python_package
  run_ctest "ctest build/" build
else
  fail "build/: configure or build failed"
fi
echo "test.sh: build/ stage took $((SECONDS - t0)) s"

# --- 2. ASan + UBSan build ---------------------------------------------------------------------
if [[ "${EXACDF_SKIP_ASAN:-0}" != 1 ]]; then
  banner "build-asan/ (AddressSanitizer + UndefinedBehaviorSanitizer, -Werror)"
  t0=$SECONDS
  mkdir -p build-asan
  if configure build-asan -DCMAKE_BUILD_TYPE=Debug -DEXACDF_WERROR=ON -DEXACDF_SANITIZE=ON \
    && build build-asan; then
    echo "test.sh: build-asan/ built in $((SECONDS - t0)) s"
    # Open MPI leaks by design and unloads its plugins before LeakSanitizer could name them,
    # so leaks are checked only in the programs without MPI (the unit tests, below).
    ASAN_OPTIONS="detect_leaks=0:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1" \
      UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
      run_ctest "ctest build-asan/" build-asan -LE "interop|oracle|package"
    unit="build-asan/tests/exacdf_unit_tests"
    if [[ -x "$unit" ]]; then
      echo "test.sh: unit tests with LeakSanitizer"
      if ASAN_OPTIONS="detect_leaks=1" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
        "$unit" --gtest_brief=1 >build-asan/unit-leaks.log 2>&1; then
        passed=$((passed + 1))
        echo "test.sh: unit tests: no leaks"
      else
        cat build-asan/unit-leaks.log
        fail "unit tests under LeakSanitizer"
      fi
    fi
  else
    fail "build-asan/: configure or build failed"
  fi
  echo "test.sh: build-asan/ stage took $((SECONDS - t0)) s"
fi

# --- 3. Fuzz targets ---------------------------------------------------------------------------
if [[ "${EXACDF_SKIP_FUZZ:-0}" != 1 && -f tests/fuzz/CMakeLists.txt ]]; then
  banner "build-fuzz/ (clang, libFuzzer, ${FUZZ_SECONDS} s per target)"
  t0=$SECONDS
  mkdir -p build-fuzz
  if CC=clang CXX=clang++ configure build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DEXACDF_FUZZ=ON -DBUILD_TESTING=OFF -DEXACDF_WERROR=OFF -DEXACDF_SANITIZE=OFF \
    && build build-fuzz; then
    mapfile -t targets < <(find build-fuzz/tests/fuzz -maxdepth 1 -type f -name 'fuzz_*' -perm -u+x | sort)
    ((${#targets[@]})) || echo "test.sh: no fuzz targets (tests/fuzz builds none named fuzz_*)"
    for target in "${targets[@]}"; do
      name="$(basename "$target")"
      # Seeds from tests/fuzz/corpus/<name without fuzz_>/ (or corpus/<name>/); new inputs
      # go to a scratch corpus so the repository is never written.
      corpus="build-fuzz/corpus/$name"
      mkdir -p "$corpus" "build-fuzz/artifacts/$name"
      for seeds in "tests/fuzz/corpus/${name#fuzz_}" "tests/fuzz/corpus/$name"; do
        [[ -d "$seeds" ]] && cp -r "$seeds/." "$corpus/"
      done
      echo "test.sh: fuzzing $name for ${FUZZ_SECONDS} s"
      if ASAN_OPTIONS="detect_leaks=1" "$target" -max_total_time="$FUZZ_SECONDS" -timeout=10 \
        -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="build-fuzz/artifacts/$name/" \
        "$corpus" >"build-fuzz/$name.log" 2>&1; then
        passed=$((passed + 1))
        echo "test.sh: $name: ok ($(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "build-fuzz/$name.log" | grep -o '[0-9]*$') runs)"
      else
        tail -60 "build-fuzz/$name.log"
        fail "fuzz target $name (crash input in build-fuzz/artifacts/$name/)"
      fi
    done
  else
    fail "build-fuzz/: configure or build failed"
  fi
  echo "test.sh: fuzz stage took $((SECONDS - t0)) s"
fi

# --- Summary ---------------------------------------------------------------------------------
banner "summary ($((SECONDS - start_all)) s)"
for f in "${failures[@]}"; do echo "FAILED: $f"; done
echo "${passed} passed, ${failed} failed"
((failed == 0 && ${#failures[@]} == 0))
