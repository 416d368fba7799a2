"""xarray engine "exacdf" (entry point in pyproject.toml) and the to_exacdf() writer.

Reading is lazy: a variable is an xarray BackendArray whose __getitem__ reads only the
requested (outer-indexed) selection; the file stays in independent data mode, so ranks may
load different slices. CF decoding is xarray's own (decode_cf_variables). The partitioned
format's path names (``/grp/sub/x``) are groups: ``open_dataset(..., group="/grp/sub")``,
``xr.open_datatree(path, engine="exacdf")``.

Opening and closing are collective over ``comm``: every rank opens the dataset and every rank
closes it (``ds.close()``).
"""
from __future__ import annotations

import os
import threading

import numpy as np
import xarray as xr
from mpi4py import MPI
from xarray.backends import BackendArray, BackendEntrypoint
from xarray.core import indexing

from ._file import File

_LOCK = threading.Lock()


def _split(full: str):
    """(group path, short name) of a full name: "/a/b/x" -> ("/a/b", "x"), "x" -> ("/", "x")."""
    if full.startswith("/") and "/" in full[1:]:
        group, _, name = full.rpartition("/")
        return group, name
    return "/", full


def _group_key(group) -> str:
    if group in (None, "", "/"):
        return "/"
    return "/" + str(group).strip("/")


class ExacdfBackendArray(BackendArray):
    """One variable, read on demand (independently) from an open exacdf.File."""

    def __init__(self, file: File, name: str):
        self.file, self.name = file, name
        var = file.variables[name]
        self.shape = var.shape
        self.dtype = var.dtype

    def __getitem__(self, key):
        return indexing.explicit_indexing_adapter(
            key, self.shape, indexing.IndexingSupport.OUTER, self._read)

    def _read(self, key):
        with _LOCK:
            out = self.file.variables[self.name][key]
        return np.asarray(out)


def _attrs(obj) -> dict:
    return {k: obj.getncattr(k) for k in obj.ncattrs()}


def _group_variables(f: File, group: str) -> dict:
    """xarray Variables (lazy) of the objects whose full names are in group."""
    unlimited = set()
    out = {}
    for full, var in f.variables.items():
        g, name = _split(full)
        if g != group:
            continue
        dims = tuple(_split(d)[1] for d in var.dimensions)
        for d, dim in zip(dims, var.get_dims()):
            if dim.isunlimited():
                unlimited.add(d)
        data = indexing.LazilyIndexedArray(ExacdfBackendArray(f, full))
        encoding = {"dtype": var.dtype, "source": f.path}
        out[name] = xr.Variable(dims, data, _attrs(var), encoding)
    return out, unlimited


def _groups(f: File) -> list:
    seen = {"/"}
    for full in f.variables:
        g = _split(full)[0]
        while g not in seen:
            seen.add(g)
            g = _split(g)[0] if g.count("/") > 1 else "/"
    return sorted(seen)


def _decode(f: File, group: str, close, **decode) -> xr.Dataset:
    variables, unlimited = _group_variables(f, group)
    attrs = _attrs(f) if group == "/" else {}
    variables, attrs, coord_names = xr.conventions.decode_cf_variables(variables, attrs, **decode)
    ds = xr.Dataset(variables, attrs=attrs)
    ds = ds.set_coords(coord_names.intersection(variables))
    ds.encoding["unlimited_dims"] = unlimited
    ds.encoding["source"] = f.path
    if close is not None:
        ds.set_close(close)
    return ds


def _open(filename_or_obj, comm, info) -> File:
    f = File(os.fspath(filename_or_obj), "r", comm=comm, info=info)
    f.begin_indep()  # lazy reads differ between ranks

    def close():
        if f.isopen:
            f.end_indep()
            f.close()

    return f, close


class ExacdfBackendEntrypoint(BackendEntrypoint):
    """``xr.open_dataset(path, engine="exacdf", comm=MPI.COMM_WORLD, info=None, group=None)``"""

    description = "Parallel netCDF (CDF-1/2/5, exacdf partitioned) with exacdf over MPI"
    url = "https://github.com/exacdf/exacdf"
    open_dataset_parameters = ("filename_or_obj", "drop_variables", "mask_and_scale",
                               "decode_times", "concat_characters", "decode_coords",
                               "use_cftime", "decode_timedelta", "comm", "info", "group")
    supports_groups = True

    def guess_can_open(self, filename_or_obj) -> bool:
        try:
            with open(os.fspath(filename_or_obj), "rb") as fh:
                magic = fh.read(8)
        except (TypeError, OSError):
            return False
        return magic[:3] == b"CDF" or magic.startswith(b"EXACDF")

    def open_dataset(self, filename_or_obj, *, drop_variables=None, mask_and_scale=True,
                     decode_times=True, concat_characters=True, decode_coords=True,
                     use_cftime=None, decode_timedelta=None, comm=None, info=None,
                     group=None) -> xr.Dataset:
        f, close = _open(filename_or_obj, comm, info)
        try:
            return _decode(f, _group_key(group), close, drop_variables=drop_variables,
                           mask_and_scale=mask_and_scale, decode_times=decode_times,
                           concat_characters=concat_characters, decode_coords=decode_coords,
                           use_cftime=use_cftime, decode_timedelta=decode_timedelta)
        except Exception:
            close()
            raise

    def open_groups_as_dict(self, filename_or_obj, *, comm=None, info=None, **decode) -> dict:
        f, close = _open(filename_or_obj, comm, info)
        decode.pop("group", None)
        try:
            return {g: _decode(f, g, close if g == "/" else None, **decode) for g in _groups(f)}
        except Exception:
            close()
            raise

    def open_datatree(self, filename_or_obj, *, comm=None, info=None, **decode):
        groups = self.open_groups_as_dict(filename_or_obj, comm=comm, info=info, **decode)
        try:
            from xarray.backends.common import datatree_from_dict_with_io_cleanup
        except ImportError:  # older xarray: the root's closer is the file's
            tree = xr.DataTree.from_dict(groups)
            tree.set_close(groups["/"]._close)
            return tree
        return datatree_from_dict_with_io_cleanup(groups)


