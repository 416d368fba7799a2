from mpi4py import MPI  # noqa: F401  (initializes MPI before the native layer)
from . import _core
