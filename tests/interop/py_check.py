#!/usr/bin/env python3
"""py_check.py EX.nc REF.nc -- netCDF4-python (and xarray, if installed) read
the file exacdf wrote exactly as they read the file ncgen wrote: same format,
dimensions, variables, attributes and values (NaN equal to NaN, masks equal).

Prints one summary line on success; exits 1 with the differences otherwise,
77 if netCDF4 is not importable (the caller treats that as a skip)."""
import sys

try:
    import netCDF4
    import numpy as np
except ImportError as e:  # pragma: no cover
    print(f"skip: {e}")
    sys.exit(77)


def same_values(a, b):
    a = np.ma.asarray(a)
    b = np.ma.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if not np.array_equal(np.ma.getmaskarray(a), np.ma.getmaskarray(b)):
        return False
    da, db = np.ma.getdata(a), np.ma.getdata(b)
    if da.dtype.kind == "f":
        return bool(np.all((da == db) | (np.isnan(da) & np.isnan(db))))
    return bool(np.array_equal(da, db))


def same_att(a, b):
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return same_values(np.atleast_1d(a), np.atleast_1d(b))


def compare(ex, ref, errors):
    if ex.data_model != ref.data_model:
        errors.append(f"data model {ex.data_model} != {ref.data_model}")
    if list(ex.dimensions) != list(ref.dimensions):
        errors.append(f"dimensions {list(ex.dimensions)} != {list(ref.dimensions)}")
    for name, d in ref.dimensions.items():
        e = ex.dimensions.get(name)
        if e is None or len(e) != len(d) or e.isunlimited() != d.isunlimited():
            errors.append(f"dimension {name} differs")
    if ex.ncattrs() != ref.ncattrs():
        errors.append(f"global attributes {ex.ncattrs()} != {ref.ncattrs()}")
    for a in ref.ncattrs():
        if a in ex.ncattrs() and not same_att(ex.getncattr(a), ref.getncattr(a)):
            errors.append(f"global attribute {a} differs")
    if list(ex.variables) != list(ref.variables):
        errors.append(f"variables {list(ex.variables)} != {list(ref.variables)}")
    for name, rv in ref.variables.items():
        ev = ex.variables.get(name)
        if ev is None:
            continue
        if ev.dimensions != rv.dimensions or ev.dtype != rv.dtype:
            errors.append(f"variable {name}: {ev.dimensions} {ev.dtype} != {rv.dimensions} {rv.dtype}")
            continue
        if ev.ncattrs() != rv.ncattrs():
            errors.append(f"variable {name} attributes {ev.ncattrs()} != {rv.ncattrs()}")
        for a in rv.ncattrs():
            if a in ev.ncattrs() and not same_att(ev.getncattr(a), rv.getncattr(a)):
                errors.append(f"variable {name} attribute {a} differs")
        for var in (ev, rv):
            var.set_auto_chartostring(False)
        if not same_values(ev[...], rv[...]):
            errors.append(f"variable {name}: values differ")


def main():
    ex_path, ref_path = sys.argv[1], sys.argv[2]
    errors = []
    with netCDF4.Dataset(ex_path) as ex, netCDF4.Dataset(ref_path) as ref:
        compare(ex, ref, errors)
        nvars = len(ref.variables)
    checked = "netCDF4"
    try:
        import xarray as xr
    except ImportError:
        xr = None
    if xr is not None:
        with xr.open_dataset(ex_path, engine="netcdf4", decode_cf=False) as a, \
                xr.open_dataset(ref_path, engine="netcdf4", decode_cf=False) as b:
            if not a.identical(b):
                errors.append("xarray: datasets not identical")
        checked += "+xarray"
    for e in errors:
        print(e)
    if errors:
        sys.exit(1)
    print(f"{checked}: {nvars} variables equal")


if __name__ == "__main__":
    main()