# --- writer ---------------------------------------------------------------------------------

def _encode(ds: xr.Dataset, fmt: str):
    """CF-encoded variables and attributes, as xarray's netCDF writers make them."""
    from xarray.backends.netcdf3 import encode_nc3_attrs, encode_nc3_variable
    from xarray.coding import strings

    variables, attrs = xr.conventions.encode_dataset_coordinates(ds)
    variables, attrs = xr.conventions.cf_encoder(variables, attrs)
    out = {}
    for name, var in variables.items():
        if fmt in ("cdf1", "cdf2"):
            var = encode_nc3_variable(var)
        else:
            var = strings.EncodedStringCoder(allows_unicode=False).encode(var, name=name)
            var = strings.CharacterArrayCoder().encode(var, name=name)
            if var.dtype == bool:
                var = var.astype(np.int8)
        out[name] = var
    return out, encode_nc3_attrs(attrs) if fmt in ("cdf1", "cdf2") else attrs


def _share(n: int, comm) -> slice:
    """This rank's block of n rows."""
    size, rank = comm.Get_size(), comm.Get_rank()
    lo = n * rank // size
    hi = n * (rank + 1) // size
    return slice(lo, hi)


def _define(f: File, prefix: str, variables: dict, attrs: dict, unlimited) -> list:
    """Define dims, variables and attributes of one dataset; returns (variable, data) pairs."""
    def full(name):
        return f"{prefix}/{name}" if prefix else name

    for k, v in attrs.items():
        if prefix:
            continue  # group attributes have no place in the file format
        f.setncattr(k, v)
    sizes = {}
    for var in variables.values():
        sizes.update(dict(zip(var.dims, var.shape)))
    for d, n in sizes.items():
        if full(d) not in f.dimensions:
            f.createDimension(full(d), None if d in unlimited else n)
    todo = []
    for name, var in variables.items():
        fill = var.attrs.pop("_FillValue", None)
        v = f.createVariable(full(name), var.dtype, [full(d) for d in var.dims])
        if fill is not None:
            v.setncattr("_FillValue", np.asarray(fill, dtype=var.dtype))
        for k, a in var.attrs.items():
            v.setncattr(k, a)
        todo.append((v, var))
    return todo


def to_exacdf(obj, path, comm=None, *, format: str = "cdf5", mode: str = "w",
              unlimited_dims=None, info=None) -> None:
    """Write an xarray Dataset (or DataTree) to path, in parallel over comm.

    Collective: every rank calls it with the same dataset (dask-backed variables are
    computed only for this rank's rows). Each variable is written in one collective call,
    each rank its block of the first dimension. A DataTree needs format="partitioned": each
    node's objects are named by its path (``/group/var``).
    """
    comm = MPI.COMM_WORLD if comm is None else comm
    if isinstance(obj, xr.DataTree):
        if format != "partitioned":
            raise ValueError("a DataTree needs format='partitioned' (groups are path names)")
        datasets = [(node.path, node.to_dataset(inherit=False)) for node in obj.subtree]
    else:
        datasets = [("/", obj)]
    with File(os.fspath(path), mode, comm=comm, info=info, format=format) as f:
        todo = []
        for gpath, ds in datasets:
            unlimited = set(unlimited_dims if unlimited_dims is not None
                            else ds.encoding.get("unlimited_dims", ()))
            if isinstance(unlimited_dims, str):
                unlimited = {unlimited_dims}
            variables, attrs = _encode(ds, format)
            prefix = "" if gpath == "/" else gpath
            todo += _define(f, prefix, variables, attrs, unlimited)
        f.enddef()
        for v, var in todo:
            if var.ndim == 0:
                v[...] = var.values
            else:
                rows = _share(var.shape[0], comm)
                v[rows] = var[rows].values
