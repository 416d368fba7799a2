"""exacdf.File: round trips against netCDF4-python and ncdump, every type, records,
independent mode, empty slices, fancy indexes, modes, attributes, nonblocking, errors."""
import netCDF4
import numpy as np
import pytest

import exacdf
from conftest import ncdump, rows_of

ALL_TYPES = ["i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8", "f4", "f8"]
CLASSIC_TYPES = ["i1", "i2", "i4", "f4", "f8"]


def values_of(dtype, shape):
    dt = np.dtype(dtype)
    n = int(np.prod(shape))
    if dt.kind == "f":
        a = np.linspace(-1e6, 1e6, n).astype(dt)
    else:
        info = np.iinfo(dt)
        a = (np.arange(n) * 37 % 251).astype(dt)
        a[0], a[-1] = info.min, info.max  # the extremes of the type survive the round trip
    return a.reshape(shape)


@pytest.mark.parametrize("fmt,dtype", [("cdf5", t) for t in ALL_TYPES]
                         + [("cdf1", t) for t in CLASSIC_TYPES] + [("cdf2", "f8")])
def test_every_type_round_trip(comm, path, on_root, fmt, dtype):
    shape = (2 * comm.size + 1, 5)
    expect = values_of(dtype, shape)
    lo, hi = rows_of(shape[0], comm)
    with exacdf.File(path, "w", format=fmt) as f:
        f.createDimension("y", shape[0])
        f.createDimension("x", shape[1])
        v = f.createVariable("v", dtype, ("y", "x"))
        v.long_name = f"{dtype} values"
        v[lo:hi, :] = expect[lo:hi]
        got = v[:]
        assert got.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(got, expect)

    def check():
        with netCDF4.Dataset(path) as nc:
            nc.set_auto_maskandscale(False)
            np.testing.assert_array_equal(nc["v"][:], expect)
            assert nc["v"].long_name == f"{dtype} values"
            assert nc.data_model == {"cdf1": "NETCDF3_CLASSIC", "cdf2": "NETCDF3_64BIT_OFFSET",
                                     "cdf5": "NETCDF3_64BIT_DATA"}[fmt]
        return ncdump("-h", path)
    header = on_root(check)
    assert "v:long_name" in header


def test_char_variable_and_strings(comm, path, on_root):
    words = ["alpha", "beta", "gamma", "delta"]
    with exacdf.File(path, "w", format="cdf1") as f:
        f.createDimension("n", len(words))
        f.createDimension("len", 6)
        v = f.createVariable("names", "S1", ("n", "len"))
        if comm.rank == 0:
            v[:] = exacdf.stringtochar(np.array(words, dtype="S6"))
        else:
            v[0:0] = np.zeros((0, 6), "S1")
        assert list(exacdf.chartostring(v[:])) == words
        f.note = "text attribute"
    out = on_root(lambda: ncdump(path))
    assert '"alpha"' in out and ':note = "text attribute"' in out


def test_read_netcdf4_file(comm, path, on_root):
    data = np.arange(60, dtype="f8").reshape(3, 4, 5)

    def write():
        with netCDF4.Dataset(path, "w", format="NETCDF3_64BIT_DATA") as nc:
            nc.createDimension("t", None)
            nc.createDimension("y", 4)
            nc.createDimension("x", 5)
            v = nc.createVariable("temp", "f8", ("t", "y", "x"))
            v[:] = data
            v.units = "K"
            v.valid_range = np.array([0, 100], "f8")
            nc.history = "netCDF4-python"
    on_root(write)
    with exacdf.File(path) as f:
        assert f.format == "cdf5"
        assert list(f.dimensions) == ["t", "y", "x"]
        assert f.dimensions["t"].isunlimited() and len(f.dimensions["t"]) == 3
        v = f.variables["temp"]
        assert v.dimensions == ("t", "y", "x") and v.shape == (3, 4, 5)
        assert v.units == "K" and f.history == "netCDF4-python"
        np.testing.assert_array_equal(v.valid_range, [0, 100])
        assert f.ncattrs() == ["history"] and v.ncattrs() == ["units", "valid_range"]
        np.testing.assert_array_equal(v[...], data)
        np.testing.assert_array_equal(v[1], data[1])
        np.testing.assert_array_equal(v[-1, ::2, 1:4], data[-1, ::2, 1:4])
        np.testing.assert_array_equal(v[::-1, 3, ::-2], data[::-1, 3, ::-2])
        assert v[2, 3, 4] == data[2, 3, 4]


