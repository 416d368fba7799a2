"""The xarray engine: lazy open, CF decoding as netCDF4's engine, to_exacdf round trips,
DataTree over the partitioned format's path names."""
import netCDF4
import numpy as np
import pandas as pd
import pytest
import xarray as xr

import exacdf
from exacdf.xarray_backend import ExacdfBackendArray


def sample_dataset():
    time = pd.date_range("2000-01-01", periods=6, freq="D")
    temp = np.arange(6 * 4 * 3, dtype="f4").reshape(6, 4, 3)
    temp[0, 0, 0] = np.nan
    ds = xr.Dataset(
        {"temp": (("time", "lat", "lon"), temp, {"units": "K", "long_name": "temperature"}),
         "count": (("lat",), np.array([1, 2, 3, 4], "i2")),
         "label": (("lon",), np.array(["a", "bb", "ccc"]))},
        coords={"time": time, "lat": [10.0, 20.0, 30.0, 40.0], "lon": [0.5, 1.5, 2.5]},
        attrs={"title": "sample"})
    ds["temp"].encoding.update({"_FillValue": -999.0, "dtype": "f4"})
    return ds


def test_engine_is_registered():
    assert "exacdf" in xr.backends.list_engines()


def test_open_matches_netcdf4_engine(comm, path, on_root):
    ds = sample_dataset()
    on_root(lambda: ds.to_netcdf(path, format="NETCDF3_64BIT", engine="netcdf4",
                                 encoding={"time": {"units": "days since 2000-01-01"}}))
    with xr.open_dataset(path, engine="exacdf") as got:
        assert not isinstance(got["temp"].variable._data, np.ndarray)  # not loaded
        part = got["temp"].isel(time=slice(2, 4), lat=[3, 1]).values  # only this is read
        np.testing.assert_array_equal(part, ds["temp"].isel(time=slice(2, 4), lat=[3, 1]).values)
        with xr.open_dataset(path, engine="netcdf4") as ref:
            xr.testing.assert_identical(got.load(), ref.load())
        assert got["time"].dtype.kind == "M" and np.isnan(got["temp"].values[0, 0, 0])


def test_lazy_reads_only_what_is_asked(comm, path):
    ds = sample_dataset()
    exacdf.to_exacdf(ds, path)
    calls = []
    orig = ExacdfBackendArray._read

    def spy(self, key):
        calls.append((self.name, key))
        return orig(self, key)
    ExacdfBackendArray._read = spy
    try:
        with xr.open_dataset(path, engine="exacdf") as got:
            calls.clear()
            got["temp"][3, 1:3].values
    finally:
        ExacdfBackendArray._read = orig
    assert calls == [("temp", (3, slice(1, 3, 1), slice(None)))] or \
        [c[0] for c in calls] == ["temp"]


@pytest.mark.parametrize("fmt", ["cdf5", "cdf2", "partitioned"])
def test_to_exacdf_round_trip(comm, path, on_root, fmt):
    ds = sample_dataset()
    exacdf.to_exacdf(ds, path, comm=comm, format=fmt, unlimited_dims="time")
    with xr.open_dataset(path, engine="exacdf") as got:
        xr.testing.assert_identical(got.load(), ds)
        assert got.encoding["unlimited_dims"] == {"time"}
    if fmt != "partitioned":
        ref = on_root(lambda: xr.open_dataset(path, engine="netcdf4").load())
        xr.testing.assert_identical(ref, ds)


def test_compute_in_parallel_each_rank_its_slab(comm, path):
    ds = sample_dataset()
    exacdf.to_exacdf(ds, path)
    with xr.open_dataset(path, engine="exacdf") as got:
        lo = 6 * comm.rank // comm.size
        hi = 6 * (comm.rank + 1) // comm.size
        mine = got["temp"].isel(time=slice(lo, hi)).mean().values  # independent reads
        np.testing.assert_allclose(mine, ds["temp"].isel(time=slice(lo, hi)).mean().values)


def test_datatree_round_trip(comm, path):
    tree = xr.DataTree.from_dict({
        "/": xr.Dataset({"root_var": ("x", np.arange(3.0))}, attrs={"title": "tree"}),
        "/event0": xr.Dataset({"hits": ("n", np.arange(5, dtype="i4"))}),
        "/event0/detail": xr.Dataset({"energy": ("m", np.linspace(0, 1, 4))}),
        "/event1": xr.Dataset({"hits": ("n", np.arange(7, dtype="i4"))}),
    })
    exacdf.to_exacdf(tree, path, format="partitioned")
    got = xr.open_datatree(path, engine="exacdf")
    try:
        assert set(got.groups) == {"/", "/event0", "/event0/detail", "/event1"}
        np.testing.assert_array_equal(got["event1/hits"].values, np.arange(7))
        np.testing.assert_array_equal(got["event0/detail/energy"].values, np.linspace(0, 1, 4))
        assert got.attrs["title"] == "tree"
        with xr.open_dataset(path, engine="exacdf", group="event0") as g:
            np.testing.assert_array_equal(g["hits"].values, np.arange(5))
    finally:
        got.close()
