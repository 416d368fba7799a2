"""pytest under mpiexec: every rank runs every test in the same order (collective calls
match); files live in one directory that rank 0 makes and broadcasts."""
import os
import shutil
import subprocess
import tempfile

import numpy as np
import pytest
from mpi4py import MPI

import exacdf  # noqa: F401  (a missing package fails here, before any test runs)


@pytest.fixture(scope="session")
def comm():
    return MPI.COMM_WORLD


@pytest.fixture(scope="session")
def workdir(comm):
    base = os.environ.get("EXACDF_PY_TEST_DIR")
    path = None
    if comm.rank == 0:
        if base:
            os.makedirs(base, exist_ok=True)
        path = tempfile.mkdtemp(prefix=f"np{comm.size}-", dir=base)
    path = comm.bcast(path, root=0)
    yield path
    comm.Barrier()
    if comm.rank == 0:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def path(workdir, request):
    name = request.node.name.replace("[", "_").replace("]", "").replace("/", "_")
    return os.path.join(workdir, name + ".nc")


@pytest.fixture
def on_root(comm):
    """Run fn on rank 0 only and give every rank its result (or its exception)."""
    def run(fn, *args):
        result = None
        if comm.rank == 0:
            try:
                result = ("ok", fn(*args))
            except Exception as e:  # noqa: BLE001  (re-raised on every rank)
                result = ("err", repr(e))
        result = comm.bcast(result, root=0)
        if result[0] == "err":
            raise AssertionError(f"rank 0: {result[1]}")
        return result[1]
    return run


def ncdump(*args) -> str:
    return subprocess.run(["ncdump", *args], check=True, capture_output=True, text=True,
                          timeout=60).stdout


def rows_of(n, comm):
    lo = n * comm.rank // comm.size
    hi = n * (comm.rank + 1) // comm.size
    return lo, hi


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