def test_record_variable_grows(comm, path, on_root):
    with exacdf.File(path, "w") as f:
        t = f.createDimension("time", None)
        f.createDimension("x", 3)
        v = f.createVariable("v", "i4", ("time", "x"))
        assert t.isunlimited() and len(t) == 0
        v[comm.rank] = np.full(3, comm.rank)  # record r by rank r
        assert len(t) == comm.size and v.shape == (comm.size, 3)
        # a slice without stop along the unlimited dimension takes the data's length
        if comm.rank == 0:
            v[comm.size:] = np.full((2, 3), 99)
        else:
            v[comm.size:comm.size] = np.zeros((0, 3))
        assert len(t) == comm.size + 2
        expect = np.vstack([np.full((comm.size, 3), np.arange(comm.size)[:, None]),
                            np.full((2, 3), 99)])
        np.testing.assert_array_equal(v[:], expect)
    got = on_root(lambda: netCDF4.Dataset(path)["v"][:].data)
    np.testing.assert_array_equal(got, expect)


def test_independent_access(comm, path):
    with exacdf.File(path, "w") as f:
        f.createDimension("r", comm.size)
        f.createDimension("x", 4)
        v = f.createVariable("v", "f4", ("r", "x"))
        with f.independent():
            v[comm.rank] = np.arange(4) * (comm.rank + 1)
            if comm.rank == 0:
                v.put_var(np.array([[7]], "f4"), start=[0, 0], count=[1, 1])
        comm.Barrier()
        f.sync()
        got = v.get_var_all()
    expect = np.arange(4)[None, :] * (np.arange(comm.size)[:, None] + 1)
    expect[0, 0] = 7
    np.testing.assert_array_equal(got, expect)


def test_empty_slices_on_some_ranks(comm, path):
    with exacdf.File(path, "w") as f:
        f.createDimension("x", 10)
        v = f.createVariable("v", "i2", ("x",))
        s = f.createVariable("s", "f8", ())
        if comm.rank == 0:
            v[:] = np.arange(10)
            s[...] = 2.5
        else:
            v[5:5] = []
            s[...] = 2.5  # the same value from every rank
        part = v[3:7] if comm.rank == comm.size - 1 else v[0:0]
        assert part.shape == ((4,) if comm.rank == comm.size - 1 else (0,))
        assert float(s[...]) == 2.5
    if comm.rank == comm.size - 1:
        np.testing.assert_array_equal(part, [3, 4, 5, 6])


def test_fancy_indexes_are_one_varn(comm, path, on_root):
    data = np.arange(8 * 6, dtype="i4").reshape(8, 6)
    with exacdf.File(path, "w") as f:
        f.createDimension("y", 8)
        f.createDimension("x", 6)
        v = f.createVariable("v", "i4", ("y", "x"))
        v[:] = data  # the same values from every rank
        rows = [5, 1, 2, 3, 7] if comm.rank % 2 == 0 else []
        got = v[rows, ::2]
        np.testing.assert_array_equal(got, data[rows][:, ::2])
        np.testing.assert_array_equal(v[[0, 0, 4], [5, 1]], data[[0, 0, 4]][:, [5, 1]])
        mask = np.zeros(6, bool)
        mask[[1, 4]] = True
        np.testing.assert_array_equal(v[2, mask], data[2, mask])
        # orthogonal write: each rank its own row, columns 1 and 3
        mine = [comm.rank] if comm.rank < 8 else []
        v[mine, [1, 3]] = np.full((len(mine), 2), -1)
        data[: min(comm.size, 8)][:, [1, 3]] = -1
        np.testing.assert_array_equal(v[:], data)
    np.testing.assert_array_equal(on_root(lambda: netCDF4.Dataset(path)["v"][:].data), data)


def test_implicit_and_explicit_modes(comm, path, on_root):
    with exacdf.File(path, "w", format="cdf2") as f:
        f.def_dim("x", 4)
        a = f.def_var("a", exacdf._core.NC_INT, ("x",))
        a.put_att("units", "m")
        assert f.indefine
        a[:] = np.arange(4)  # ends define mode
        assert not f.indefine
        b = f.createVariable("b", "f8", ("x",))  # re-enters it
        assert f.indefine
        b[:] = a[:] * 0.5
        f.redef()
        f.title = "explicit"
        a.scale = 2.0
        del a.units
        f.enddef()
        assert a.get_att("scale") == 2.0 and "units" not in a.ncattrs()
        assert f.get_att("title") == "explicit"
        f.renameVariable("b", "half")
        assert "half" in f.variables and b.name == "half"
        np.testing.assert_array_equal(f["half"][:], np.arange(4) * 0.5)
    out = on_root(lambda: ncdump(path))
    assert ":title = \"explicit\"" in out and "half = 0, 0.5, 1, 1.5" in out


