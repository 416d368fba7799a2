"""Queries over values from Python (exacdf.Query): every answer equals numpy's on the same
data, with and without a bitmap index, combined with & | ~, on both formats."""
import numpy as np
import pytest

import exacdf
from conftest import rows_of

N = 1000


def data():
    rng = np.random.default_rng(7)
    energy = rng.random(N).astype(np.float32) * 3
    x = (np.arange(N) * 7 % 100).astype(np.int32)
    return energy, x


def write(path, comm, fmt):
    energy, x = data()
    lo, hi = rows_of(N, comm)
    with exacdf.File(path, "w", format=fmt) as f:
        f.createDimension("n", N)
        e = f.createVariable("energy", "f4", ("n",))
        v = f.createVariable("x", "i4", ("n",))
        e[lo:hi] = energy[lo:hi]
        v[lo:hi] = x[lo:hi]


@pytest.mark.parametrize("fmt", ["cdf5", "partitioned"])
@pytest.mark.parametrize("indexed", [False, True])
def test_query_matches_numpy(comm, path, fmt, indexed):
    write(path, comm, fmt)
    energy, x = data()
    lo, hi = rows_of(N, comm)  # the library's default split: rows [r*n/p, (r+1)*n/p)
    with exacdf.File(path, "r") as f:
        if indexed:
            f.variables["energy"].create_index("bins=8")
        cases = {
            "energy > 1.9": energy > np.float32(1.9),
            "energy > 1.9 and x < 30": (energy > np.float32(1.9)) & (x < 30),
        }
        for text, mask in cases.items():
            with f.query(text) as q:
                n = q.evaluate()
                want = np.nonzero(mask[lo:hi])[0] + lo
                assert n == len(want), text
                assert q.ndims == 1
                np.testing.assert_array_equal(q.hits()[:, 0], want)
                np.testing.assert_array_equal(q.get("x"), x[want])
                np.testing.assert_array_equal(q.get(f.variables["energy"]), energy[want])
                assert comm.allreduce(n) == int(mask.sum())
        a, b = f.query("energy <= 0.5"), f.query("x >= 90")
        for q, mask in ((a | b, (energy <= np.float32(0.5)) | (x >= 90)),
                        (a & ~b, (energy <= np.float32(0.5)) & ~(x >= 90)),
                        (~a, ~(energy <= np.float32(0.5)))):
            q.evaluate()
            np.testing.assert_array_equal(q.hits()[:, 0], np.nonzero(mask[lo:hi])[0] + lo)
            q.free()
        a.free()
        b.free()


def test_query_box_and_errors(comm, path):
    write(path, comm, "cdf5")
    energy, _ = data()
    with exacdf.File(path, "r") as f:
        q = f.query("energy < 1")
        with pytest.raises(ValueError):
            q.hits()  # not evaluated yet
        start, count = (comm.rank * 10,), (10,)  # an explicit box per rank
        n = q.evaluate(start, count)
        want = np.nonzero(energy[start[0]:start[0] + 10] < 1)[0] + start[0]
        assert n == len(want)
        np.testing.assert_array_equal(q.hits()[:, 0], want)
        q.free()
        with pytest.raises(ValueError):
            q.evaluate()  # freed
        with pytest.raises(exacdf.NCError) as e:
            f.query("nosuch > 1")
        assert e.value.code == exacdf._core.NC_ENOTVAR
        with pytest.raises(exacdf.NCError):
            f.query("energy >")  # does not parse
