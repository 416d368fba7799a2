"""exacdf.File, Dimension and Variable: netCDF4-python's object model over the ncmpi_* calls.

Rules kept here, not in the native layer:
- define/data mode switch implicitly: data access ends define mode (enddef), a new
  definition or attribute re-enters it (redef). Both are collective, so every rank must
  make the same sequence of definitions and accesses, as with the C API.
- data access is collective unless inside ``with f.independent():``. A collective access
  is exactly one collective library call on every rank: a rank whose index is invalid (an
  IndexError, say) still takes part with an empty request before raising.
"""
from __future__ import annotations

import atexit
import contextlib

import numpy as np
from mpi4py import MPI

from . import _core
from ._errors import NCError, WaitAllError
from ._indexing import is_fancy, select
from ._query import Query
from ._types import as_buffer, dtype_of, empty_buffer, from_buffer, nc_type_of

_FORMATS = {
    "cdf1": _core.NC_CLOBBER, "classic": _core.NC_CLOBBER, "netcdf3_classic": _core.NC_CLOBBER,
    "cdf2": _core.NC_64BIT_OFFSET, "64bit_offset": _core.NC_64BIT_OFFSET,
    "netcdf3_64bit_offset": _core.NC_64BIT_OFFSET, "netcdf3_64bit": _core.NC_64BIT_OFFSET,
    "cdf5": _core.NC_64BIT_DATA, "64bit_data": _core.NC_64BIT_DATA,
    "netcdf3_64bit_data": _core.NC_64BIT_DATA,
    "partitioned": _core.EXA_FORMAT_PARTITIONED,
}
_FORMAT_NAMES = {
    _core.NC_FORMAT_CLASSIC: "cdf1", _core.NC_FORMAT_CDF2: "cdf2",
    _core.NC_FORMAT_CDF5: "cdf5", _core.EXA_FORMAT_PARTITIONED_V1: "partitioned",
}
_DATA_MODELS = {"cdf1": "NETCDF3_CLASSIC", "cdf2": "NETCDF3_64BIT_OFFSET",
                "cdf5": "NETCDF3_64BIT_DATA", "partitioned": "EXACDF_PARTITIONED"}


# Open files, held until closed (a File dropped while open would leave its MPI file open).
_OPEN_FILES: "set[File]" = set()


@atexit.register
def _close_open_files() -> None:
    """Files still open at exit are closed before mpi4py finalizes MPI (Open MPI aborts on an
    MPI_File_close after MPI_Finalize). Every rank normally holds the same files open."""
    for f in sorted(_OPEN_FILES, key=lambda f: f._ncid):  # the same order on every rank
        try:
            if not f._collective:
                f.end_indep()
            f.close()
        except Exception:  # noqa: BLE001  (nothing can be reported at exit)
            pass


def _hints(info) -> list:
    if info is None:
        return []
    if isinstance(info, MPI.Info):
        if info == MPI.INFO_NULL:
            return []
        return [(k, info.Get(k)) for k in info.keys()]
    return [(str(k), str(v)) for k, v in dict(info).items()]


# --- attributes, shared by File (global) and Variable -----------------------------------------

