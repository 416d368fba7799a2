"""Slab write + read of a [nz, ny, nx] float32 field from Python (issue 22's benchmark).

    mpiexec -n N python bench/python_slabs.py --lib exacdf|netcdf4|h5py --shape 1024 512 512 --dir D

Each rank writes, then reads, its block of z-planes in one call (exacdf: one collective
put_vara/get_vara). netCDF4-python and h5py run serially (N = 1). Prints one JSON line (rank 0):
seconds and GiB/s of the write (create, define, write, close) and of the read (open, read,
close), the second of two in the process (the first pays the page faults of first large
buffers: ~1.5 s at 1 rank for 256 MiB here, in Python more than in C).
bench/python_slabs_c.c makes the same calls in C, timed the same way.
"""
import argparse
import json
import os
import time

import numpy as np
from mpi4py import MPI


def slab(nz, comm):
    lo = nz * comm.rank // comm.size
    hi = nz * (comm.rank + 1) // comm.size
    return lo, hi


def field(shape, lo, hi):
    a = np.empty((hi - lo,) + tuple(shape[1:]), np.float32)
    a[...] = np.arange(lo, hi, dtype=np.float32)[:, None, None]
    return a


def run_exacdf(path, shape, comm):
    import exacdf
    lo, hi = slab(shape[0], comm)
    data = field(shape, lo, hi)
    comm.Barrier()
    t0 = MPI.Wtime()
    with exacdf.File(path, "w", comm=comm, format="cdf5") as f:
        for d, n in zip("zyx", shape):
            f.createDimension(d, n)
        v = f.createVariable("field", "f4", ("z", "y", "x"))
        v[lo:hi] = data
    comm.Barrier()
    t1 = MPI.Wtime()
    with exacdf.File(path, "r", comm=comm) as f:
        back = f["field"][lo:hi]
    comm.Barrier()
    t2 = MPI.Wtime()
    assert np.array_equal(back, data)
    return t1 - t0, t2 - t1


def run_netcdf4(path, shape, comm):
    import netCDF4
    data = field(shape, 0, shape[0])
    t0 = time.perf_counter()
    with netCDF4.Dataset(path, "w", format="NETCDF3_64BIT_DATA") as f:
        for d, n in zip("zyx", shape):
            f.createDimension(d, n)
        f.createVariable("field", "f4", ("z", "y", "x"), fill_value=False)[:] = data
    t1 = time.perf_counter()
    with netCDF4.Dataset(path) as f:
        f.set_auto_maskandscale(False)
        back = f["field"][:]
    t2 = time.perf_counter()
    assert np.array_equal(back, data)
    return t1 - t0, t2 - t1


def run_h5py(path, shape, comm):
    import h5py
    data = field(shape, 0, shape[0])
    t0 = time.perf_counter()
    with h5py.File(path, "w") as f:
        f.create_dataset("field", data=data)
    t1 = time.perf_counter()
    with h5py.File(path, "r") as f:
        back = f["field"][...]
    t2 = time.perf_counter()
    assert np.array_equal(back, data)
    return t1 - t0, t2 - t1


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--lib", choices=["exacdf", "netcdf4", "h5py"], default="exacdf")
    p.add_argument("--shape", type=int, nargs=3, default=[1024, 512, 512])
    p.add_argument("--dir", default=os.environ.get("TMPDIR", "/tmp"))
    a = p.parse_args()
    comm = MPI.COMM_WORLD
    if a.lib != "exacdf" and comm.size != 1:
        raise SystemExit(f"{a.lib} runs serially")
    path = os.path.join(a.dir, f"python_slabs_{a.lib}.{'h5' if a.lib == 'h5py' else 'nc'}")
    run = {"exacdf": run_exacdf, "netcdf4": run_netcdf4, "h5py": run_h5py}[a.lib]
    for _ in range(2):
        w, r = run(path, a.shape, comm)
    gib = np.prod(a.shape) * 4 / 2**30
    if comm.rank == 0:
        print(json.dumps({"lib": f"python-{a.lib}", "ranks": comm.size, "shape": a.shape,
                          "write_s": round(w, 4), "read_s": round(r, 4),
                          "write_gib_s": round(gib / w, 3), "read_gib_s": round(gib / r, 3)}))
        os.remove(path)


if __name__ == "__main__":
    main()
