#!/usr/bin/env bash
# Path names through `exacdf convert` (docs/format.md, "Converting to classic
# formats"): a partitioned file whose dimension and variable names carry paths
# (and hold the separator "__" and the escape "_-" themselves) is converted to
# CDF-1, CDF-2 and CDF-5. ncdump reads each result, shows the expected legal
# classic names and the values, and no name holds a '/'; xarray opens it
# (when PYTHON has xarray and netCDF4). Converted back to partitioned, `exacdf
# dump` prints what it prints for the original. Classic names that are no
# encoding keep their names; a name too long for the classic formats stops
# the conversion with NC_EMAXNAME and leaves no file; without a terminal the
# tool prints no progress bar.
#
# Environment: EXACDF_TOOL, PATH_NAMES (tests/interop/path_names.c), WORKDIR
# (required); NCGEN, NCDUMP, MPIEXEC, MPIEXEC_NUMPROC_FLAG, MPIEXEC_FLAGS,
# PYTHON.
set -u
: "${EXACDF_TOOL:?}" "${PATH_NAMES:?}" "${WORKDIR:?}" "${NCGEN:=ncgen}" "${NCDUMP:=ncdump}"
: "${MPIEXEC:=mpiexec}" "${MPIEXEC_NUMPROC_FLAG:=-n}" "${MPIEXEC_FLAGS:=--oversubscribe}" "${PYTHON:=}"
mkdir -p "$WORKDIR"
cd "$WORKDIR" || exit 1
rm -f ./*.p ./*.nc ./*.cdl ./*.err
passed=0 failed=0
pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL: $*"; }
run() { # np program args...
  local np=$1; shift
  # shellcheck disable=SC2086
  "$MPIEXEC" $MPIEXEC_FLAGS "$MPIEXEC_NUMPROC_FLAG" "$np" "$@"
}
tool() { local np=$1; shift; run "$np" "$EXACDF_TOOL" "$@"; }

run 2 "$PATH_NAMES" orig.p || { echo "FAIL: path_names"; exit 1; }
tool 1 dump orig.p | sed 1d > orig.cdl
# The original holds the path names (so the checks below check something).
if grep -q 'int /g00000/x(/g00000/n)' orig.cdl; then pass; else fail "orig.p has no path names: $(cat orig.cdl)"; fi

# Each classic name, as ncdump declares it (dimension lines and variables).
want_decls=(
  'time = UNLIMITED ; // (2 currently)' 'g00000__n = 3 ;' 'g00000__sub__m = 2 ;' 'a_-_b__k = 2 ;'
  'x_-_y = 2 ;' 'g_--h___p_ = 1 ;'
  'int g00000__x(g00000__n) ;' 'double g00000__sub__v(time, g00000__sub__m) ;'
  'float a_-_b___c_(a_-_b__k) ;' 'int plain(x_-_y) ;' 'short g_--h__w(g_--h___p_) ;' 'int t(time) ;'
  'g00000__x:units = "m" ;' 'g00000__x:x__att = 7 ;' ':title = "path names" ;' ':a__b = 42 ;' ':x_-y = "esc" ;'
  'g00000__x = 1, 2, 3 ;' 'g00000__sub__v =' '0.5, 1.5,' '2.5, 3.5 ;' 'a_-_b___c_ = -1, -2 ;'
  'plain = 10, 20 ;' 'g_--h__w = 5 ;' 't = 100, 200 ;')
for fmt in cdf1 cdf2 cdf5; do
  for np in 1 2; do
    out="$fmt.np$np.nc"
    if ! tool "$np" convert -f "$fmt" orig.p "$out" 2> "$out.err"; then fail "$fmt np$np: convert: $(cat "$out.err")"; continue; fi
    # Not a terminal: no progress bar (nor anything else) on stderr.
    if [[ ! -s "$out.err" ]]; then pass; else fail "$fmt np$np: convert wrote to a non-terminal stderr: $(cat "$out.err")"; fi
    if ! "$NCDUMP" "$out" > "$out.cdl" 2>&1; then fail "$fmt np$np: ncdump: $(cat "$out.cdl")"; continue; fi
    for d in "${want_decls[@]}"; do
      if grep -qF -- "$d" "$out.cdl"; then pass; else fail "$fmt np$np: ncdump shows no '$d'"; fi
    done
    names=$(sed 's|//.*||' "$out.cdl")  # (ncdump's comments hold "//")
    if grep -q '/' <<<"$names"; then fail "$fmt np$np: a '/' in a name: $(grep '/' <<<"$names")"; else pass; fi
    back="$fmt.np$np.back.p"
    if ! tool "$np" convert -q -f partitioned "$out" "$back"; then fail "$fmt np$np: convert back"; continue; fi
    if diff -u orig.cdl <(tool 1 dump "$back" | sed 1d); then pass; else fail "$fmt np$np: round trip changed the objects"; fi
  done
done

# xarray reads the classic names and values.
if [[ -n "$PYTHON" ]] && "$PYTHON" -c 'import xarray, netCDF4' 2>/dev/null; then
  if "$PYTHON" - cdf1.np2.nc cdf2.np2.nc cdf5.np2.nc <<'PY'; then pass; else fail "xarray"; fi
import sys
import xarray as xr
for path in sys.argv[1:]:
    with xr.open_dataset(path, engine="netcdf4", decode_times=False) as ds:
        assert set(ds.data_vars) == {"g00000__x", "g00000__sub__v", "a_-_b___c_", "plain", "g_--h__w", "t"}, list(ds.data_vars)
        assert ds["g00000__x"].dims == ("g00000__n",)
        assert ds["g00000__x"].values.tolist() == [1, 2, 3]
        assert ds["g00000__sub__v"].values.tolist() == [[0.5, 1.5], [2.5, 3.5]]
        assert ds["a_-_b___c_"].dims == ("a_-_b__k",)
        assert ds.attrs["a__b"] == 42 and ds["g00000__x"].attrs["units"] == "m"
print("xarray: ok")
PY
else
  echo "SKIP: xarray checks (no PYTHON with xarray and netCDF4)"
fi

# Classic names of other programs: encodings are read as paths, the rest kept.
cat > other.cdl <<'CDL'
netcdf other {
dimensions:
	a__ = 1 ;
	grp__n = 2 ;
variables:
	int x_-y(a__) ;
	int grp__v(grp__n) ;
data:
 x_-y = 1 ;
 grp__v = 2, 3 ;
}
CDL
if "$NCGEN" -k nc5 -o other.nc other.cdl && tool 2 convert -q -f partitioned other.nc other.p; then
  tool 1 dump other.p > other.p.cdl
  for d in 'a__ = 1 ;' '/grp/n = 2 ;' 'int x_-y(a__) ;' 'int /grp/v(/grp/n) ;' '/grp/v = 2, 3 ;'; do
    if grep -qF -- "$d" other.p.cdl; then pass; else fail "other.p: no '$d' in $(cat other.p.cdl)"; fi
  done
else
  fail "ncgen or convert of other.cdl"
fi

# A classic name longer than NC_MAX_NAME: a clear error, no file left.
run 2 "$PATH_NAMES" long.p long || fail "path_names long"
if out=$(tool 2 convert -q -f cdf5 long.p long.nc 2>&1); then fail "a 272-byte classic name was accepted"
elif grep -q "NC_MAX_NAME\|too long" <<<"$out" && [[ ! -e long.nc ]]; then pass
else fail "too long a name: '$out'; $(ls -l long.nc 2>&1)"; fi

# --help documents the rule.
if grep -qF '/g00000/x -> g00000__x' <<<"$("$EXACDF_TOOL" convert --help)"; then pass; else fail "convert --help"; fi

echo "$passed passed, $failed failed"
[[ $failed -eq 0 && $passed -gt 0 ]]
