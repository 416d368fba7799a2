"""exacdf: parallel netCDF (CDF-1/2/5 and the partitioned format) from Python.

``exacdf.File(path, mode, comm=MPI.COMM_WORLD)`` works like netCDF4-python's Dataset, in
parallel: every rank opens the file; slicing a variable reads or writes numpy arrays, one
collective call per slice (``with f.independent():`` for independent access). Errors are
:class:`NCError`. ``xarray.open_dataset(path, engine="exacdf")`` opens files lazily and
:func:`to_exacdf` writes a Dataset in parallel.
"""
from mpi4py import MPI  # noqa: F401  (initializes MPI before the native layer)

from . import _core
from ._errors import NCError, WaitAllError
from ._file import Dataset, Dimension, File, Request, Variable
from ._query import Query
from ._types import chartostring, stringtochar

__version__ = "0.1.0"


def library_version() -> str:
    """exacdf's C library version (exa_inq_libvers)."""
    return _core.libvers()


def strerror(code: int) -> str:
    return _core.strerror(code)


def to_exacdf(obj, path, comm=None, **kwargs):
    """Write an xarray Dataset (or DataTree) to path in parallel; see exacdf.xarray_backend."""
    from .xarray_backend import to_exacdf as _to_exacdf

    return _to_exacdf(obj, path, comm=comm, **kwargs)


__all__ = ["File", "Dataset", "Dimension", "Variable", "Request", "Query", "NCError", "WaitAllError",
           "stringtochar", "chartostring", "to_exacdf", "library_version", "strerror",
           "__version__"]