class _Attributes:
    """netCDF attributes as Python attributes (``v.units = "m"``) and netCDF4/PnetCDF calls."""

    _file: "File"
    _varid: int

    def ncattrs(self) -> list:
        """Names of the attributes, in file order."""
        ncid, varid = self._file._ncid, self._varid
        return [_core.inq_attname(ncid, varid, i) for i in range(self._natts())]

    def _natts(self) -> int:
        if self._varid == _core.NC_GLOBAL:
            return _core.inq(self._file._ncid)[2]
        return _core.inq_varnatts(self._file._ncid, self._varid)

    def getncattr(self, name: str):
        """An attribute's value: str for text, a numpy scalar for one value, else an array."""
        ncid = self._file._ncid
        xtype, n = _core.inq_att(ncid, self._varid, name)
        out = empty_buffer((n,), xtype)
        _core.get_att(ncid, self._varid, name, xtype, out)
        if xtype == _core.NC_CHAR:
            return out.tobytes().decode("utf-8", errors="replace")
        return out[0] if n == 1 else out

    def setncattr(self, name: str, value) -> None:
        """Define or overwrite an attribute (enters define mode if needed)."""
        xtype, values = self._file._attribute_values(value)
        self._file._define_mode()
        _core.put_att(self._file._ncid, self._varid, name, xtype, values)

    def setncattr_string(self, name: str, value) -> None:
        self.setncattr(name, str(value))

    def setncatts(self, attrs: dict) -> None:
        for k, v in attrs.items():
            self.setncattr(k, v)

    def delncattr(self, name: str) -> None:
        self._file._define_mode()
        _core.del_att(self._file._ncid, self._varid, name)

    def renameAttribute(self, old: str, new: str) -> None:
        self._file._define_mode()
        _core.rename_att(self._file._ncid, self._varid, old, new)

    # PnetCDF-Python's names
    def put_att(self, name: str, value) -> None:
        self.setncattr(name, value)

    def get_att(self, name: str):
        return self.getncattr(name)

    def del_att(self, name: str) -> None:
        self.delncattr(name)

    def rename_att(self, old: str, new: str) -> None:
        self.renameAttribute(old, new)

    def __getattr__(self, name: str):
        if name.startswith("__") or name in type(self)._INTERNAL:
            raise AttributeError(name)
        try:
            return self.getncattr(name)
        except NCError as e:
            raise AttributeError(f"no attribute {name!r} ({e.message})") from None

    def __setattr__(self, name: str, value) -> None:
        if name in type(self)._INTERNAL or hasattr(type(self), name):
            object.__setattr__(self, name, value)
        else:
            self.setncattr(name, value)

    def __delattr__(self, name: str) -> None:
        if name in type(self)._INTERNAL or hasattr(type(self), name):
            object.__delattr__(self, name)
        else:
            self.delncattr(name)

    def __dir__(self):
        return list(super().__dir__()) + self.ncattrs()


class Dimension:
    """A dimension: ``len(d)`` is its current length (records so far if unlimited)."""

    def __init__(self, file: "File", dimid: int, name: str, unlimited: bool):
        self._file, self._dimid, self._name, self._unlimited = file, dimid, name, unlimited

    @property
    def name(self) -> str:
        return self._name

    @property
    def size(self) -> int:
        return int(_core.inq_dimlen(self._file._ncid, self._dimid))

    def __len__(self) -> int:
        return self.size

    def isunlimited(self) -> bool:
        return self._unlimited

    def __repr__(self) -> str:
        kind = "unlimited " if self._unlimited else ""
        return f"<exacdf.Dimension {kind}{self._name!r}, size = {self.size}>"


class Request:
    """A nonblocking put or get; after :meth:`File.wait_all` a get's values are in ``data``."""

    def __init__(self, variable: "Variable", reqid: int, write: bool, buffer, finish=None,
                 posted_error: int = 0):
        self.variable, self.id, self.write = variable, reqid, write
        self._buffer, self._finish = buffer, finish
        #: a code the post returned with the request (NC_ERANGE): reported at the wait
        self.posted_error = posted_error
        self.data = None
        self.done = False

    def _complete(self) -> None:
        if not self.write:
            self.data = self._finish(self._buffer)
        self._buffer = None
        self.done = True

    def __repr__(self) -> str:
        kind = "iput" if self.write else "iget"
        return f"<exacdf.Request {kind} {self.variable.name!r} id={self.id}>"


