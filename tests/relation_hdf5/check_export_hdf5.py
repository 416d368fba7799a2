"""Reads what test_export_hdf5 wrote (argv[1]: its scratch directory) with h5py and checks
it equals the relations of the netCDF file as netCDF4-python reads them."""
import sys

import h5py
import netCDF4
import numpy as np


def rows_sorted(a):
    return a[np.lexsort(a.T[::-1])] if len(a) else a


def main(d, prefix=""):
    nc = netCDF4.Dataset(f"{d}/relations.nc")
    with h5py.File(f"{d}/{prefix}relations.h5", "r") as h:
        # the command exports every relation of the file (T_expected too)
        assert set(h.keys()) >= {"edge", "triple"}, list(h.keys())
        for name, arity in (("edge", 2), ("triple", 3)):
            want = nc[name][:].data
            got = h[name][...]
            assert got.dtype == np.uint64 and got.shape == want.shape, (name, got.shape, want.shape)
            assert np.array_equal(got, want), name
            assert int(h[name].attrs["arity"]) == arity
            cols = h[name].attrs["columns"]
            cols = cols.decode() if isinstance(cols, bytes) else str(cols)
            assert cols == ",".join([f"c{c}" for c in range(arity)] + ["id"]), cols
    with h5py.File(f"{d}/{prefix}checkpoint.h5", "r") as h:
        assert int(h.attrs["iteration"]) == 4
        assert sorted(h.keys()) == ["E", "T"], list(h.keys())
        t = h["T"][...]
        assert np.array_equal(t[:, 2], np.arange(len(t), dtype=np.uint64))  # ids renumbered
        want = nc["T_expected"][:].data[:, :2]
        assert np.array_equal(rows_sorted(t[:, :2]), rows_sorted(want)), "T = full + delta"
        e = h["E"][...]
        assert np.array_equal(rows_sorted(e[:, :2]), rows_sorted(nc["edge"][:].data[:, :2]))
    print(f"check_export_hdf5: {d}/{prefix}*.h5: equal")


if __name__ == "__main__":
    main(sys.argv[1])
    if len(sys.argv) > 2:  # files `exacdf export-hdf5` wrote
        main(sys.argv[1], sys.argv[2])
