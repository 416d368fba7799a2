"""netCDF external types <-> numpy dtypes."""
from __future__ import annotations

import numpy as np

from . import _core

#: nc_type -> numpy dtype of its values in memory (NC_CHAR: single bytes, 'S1').
NC_TO_DTYPE = {
    _core.NC_BYTE: np.dtype("i1"),
    _core.NC_CHAR: np.dtype("S1"),
    _core.NC_SHORT: np.dtype("i2"),
    _core.NC_INT: np.dtype("i4"),
    _core.NC_FLOAT: np.dtype("f4"),
    _core.NC_DOUBLE: np.dtype("f8"),
    _core.NC_UBYTE: np.dtype("u1"),
    _core.NC_USHORT: np.dtype("u2"),
    _core.NC_UINT: np.dtype("u4"),
    _core.NC_INT64: np.dtype("i8"),
    _core.NC_UINT64: np.dtype("u8"),
}
_DTYPE_TO_NC = {dt.str.lstrip("<>|="): nc for nc, dt in NC_TO_DTYPE.items()}
# netCDF4-python's type codes and names besides numpy's.
_NAMES = {
    "c": _core.NC_CHAR, "char": _core.NC_CHAR, "b": _core.NC_BYTE, "B": _core.NC_UBYTE,
    "byte": _core.NC_BYTE, "ubyte": _core.NC_UBYTE, "short": _core.NC_SHORT,
    "ushort": _core.NC_USHORT, "int": _core.NC_INT, "uint": _core.NC_UINT,
    "int64": _core.NC_INT64, "uint64": _core.NC_UINT64, "float": _core.NC_FLOAT,
    "double": _core.NC_DOUBLE, "h": _core.NC_SHORT, "H": _core.NC_USHORT, "i": _core.NC_INT,
    "I": _core.NC_UINT, "l": _core.NC_INT, "f": _core.NC_FLOAT, "d": _core.NC_DOUBLE,
}


def nc_type_of(datatype) -> int:
    """The nc_type of a numpy dtype (or its name), a netCDF4-python code or an NC_* number."""
    if isinstance(datatype, (int, np.integer)) and not isinstance(datatype, bool):
        if int(datatype) in NC_TO_DTYPE:
            return int(datatype)
        raise TypeError(f"unknown nc_type {datatype}")
    if isinstance(datatype, str) and datatype in _NAMES:
        return _NAMES[datatype]
    dt = np.dtype(datatype)
    if dt.kind in "SU" or dt == np.dtype(object):
        if dt.kind == "S" and dt.itemsize == 1:
            return _core.NC_CHAR
        raise TypeError(f"{dt}: only single characters ('S1') are netCDF classic text")
    key = dt.newbyteorder("=").str.lstrip("<>|=")
    if key not in _DTYPE_TO_NC:
        raise TypeError(f"numpy type {dt} has no netCDF classic type")
    return _DTYPE_TO_NC[key]


def dtype_of(nc_type: int) -> np.dtype:
    return NC_TO_DTYPE[nc_type]


def as_buffer(array: np.ndarray, nc_type: int) -> np.ndarray:
    """array as the C-contiguous native buffer _core takes for nc_type (text as uint8)."""
    if nc_type == _core.NC_CHAR:
        return np.ascontiguousarray(array, dtype="S1").view(np.uint8)
    return np.ascontiguousarray(array, dtype=NC_TO_DTYPE[nc_type])


def empty_buffer(shape, nc_type: int) -> np.ndarray:
    """A buffer _core fills, of shape, in nc_type's native representation (text as uint8)."""
    if nc_type == _core.NC_CHAR:
        return np.empty(shape, dtype=np.uint8)
    return np.empty(shape, dtype=NC_TO_DTYPE[nc_type])


def from_buffer(buffer: np.ndarray, nc_type: int) -> np.ndarray:
    return buffer.view("S1") if nc_type == _core.NC_CHAR else buffer


def stringtochar(a, nchars: int | None = None) -> np.ndarray:
    """Strings (or bytes) -> an array of single characters with one more dimension."""
    a = np.asarray(a)
    if a.dtype.kind == "U":
        a = np.char.encode(a, "utf-8")
    if nchars is None:
        nchars = max(a.dtype.itemsize, 1)
    shape = a.shape
    a = np.array(a, dtype=f"S{nchars}", order="C").reshape(-1)
    return a.view("S1").reshape(shape + (nchars,))


def chartostring(b) -> np.ndarray:
    """Arrays of single characters (last dimension) -> strings, trailing NULs dropped."""
    b = np.array(b, dtype="S1", order="C")
    if b.ndim == 0:
        return np.char.decode(b, "utf-8")
    n = b.shape[-1]
    s = b.reshape(-1, n).view(f"S{n}").reshape(b.shape[:-1])
    return np.char.decode(s, "utf-8")