class Variable(_Attributes):
    """A variable: numpy slicing reads and writes; netCDF attributes as attributes."""

    _INTERNAL = frozenset({"_file", "_varid", "_name", "_nc_type", "_dimids"})

    def __init__(self, file: "File", varid: int, name: str, nc_type: int, dimids):
        object.__setattr__(self, "_file", file)
        object.__setattr__(self, "_varid", varid)
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_nc_type", nc_type)
        object.__setattr__(self, "_dimids", tuple(dimids))

    # --- description ---
    @property
    def name(self) -> str:
        return self._name

    @property
    def varid(self) -> int:
        return self._varid

    @property
    def dtype(self) -> np.dtype:
        return dtype_of(self._nc_type)

    @property
    def datatype(self) -> np.dtype:
        return self.dtype

    @property
    def nc_type(self) -> int:
        return self._nc_type

    @property
    def dimensions(self) -> tuple:
        return tuple(self._file._dim_by_id(d).name for d in self._dimids)

    def get_dims(self) -> tuple:
        return tuple(self._file._dim_by_id(d) for d in self._dimids)

    @property
    def shape(self) -> tuple:
        ncid = self._file._ncid
        return tuple(int(_core.inq_dimlen(ncid, d)) for d in self._dimids)

    @property
    def ndim(self) -> int:
        return len(self._dimids)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def __len__(self) -> int:
        if not self._dimids:
            raise TypeError("len() of a scalar variable")
        return self.shape[0]

    def _unlimited(self) -> tuple:
        return tuple(self._file._dim_by_id(d).isunlimited() for d in self._dimids)

    def __repr__(self) -> str:
        return (f"<exacdf.Variable {self.dtype} {self._name}{self.dimensions}, "
                f"shape = {self.shape}>")

    # --- blocking access ---
    def __getitem__(self, key):
        f = self._file
        f._data_mode()
        collective = f._collective
        try:
            sel = select(key, self.shape)
        except (IndexError, ValueError, TypeError):
            self._take_part_empty(key, write=False, collective=collective)
            raise
        out = empty_buffer(sel.shape, self._nc_type)
        if not sel.fancy:
            start, count, stride = sel.vars_request()
            _core.vars(f._ncid, self._varid, start, count, stride, out, self._nc_type, False,
                       collective)
        else:
            starts, counts, where = sel.varn_requests()
            flat = empty_buffer((out.size,), self._nc_type)
            _core.varn(f._ncid, self._varid, starts, counts, flat, self._nc_type, False,
                       collective)
            out = self._scatter(flat, sel, counts, where)
        return self._finish_read(out, sel)

    def _scatter(self, flat, sel, counts, where):
        """A varn read's flat buffer (request after request) -> the selection's full shape."""
        out = empty_buffer(sel.shape, self._nc_type)
        pos = 0
        for cnt, w in zip(counts, where):
            n = int(np.prod(cnt, dtype=np.int64))
            out[w] = flat[pos:pos + n].reshape(cnt)
            pos += n
        return out

    def _finish_read(self, out, sel):
        if sel.flips():
            out = np.flip(out, axis=sel.flips())
        out = from_buffer(out, self._nc_type).reshape(sel.out_shape)
        return out[()] if out.ndim == 0 else out

    def __setitem__(self, key, value) -> None:
        f = self._file
        f._data_mode()
        collective = f._collective
        try:
            data = self._as_data(value)
            sel = select(key, self.shape, self._unlimited(), write_shape=data.shape)
            data, memtype = self._to_selection(data, sel)
        except (IndexError, ValueError, TypeError):
            self._take_part_empty(key, write=True, collective=collective)
            raise
        if not sel.fancy:
            start, count, stride = sel.vars_request()
            _core.vars(f._ncid, self._varid, start, count, stride, data, memtype, True,
                       collective)
        else:
            starts, counts, where = sel.varn_requests()
            flat = (np.concatenate([data[w].reshape(-1) for w in where]) if where
                    else data.reshape(-1)[:0])
            _core.varn(f._ncid, self._varid, starts, counts, flat, memtype, True, collective)

    def _as_data(self, value) -> np.ndarray:
        if self._nc_type == _core.NC_CHAR:
            a = np.asarray(value)
            if a.dtype.kind in "SU" and a.dtype.itemsize > (4 if a.dtype.kind == "U" else 1):
                from ._types import stringtochar
                a = stringtochar(a)
            return a
        return np.asarray(value)

    def _to_selection(self, data, sel):
        """(buffer, memtype): data as a native buffer of the selection's full shape (flips
        applied), in its own numeric type when it has one, so the library converts it and
        reports NC_ERANGE for values the variable's type cannot hold (as in C)."""
        data = np.broadcast_to(data, sel.out_shape) if data.shape != sel.out_shape else data
        data = data.reshape(sel.shape)
        if sel.flips():
            data = np.flip(data, axis=sel.flips())
        memtype = self._nc_type
        if memtype != _core.NC_CHAR and data.dtype.kind in "iuf":
            try:
                memtype = nc_type_of(data.dtype)
            except TypeError:  # float16, longdouble: numpy converts
                memtype = self._nc_type
        elif data.dtype == bool:
            memtype = _core.NC_BYTE
        return as_buffer(data, memtype), memtype

    # --- bitmap index (queries) ---
    def create_index(self, spec: str = "") -> None:
        """Collective: build and store this variable's bitmap index (exa_index_create; spec
        "bins=N", "edges=a,b,...", optionally ";chunk=ROWS"; "" is "bins=64")."""
        self._file._data_mode()
        _core.index_create(self._file._ncid, self._varid, spec)

    def drop_index(self) -> None:
        """Collective: remove this variable's index (none is not an error)."""
        self._file._data_mode()
        _core.index_drop(self._file._ncid, self._varid)

    def _take_part_empty(self, key, write: bool, collective: bool) -> None:
        """This rank's share of a collective call when its index or data failed: the same
        call as the other ranks (varn for list indexes, else vars), moving nothing."""
        if not collective:
            return
        buf = empty_buffer((0,), self._nc_type)
        f, n = self._file, self.ndim
        try:
            if is_fancy(key) or n == 0:
                _core.varn(f._ncid, self._varid, [], [], buf, self._nc_type, write, True)
            else:
                _core.vars(f._ncid, self._varid, [0] * n, [0] * n, [1] * n, buf, self._nc_type,
                           write, True)
        except NCError:
            pass  # the index error raised next is what this rank reports

    # --- nonblocking access ---
    def iput(self, key, value) -> Request:
        """Post ``self[key] = value`` as a nonblocking put; completed by ``File.wait_all``."""
        f = self._file
        f._data_mode()
        data = self._as_data(value)
        sel = select(key, self.shape, self._unlimited(), write_shape=data.shape)
        data, memtype = self._to_selection(data, sel)
        if sel.fancy:  # a list index: the product of runs, one varn request
            starts, counts, where = sel.varn_requests()
            flat = (np.concatenate([data[w].reshape(-1) for w in where]) if where
                    else data.reshape(-1)[:0])
            rc, req = _core.ivarn(f._ncid, self._varid, starts, counts, flat, memtype, True)
            return f._post(Request(self, req, True, flat, posted_error=rc))
        start, count, stride = sel.vars_request()
        rc, req = _core.ivars(f._ncid, self._varid, start, count, stride, data, memtype, True)
        return f._post(Request(self, req, True, data, posted_error=rc))

    def iget(self, key=Ellipsis) -> Request:
        """Post a nonblocking read of ``self[key]``; its ``data`` is set by ``File.wait_all``."""
        f = self._file
        f._data_mode()
        sel = select(key, self.shape)
        if sel.fancy:  # a list index: one varn request into a flat buffer, scattered at the wait
            starts, counts, where = sel.varn_requests()
            flat = empty_buffer((int(np.prod(sel.shape, dtype=np.int64)),), self._nc_type)
            rc, req = _core.ivarn(f._ncid, self._varid, starts, counts, flat, self._nc_type, False)
            finish = lambda b: self._finish_read(self._scatter(b, sel, counts, where), sel)
            return f._post(Request(self, req, False, flat, finish, rc))
        out = empty_buffer(sel.shape, self._nc_type)
        start, count, stride = sel.vars_request()
        rc, req = _core.ivars(f._ncid, self._varid, start, count, stride, out, self._nc_type,
                              False)
        return f._post(Request(self, req, False, out, lambda b: self._finish_read(b, sel), rc))

    # --- PnetCDF-Python's data calls (start/count/stride) ---
    def _key(self, start, count, stride):
        if start is None:
            return Ellipsis
        count = [1] * len(start) if count is None else count
        stride = [1] * len(start) if stride is None else stride
        return tuple(slice(s, s + c * st, st) if c else slice(s, s)
                     for s, c, st in zip(start, count, stride))

    def put_var_all(self, data, start=None, count=None, stride=None) -> None:
        with self._file._mode(True):
            self[self._key(start, count, stride)] = data

    def put_var(self, data, start=None, count=None, stride=None) -> None:
        with self._file._mode(False):
            self[self._key(start, count, stride)] = data

    def get_var_all(self, start=None, count=None, stride=None):
        with self._file._mode(True):
            return self[self._key(start, count, stride)]

    def get_var(self, start=None, count=None, stride=None):
        with self._file._mode(False):
            return self[self._key(start, count, stride)]

    def iput_var(self, data, start=None, count=None, stride=None) -> Request:
        return self.iput(self._key(start, count, stride), data)

    def iget_var(self, start=None, count=None, stride=None) -> Request:
        return self.iget(self._key(start, count, stride))

    def def_fill(self, no_fill: bool = False, fill_value=None) -> None:
        """ncmpi_def_var_fill: this variable's fill mode and value."""
        self._file._define_mode()
        value = None if fill_value is None else as_buffer(np.asarray([fill_value]), self._nc_type)
        _core.def_var_fill(self._file._ncid, self._varid, 1 if no_fill else 0, value)