def test_attribute_types(path):
    with exacdf.File(path, "w") as f:
        f.i = 3
        f.f = 1.5
        f.arr = np.array([1, 2, 3], "u2")
        f.flag = True
        f.b = np.int8(-4)
        assert f.i == 3 and f.getncattr("f") == 1.5 and f.flag == 1
        assert f.b == -4 and f.b.dtype == np.int8
        np.testing.assert_array_equal(f.arr, [1, 2, 3])
        assert f.arr.dtype == np.uint16
        with pytest.raises(AttributeError):
            f.nothing


def test_nonblocking_requests(comm, path):
    with exacdf.File(path, "w") as f:
        f.createDimension("t", None)
        f.createDimension("x", 5)
        v = f.createVariable("v", "f8", ("t", "x"))
        reqs = [v.iput((comm.rank * 2 + k,), np.full(5, comm.rank * 10 + k)) for k in range(2)]
        done = f.wait_all()
        assert all(r.done for r in reqs) and set(done) == set(reqs)
        g = v.iget((slice(None), slice(None, None, 2)))
        f.wait_all()
        expect = np.repeat(np.arange(comm.size) * 10, 2) + np.tile([0, 1], comm.size)
        np.testing.assert_array_equal(g.data, np.repeat(expect[:, None], 3, axis=1))


def test_wait_all_lists_failed_requests(comm, path):
    with exacdf.File(path, "w") as f:
        f.createDimension("x", 4)
        v = f.createVariable("v", "i1", ("x",))
        w = f.createVariable("w", "i1", ("x",))
        good = v.iput(slice(0, 2), [1, 2])
        bad1 = v.iput(slice(2, 4), [1000, 3])  # out of range for NC_BYTE
        bad2 = w.iput(slice(None), [-300, 1, 2, 3])
        with pytest.raises(exacdf.WaitAllError) as e:
            f.wait_all()
        assert [r for r, _, _ in e.value.failures] == [bad1, bad2]
        assert e.value.code == -60  # NC_ERANGE
        assert good.done and "2 nonblocking request(s) failed" in str(e.value)


def test_errors_are_exceptions(comm, path, workdir):
    with pytest.raises(exacdf.NCError) as e:
        exacdf.File(workdir + "/does-not-exist.nc")
    assert e.value.code == -220  # NC_ENOENT
    assert e.value.rank == comm.rank and e.value.message
    with exacdf.File(path, "w", format="cdf1") as f:
        f.createDimension("x", 3)
        with pytest.raises(exacdf.NCError) as e:
            f.createVariable("u", "u8", ("x",))  # no 64-bit types in CDF-1
        assert e.value.code == -232  # NC_ESTRICTCDF2
        v = f.createVariable("v", "i4", ("x",))
        with pytest.raises(exacdf.NCError) as e:
            f.createDimension("x", 4)
        assert e.value.code == -42  # NC_ENAMEINUSE
        # an index error on one rank: it still takes part in the collective call
        if comm.rank == 0:
            with pytest.raises(IndexError):
                v[7] = 1
        else:
            v[1] = 5
        if comm.rank == 0:
            with pytest.raises(IndexError):
                v[[0, 9]]
        else:
            assert list(v[[1]]) == [5]
        value = v[1]
        if comm.size > 1:
            assert value == 5


def test_partitioned_path_names_and_independent_define(comm, path, on_root):
    with exacdf.File(path, "w", format="partitioned", define="independent") as f:
        f.createDimension(f"/rank{comm.rank}/n", 3)
        v = f.createVariable(f"/rank{comm.rank}/data", "i8", (f"/rank{comm.rank}/n",))
        v.owner = comm.rank
        v[:] = np.arange(3) + 100 * comm.rank
        names = sorted(f.variables)
    assert names == sorted(f"/rank{r}/data" for r in range(comm.size))
    with exacdf.File(path) as f:
        assert f.format == "partitioned"
        for r in range(comm.size):
            v = f.variables[f"/rank{r}/data"]
            assert v.owner == r
            np.testing.assert_array_equal(v[:], np.arange(3) + 100 * r)


def test_info_hints_and_comm_self(comm, path):
    if comm.rank == 0:
        from mpi4py import MPI
        p = path.replace(".nc", "-self.nc")
        with exacdf.File(p, "w", comm=MPI.COMM_SELF, info={"nc_header_align_size": "1024"}) as f:
            f.createDimension("x", 2)
            f.createVariable("v", "f4", ("x",))[:] = [1, 2]
        with exacdf.File(p, comm=MPI.COMM_SELF) as f:
            np.testing.assert_array_equal(f["v"][:], [1, 2])
    comm.Barrier()


def test_version_report(capsys):
    from exacdf.__main__ import main
    assert main() == 0
    out = capsys.readouterr().out
    assert f"exacdf (Python package) {exacdf.__version__}" in out
    assert "MPI library" in out and exacdf.library_version() in out
