"""iput / iget with list (fancy) indexes: one varn request each, completed by wait_all,
values equal to numpy's orthogonal indexing and to netCDF4-python's reading of the file."""
import netCDF4
import numpy as np
import pytest

import exacdf


def _make(f, data):
    f.createDimension("y", data.shape[0])
    f.createDimension("x", data.shape[1])
    return f.createVariable("v", "i4", ("y", "x"))


def test_iget_lists_match_numpy(comm, path):
    data = np.arange(9 * 7, dtype="i4").reshape(9, 7)
    with exacdf.File(path, "w") as f:
        v = _make(f, data)
        v[:] = data
        rows = [8, 0, 1, 2, 5] if comm.rank % 2 == 0 else [comm.rank % 9]
        a = v.iget((rows, slice(None, None, 3)))       # list x strided slice
        b = v.iget(([4, 4, 0], [6, 1, 2]))              # repeated and unsorted lists
        c = v.iget((3, [5, 1]))                         # integer x list: the row axis dropped
        d = v.iget(([], [1, 2]))                        # an empty list: a request of nothing
        e = v.iget((slice(None, None, -2), [0, 6]))     # a flipped slice with a list
        assert not any(r.done for r in (a, b, c, d, e))
        f.wait_all()
        np.testing.assert_array_equal(a.data, data[rows][:, ::3])
        np.testing.assert_array_equal(b.data, data[[4, 4, 0]][:, [6, 1, 2]])
        np.testing.assert_array_equal(c.data, data[3, [5, 1]])
        assert d.data.shape == (0, 2)
        np.testing.assert_array_equal(e.data, data[::-2][:, [0, 6]])


def test_iput_lists_each_rank_its_rows(comm, path, on_root):
    ny, nx = 2 * comm.size + 1, 6
    expect = np.zeros((ny, nx), "i4")
    with exacdf.File(path, "w") as f:
        v = _make(f, expect)
        v[:] = expect
        # rank r writes rows 2r+1 and 2r (in that order) at columns 5, 0 and 3
        rows, cols = [2 * comm.rank + 1, 2 * comm.rank], [5, 0, 3]
        vals = (np.arange(6, dtype="i4").reshape(2, 3) + 100 * (comm.rank + 1))
        r1 = v.iput((rows, cols), vals)
        # and one list of single elements in the last row, column comm.rank % nx
        r2 = v.iput((ny - 1, [comm.rank % nx]), [7])
        f.wait_all()
        assert r1.done and r2.done
        for r in range(comm.size):
            expect[np.ix_([2 * r + 1, 2 * r], [5, 0, 3])] = (
                np.arange(6, dtype="i4").reshape(2, 3) + 100 * (r + 1))
            expect[ny - 1, r % nx] = 7
        f.sync()
        np.testing.assert_array_equal(v[:], expect)
    np.testing.assert_array_equal(on_root(lambda: netCDF4.Dataset(path)["v"][:].data), expect)


def test_iput_list_out_of_range_reported_at_wait(comm, path):
    with exacdf.File(path, "w") as f:
        f.createDimension("x", 4)
        v = f.createVariable("v", "i1", ("x",))
        good = v.iput([0, 2], [1, 2])
        bad = v.iput([3, 1], [5, 1000])  # 1000 does not fit NC_BYTE
        with pytest.raises(exacdf.WaitAllError) as e:
            f.wait_all()
        assert [r for r, _, _ in e.value.failures] == [bad]
        assert e.value.code == -60  # NC_ERANGE
        assert good.done
        got = v[:]
        assert got[0] == 1 and got[2] == 2


def test_iget_list_index_out_of_bounds_raises(comm, path):
    with exacdf.File(path, "w") as f:
        f.createDimension("x", 4)
        v = f.createVariable("v", "i4", ("x",))
        with pytest.raises(IndexError):
            v.iget([1, 4])
        assert f.wait_all() == []