class File(_Attributes):
    """A netCDF file opened or created in parallel over ``comm``.

    Args:
        path: file name.
        mode: "r" read, "w" create (overwrite), "x" create (fail if it exists),
            "a" or "r+" open for writing.
        comm: an mpi4py communicator (default MPI.COMM_WORLD); collective over it.
        info: MPI-IO and exacdf hints, a dict (or an mpi4py Info).
        format: for creation: "cdf5" (default), "cdf2", "cdf1" or "partitioned"
            (netCDF4-python's "NETCDF3_CLASSIC", "NETCDF3_64BIT_OFFSET",
            "NETCDF3_64BIT_DATA" are accepted too).
        define: "collective" (every rank defines the same objects) or "independent"
            (ranks define their own objects; enddef merges them).
    """

    _INTERNAL = frozenset({"_file", "_varid", "_ncid", "_comm", "_define", "_collective",
                           "_dims", "_vars", "_pending", "_path", "_closed", "_indep_define"})

    def __init__(self, path, mode: str = "r", comm=None, info=None, format: str = "cdf5",
                 define: str = "collective", clobber: bool = True):
        comm = MPI.COMM_WORLD if comm is None else comm
        s = object.__setattr__
        s(self, "_file", self)
        s(self, "_varid", _core.NC_GLOBAL)
        s(self, "_comm", comm)
        s(self, "_path", str(path))
        s(self, "_pending", [])
        s(self, "_closed", True)
        s(self, "_collective", True)
        if define not in ("collective", "independent"):
            raise ValueError(f"define must be 'collective' or 'independent', not {define!r}")
        s(self, "_indep_define", define == "independent")
        flags = _core.EXA_INDEP_DEFINE if define == "independent" else 0
        hints = _hints(info)
        if mode in ("w", "x"):
            key = str(format).lower()
            if key not in _FORMATS:
                raise ValueError(f"unknown format {format!r}")
            cmode = _FORMATS[key] | flags
            if mode == "x" or not clobber:
                cmode |= _core.NC_NOCLOBBER
            s(self, "_ncid", _core.create(comm, str(path), cmode, hints))
            s(self, "_define", True)
        elif mode in ("r", "a", "r+"):
            omode = (_core.NC_NOWRITE if mode == "r" else _core.NC_WRITE) | flags
            s(self, "_ncid", _core.open(comm, str(path), omode, hints))
            s(self, "_define", False)
        else:
            raise ValueError(f"mode must be 'r', 'w', 'x', 'a' or 'r+', not {mode!r}")
        s(self, "_closed", False)
        _OPEN_FILES.add(self)
        self._load()

    # --- objects ---
    def _load(self) -> None:
        """(Re)reads the dimensions and variables, keeping the objects already handed out."""
        ncid = self._ncid
        ndims, nvars, _, unlimdim = _core.inq(ncid)
        old_dims = getattr(self, "_dims", {})
        old_vars = getattr(self, "_vars", {})
        dims = {}
        for d in range(ndims):
            name, _ = _core.inq_dim(ncid, d)
            dim = old_dims.get(name) or Dimension(self, d, name, d == unlimdim)
            dim._dimid, dim._unlimited = d, d == unlimdim
            dims[name] = dim
        variables = {}
        for v in range(nvars):
            name, xtype, dimids, _ = _core.inq_var(ncid, v)
            var = old_vars.get(name)
            if var is None:
                var = Variable(self, v, name, xtype, dimids)
            else:
                object.__setattr__(var, "_varid", v)
                object.__setattr__(var, "_dimids", tuple(dimids))
            variables[name] = var
        object.__setattr__(self, "_dims", dims)
        object.__setattr__(self, "_vars", variables)

    def _dim_by_id(self, dimid: int) -> Dimension:
        for d in self._dims.values():
            if d._dimid == dimid:
                return d
        self._load()
        for d in self._dims.values():
            if d._dimid == dimid:
                return d
        raise KeyError(dimid)

    @property
    def dimensions(self) -> dict:
        return dict(self._dims)

    @property
    def variables(self) -> dict:
        return dict(self._vars)

    @property
    def path(self) -> str:
        return self._path

    def filepath(self) -> str:
        return self._path

    @property
    def comm(self):
        return self._comm

    @property
    def ncid(self) -> int:
        return self._ncid

    @property
    def format(self) -> str:
        """"cdf1", "cdf2", "cdf5" or "partitioned"."""
        return _FORMAT_NAMES.get(_core.inq_format(self._ncid), "unknown")

    @property
    def data_model(self) -> str:
        return _DATA_MODELS.get(self.format, "UNKNOWN")

    file_format = data_model

    @property
    def isopen(self) -> bool:
        return not self._closed

    def __getitem__(self, name: str) -> Variable:
        return self._vars[name]

    def __contains__(self, name: str) -> bool:
        return name in self._vars

    def createDimension(self, dimname: str, size: int | None = None) -> Dimension:
        """Define a dimension; size None or 0 makes it unlimited."""
        self._define_mode()
        length = _core.NC_UNLIMITED if size is None else int(size)
        dimid = _core.def_dim(self._ncid, dimname, length)
        dim = Dimension(self, dimid, dimname, length == _core.NC_UNLIMITED)
        self._dims[dimname] = dim
        return dim

    def createVariable(self, varname: str, datatype, dimensions=(), fill_value=None,
                       **ignored) -> Variable:
        """Define a variable of datatype (numpy dtype, netCDF4 code or NC_* number) over
        dimensions (names or Dimension objects); fill_value sets _FillValue
        (netCDF4-python's compression and chunking arguments do not apply and are ignored).
        """
        if isinstance(dimensions, (str, Dimension)):
            dimensions = (dimensions,)
        nc_type = nc_type_of(datatype)
        dimids = []
        for d in dimensions:
            name = d.name if isinstance(d, Dimension) else d
            if name not in self._dims:
                self._load()
            if name not in self._dims:
                raise KeyError(f"no dimension {name!r}")
            dimids.append(self._dims[name]._dimid)
        self._define_mode()
        varid = _core.def_var(self._ncid, varname, nc_type, dimids)
        var = Variable(self, varid, varname, nc_type, dimids)
        self._vars[varname] = var
        if fill_value is not None and fill_value is not False:
            var.setncattr("_FillValue", np.asarray(fill_value, dtype=var.dtype))
        return var

    def renameDimension(self, old: str, new: str) -> None:
        self._define_mode()
        _core.rename_dim(self._ncid, self._dims[old]._dimid, new)
        self._load()

    def renameVariable(self, old: str, new: str) -> None:
        self._define_mode()
        _core.rename_var(self._ncid, self._vars[old]._varid, new)
        object.__setattr__(self._vars[old], "_name", new)
        self._load()

    # PnetCDF-Python's names
    def def_dim(self, dimname: str, size: int = -1) -> Dimension:
        return self.createDimension(dimname, None if size in (-1, 0, None) else size)

    def def_var(self, varname: str, nc_dtype, dimensions=(), fill_value=None) -> Variable:
        return self.createVariable(varname, nc_dtype, dimensions, fill_value=fill_value)

    def rename_dim(self, old: str, new: str) -> None:
        self.renameDimension(old, new)

    def rename_var(self, old: str, new: str) -> None:
        self.renameVariable(old, new)

    def _attribute_values(self, value):
        """(nc_type, buffer) of a Python attribute value."""
        if isinstance(value, str):
            return _core.NC_CHAR, np.frombuffer(value.encode("utf-8"), dtype=np.uint8).copy()
        if isinstance(value, (bytes, np.bytes_)):
            return _core.NC_CHAR, np.frombuffer(bytes(value), dtype=np.uint8).copy()
        a = np.atleast_1d(np.asarray(value))
        if a.dtype.kind in "SU":
            text = "".join(str(x) for x in a.ravel().tolist()) if a.dtype.kind == "U" else \
                b"".join(a.ravel().tolist()).decode("utf-8", "replace")
            return self._attribute_values(text)
        if a.dtype == bool:
            a = a.astype(np.int8)
        if a.dtype == np.int64 and self.format in ("cdf1", "cdf2"):
            a = a.astype(np.int32)  # as netCDF4-python: classic files have no 64-bit integers
        nc_type = nc_type_of(a.dtype)
        return nc_type, as_buffer(a.ravel(), nc_type)

    # --- modes ---
    def _data_mode(self) -> None:
        if self._define:
            self.enddef()

    def _define_mode(self) -> None:
        if not self._define:
            if not self._collective:
                raise NCError(-38, "definitions need collective data mode: leave "
                              "f.independent() first", self._comm.Get_rank())
            self.redef()

    def enddef(self) -> None:
        """Leave define mode (collective)."""
        _core.enddef(self._ncid)
        object.__setattr__(self, "_define", False)
        if self._indep_define:
            self._load()  # other ranks' objects, found by name after the merge

    def redef(self) -> None:
        """Enter define mode (collective)."""
        _core.redef(self._ncid)
        object.__setattr__(self, "_define", True)

    @property
    def indefine(self) -> bool:
        return self._define

    @contextlib.contextmanager
    def independent(self):
        """Independent data access inside the block (ncmpi_begin/end_indep_data)."""
        self.begin_indep()
        try:
            yield self
        finally:
            self.end_indep()

    def begin_indep(self) -> None:
        self._data_mode()
        _core.begin_indep_data(self._ncid)
        object.__setattr__(self, "_collective", False)

    def end_indep(self) -> None:
        _core.end_indep_data(self._ncid)
        object.__setattr__(self, "_collective", True)

    @contextlib.contextmanager
    def _mode(self, collective: bool):
        """Temporarily collective or independent (PnetCDF-Python's _all / plain calls)."""
        if collective == self._collective:
            yield
        elif collective:
            raise NCError(-38, "a collective call inside independent data mode",
                          self._comm.Get_rank())
        else:
            with self.independent():
                yield

    def set_fill(self, fill: bool) -> bool:
        """Fill mode for later definitions; returns whether filling was on."""
        self._define_mode()
        old = _core.set_fill(self._ncid, _core.NC_FILL if fill else _core.NC_NOFILL)
        return old == _core.NC_FILL

    def set_fill_on(self) -> None:
        self.set_fill(True)

    def set_fill_off(self) -> None:
        self.set_fill(False)

    # --- nonblocking ---
    def _post(self, request: Request) -> Request:
        self._pending.append(request)
        return request

    def wait_all(self, requests=None) -> list:
        """Complete nonblocking requests (all posted ones by default); collective unless
        inside independent(). Raises WaitAllError listing every request that failed."""
        todo = list(self._pending) if requests is None else list(requests)
        ids = [r.id for r in todo]
        rc, statuses = _core.wait(self._ncid, ids, self._collective)
        failures = []
        for r, st in zip(todo, statuses):
            if st == _core.NC_NOERR and r.posted_error:
                st = r.posted_error
            if r in self._pending:
                self._pending.remove(r)
            if st == _core.NC_NOERR:
                r._complete()
            else:
                r.done = True
                failures.append((r, st, _core.strerror(st)))
        rank = self._comm.Get_rank()
        if failures:
            raise WaitAllError(failures, rank)
        if rc != _core.NC_NOERR:
            raise NCError(rc, _core.strerror(rc), rank)
        return todo

    def wait(self, requests=None) -> list:
        """Like wait_all, independent (ncmpi_wait)."""
        with self._mode(False):
            return self.wait_all(requests)

    def query(self, text: str) -> Query:
        """A query over this file's variables, e.g. "energy > 1.9 and not (x < 0.5)" (local;
        evaluate() it collectively)."""
        return Query(self, _core.query_parse(self._ncid, text))

    # --- life cycle ---
    def sync(self) -> None:
        self._data_mode()
        _core.sync(self._ncid)

    def close(self) -> None:
        """Close the file (collective); pending definitions are written."""
        if self._closed:
            return
        object.__setattr__(self, "_closed", True)
        _OPEN_FILES.discard(self)
        _core.close(self._ncid)

    def abort(self) -> None:
        if not self._closed:
            object.__setattr__(self, "_closed", True)
            _OPEN_FILES.discard(self)
            _core.abort(self._ncid)

    def __enter__(self) -> "File":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else self.format
        return f"<exacdf.File {self._path!r} ({state})>"


def Dataset(path, mode="r", comm=None, info=None, format="cdf5", **kw) -> File:
    """netCDF4-python / PnetCDF-Python spelling of :class:`File`."""
    return File(path, mode, comm=comm, info=info, format=format, **kw)
