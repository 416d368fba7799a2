#!/usr/bin/env bash
# An exacdf connector built out of tree, as a user would build theirs: install exacdf into a
# scratch prefix, build examples/connector_passthrough against the installed package
# (find_package), build a PnetCDF program against it (pkg-config), and run the program at
# 2 ranks with EXACDF_CONNECTORS=passthrough_c: results checked by the program, the plugin's
# own call counts checked here. Then a missing plugin, a plugin of another table version and
# a bad setting must each fail create/open with NC_EINVAL on every rank; a table of NULL calls
# (all forwarded), a table of version 1, and plugins stacked between built-ins give the same
# results. A plugin of table version 2 counts the program's inquiries and forwards, refuses
# or drops one (inquire_counter_connector.c, inquire_user.c).
# Usage: run_connector_test.sh SOURCE_DIR BUILD_DIR WORK_DIR
set -euo pipefail
src="$(cd "$1" && pwd)"
build="$(cd "$2" && pwd)"
work="$3"
rm -rf "$work"
mkdir -p "$work"
prefix="$work/prefix"
step() { printf 'connector: %s\n' "$*"; }
fail() { echo "connector: FAILED: $*" >&2; exit 1; }

step "install into $prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
[[ -f "$(find "$prefix" -name exacdf_connector.h -print -quit)" ]] || fail "exacdf_connector.h not installed"

step "build examples/connector_passthrough out of tree"
cmake -S "$src/examples/connector_passthrough" -B "$work/plugin" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release >"$work/plugin-configure.log" || { cat "$work/plugin-configure.log"; exit 1; }
cmake --build "$work/plugin" >"$work/plugin-build.log" 2>&1 || { cat "$work/plugin-build.log"; exit 1; }
plugin="$work/plugin/libexacdf_connector_passthrough_c.so"
[[ -f "$plugin" ]] || fail "no $plugin"
# Only the one entry point is exported.
if command -v nm >/dev/null; then
  exported="$(nm -D --defined-only "$plugin" | awk '$2 == "T" {print $3}')"
  [[ "$exported" == "exacdf_connector_info" ]] || fail "exports: $exported"
fi

step "build the program and a plugin of another version (pkg-config)"
pcdir="$(dirname "$(find "$prefix" -name exacdf.pc -print -quit)")"
export PKG_CONFIG_PATH="$pcdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
libdir="$(pkg-config --variable=libdir exacdf)"
here="$src/tests/package"
# shellcheck disable=SC2046
mpicc "$here/connector_user.c" -o "$work/connector_user" $(pkg-config --cflags --libs exacdf) -Wl,-rpath,"$libdir"
mkdir -p "$work/bad"
# shellcheck disable=SC2046
mpicc -shared -fPIC "$here/bad_version_connector.c" -o "$work/bad/libexacdf_connector_bad_version.so" \
  $(pkg-config --cflags exacdf)
# shellcheck disable=SC2046
mpicc -shared -fPIC "$here/null_ops_connector.c" -o "$work/bad/libexacdf_connector_null_ops.so" \
  $(pkg-config --cflags exacdf)

# shellcheck disable=SC2046
mpicc -shared -fPIC "$here/v1_table_connector.c" -o "$work/bad/libexacdf_connector_v1_table.so" \
  $(pkg-config --cflags exacdf)
# shellcheck disable=SC2046
mpicc -shared -fPIC "$here/inquire_counter_connector.c" -o "$work/bad/libexacdf_connector_inquire_counter.so" \
  $(pkg-config --cflags exacdf)
# shellcheck disable=SC2046
mpicc "$here/inquire_user.c" -o "$work/inquire_user" $(pkg-config --cflags --libs exacdf) -Wl,-rpath,"$libdir"

run2() { timeout 120 mpiexec -n 2 "$@"; }

step "run through passthrough_c at 2 ranks"
EXACDF_PLUGIN_PATH="$work/nowhere:$work/plugin" EXACDF_CONNECTORS="passthrough_c{log=$work/calls}" \
  run2 "$work/connector_user" "$work/through_plugin.nc"
for r in 0 1; do
  [[ -f "$work/calls.$r" ]] || fail "the plugin was not called on rank $r (no $work/calls.$r)"
  # Two files (create, open): two lines, each with calls and data calls.
  [[ "$(wc -l <"$work/calls.$r")" -eq 2 ]] || fail "rank $r: $(cat "$work/calls.$r")"
  read -r _ rank _ calls _ data < <(head -1 "$work/calls.$r")
  [[ "$rank" == "$r" && "$calls" -ge 8 && "$data" -eq 3 ]] || fail "rank $r counts: $(head -1 "$work/calls.$r")"
done
ncmpidump_or_cat() { command -v ncdump >/dev/null && ncdump "$1" || true; }
ncmpidump_or_cat "$work/through_plugin.nc" | grep -q 'v = 0, 1, 2' || fail "file content"

step "a table of NULL calls, and plugins stacked with built-ins"
EXACDF_PLUGIN_PATH="$work/bad" EXACDF_CONNECTORS=null_ops run2 "$work/connector_user" "$work/null_ops.nc"
EXACDF_PLUGIN_PATH="$work/plugin:$work/bad" EXACDF_CONNECTORS="passthrough,passthrough_c,null_ops,passthrough,native" \
  run2 "$work/connector_user" "$work/mixed.nc"
EXACDF_PLUGIN_PATH="$work/bad" EXACDF_CONNECTORS=v1_table run2 "$work/connector_user" "$work/v1_table.nc"
PNETCDF_SAFE_MODE=1 EXACDF_PLUGIN_PATH="$work/plugin" EXACDF_CONNECTORS="passthrough_c" \
  run2 "$work/connector_user" "$work/safe.nc"

step "inquiries reach a C connector (table version 2), which forwards, refuses or drops them"
for how in forward refused dropped; do
  case "$how" in
    forward) settings="log=$work/inq_$how" ;;
    refused) settings="log=$work/inq_$how;refuse=ncmpi_inq_varid" ;;
    dropped) settings="log=$work/inq_$how;drop=ncmpi_inq_varid" ;;
  esac
  EXACDF_PLUGIN_PATH="$work/bad" EXACDF_CONNECTORS="passthrough,inquire_counter{$settings},passthrough" \
    run2 "$work/inquire_user" "$work/inquire_$how.nc" "$how" || fail "inquire_user $how"
  for r in 0 1; do
    # The program makes 6 inquiries; the last is ncmpi_inq (for ncmpi_inq_nvars).
    [[ "$(cat "$work/inq_$how.$r")" == "rank $r inquiries 6 last ncmpi_inq" ]] ||
      fail "inquiries seen on rank $r ($how): $(cat "$work/inq_$how.$r")"
  done
done

step "a missing plugin, another version, a bad setting: NC_EINVAL at create/open"
EXACDF_PLUGIN_PATH="$work/plugin" EXACDF_CONNECTORS=no_such_connector \
  run2 "$work/connector_user" "$work/through_plugin.nc" expect-einval
EXACDF_PLUGIN_PATH="$work/bad" EXACDF_CONNECTORS=bad_version \
  run2 "$work/connector_user" "$work/through_plugin.nc" expect-einval
EXACDF_PLUGIN_PATH="$work/plugin" EXACDF_CONNECTORS="passthrough_c{colour=red}" \
  run2 "$work/connector_user" "$work/through_plugin.nc" expect-einval
step "all passed"
