"""``python -m exacdf``: versions of the package, the C library and the MPI library in use."""
import sys

import numpy
from mpi4py import MPI

import exacdf
from exacdf import _core


def main() -> int:
    print(f"exacdf (Python package) {exacdf.__version__}")
    print(f"exacdf C library        {_core.libvers()}")
    print(f"PnetCDF API             {_core.pnetcdf_api_version()}")
    print(f"Python                  {sys.version.split()[0]}")
    print(f"numpy                   {numpy.__version__}")
    import mpi4py
    print(f"mpi4py                  {mpi4py.__version__}")
    try:
        import xarray
        print(f"xarray                  {xarray.__version__} (engine 'exacdf')")
    except ImportError:
        print("xarray                  not installed")
    print(f"MPI standard            {'.'.join(map(str, MPI.Get_version()))}")
    print(f"MPI library             {_core.mpi_library_version().strip().splitlines()[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
