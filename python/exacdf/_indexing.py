"""numpy-style keys -> the subarray requests of one data call.

A key selects, per dimension, one index (the dimension is dropped), a slice, or a list of
indices (orthogonal indexing, as netCDF4-python). Without lists the request is one strided
subarray (vars); with lists each dimension becomes runs of consecutive indices and the
request is their product, one varn call. Negative steps read forwards and flip.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np


@dataclass
class Axis:
    """One dimension of a selection: file runs (start, count) with their output offsets."""

    runs: list  # [(file_start, count, out_offset)]
    size: int  # elements along this axis in the output
    dropped: bool = False  # an integer index: the output has no such axis
    stride: int = 1  # for a single strided run (slices only)
    flip: bool = False  # a negative step: read forwards, reverse the axis


@dataclass
class Selection:
    axes: list = field(default_factory=list)
    #: the key had a list index: the request is one varn call (on every rank whose key has
    #: the same form, whatever its values: a rank with an empty list takes part with none).
    #: The form, not the values, decides: a put_vara_all on one rank against a put_varn_all
    #: on another hangs, in PnetCDF 1.12.3 as in exacdf (blocking varn is post + wait_all).
    fancy: bool = False

    @property
    def shape(self) -> tuple:
        """Shape of the data with every axis (dropped ones have size 1)."""
        return tuple(a.size for a in self.axes)

    @property
    def out_shape(self) -> tuple:
        return tuple(a.size for a in self.axes if not a.dropped)

    @property
    def empty(self) -> bool:
        return any(a.size == 0 for a in self.axes)


    def vars_request(self):
        """(start, count, stride) of a simple selection; all zero-count when empty."""
        if self.empty:
            n = len(self.axes)
            return [0] * n, [0] * n, [1] * n
        start = [a.runs[0][0] for a in self.axes]
        count = [a.runs[0][1] for a in self.axes]
        stride = [a.stride for a in self.axes]
        return start, count, stride

    def varn_requests(self):
        """(starts, counts, out slices) of the product of every axis's runs."""
        if self.empty:
            return [], [], []
        starts, counts, where = [], [], []
        for combo in itertools.product(*(a.runs for a in self.axes)):
            starts.append([r[0] for r in combo])
            counts.append([r[1] for r in combo])
            where.append(tuple(slice(r[2], r[2] + r[1]) for r in combo))
        return starts, counts, where

    def flips(self) -> tuple:
        """Output axes (of the full shape) to reverse."""
        return tuple(i for i, a in enumerate(self.axes) if a.flip)


def _expand_key(key, ndim: int) -> tuple:
    if not isinstance(key, tuple):
        key = (key,)
    if any(k is None for k in key):
        raise IndexError("numpy.newaxis is not supported in a netCDF variable's index")
    n_ell = sum(1 for k in key if k is Ellipsis)
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if n_ell:
        i = next(j for j, k in enumerate(key) if k is Ellipsis)
        key = key[:i] + (slice(None),) * (ndim - len(key) + 1) + key[i + 1 :]
    if len(key) > ndim:
        raise IndexError(f"too many indices: {len(key)} for a variable of {ndim} dimension(s)")
    return key + (slice(None),) * (ndim - len(key))


def _runs(indices) -> list:
    """Indices -> runs (start, count, out_offset) of consecutive ascending values."""
    runs = []
    for pos, i in enumerate(indices):
        i = int(i)
        if runs and runs[-1][0] + runs[-1][1] == i and runs[-1][2] + runs[-1][1] == pos:
            s, c, o = runs[-1]
            runs[-1] = (s, c + 1, o)
        else:
            runs.append((i, 1, pos))
    return runs


def _int_index(k, n: int, growable: bool) -> int:
    i = int(k)
    if i < 0:
        i += n
    if i < 0 or (i >= n and not growable):
        raise IndexError(f"index {int(k)} is out of bounds for a dimension of length {n}")
    return i


def _slice_axis(k: slice, n: int, growable_len) -> Axis:
    step = 1 if k.step is None else int(k.step)
    if step == 0:
        raise ValueError("slice step cannot be zero")
    if growable_len is not None and step > 0:
        # A write along an unlimited dimension may go past its end.
        start = 0 if k.start is None else int(k.start)
        start = start + n if start < 0 else start
        if k.stop is None:
            stop = start + growable_len * step
        else:
            stop = int(k.stop) + n if int(k.stop) < 0 else int(k.stop)
        start = max(start, 0)
        count = max(0, -(-(stop - start) // step))
    else:
        start, stop, step = k.indices(n)
        count = len(range(start, stop, step))
    if step > 0:
        return Axis(runs=[(start, count, 0)], size=count, stride=step)
    first = start + (count - 1) * step  # the lowest index read
    return Axis(runs=[(first, count, 0)], size=count, stride=-step, flip=True)


def select(key, shape, unlimited=(), write_shape=None) -> Selection:
    """The selection of key over a variable of shape.

    unlimited: per-dimension flags; for writes (write_shape: the data's shape, or None),
    an unlimited dimension may be written past its current length.
    """
    ndim = len(shape)
    key = _expand_key(key, ndim)
    writing = write_shape is not None
    kept = [not isinstance(k, (int, np.integer)) for k in key]
    data_len = {}
    if writing and len(write_shape) == sum(kept):
        j = 0
        for d, keep in enumerate(kept):
            if keep:
                data_len[d] = write_shape[j]
                j += 1
    axes = []
    has_list = False
    for d, k in enumerate(key):
        n = int(shape[d])
        growable = writing and bool(unlimited[d] if unlimited else False)
        if isinstance(k, (int, np.integer)) and not isinstance(k, bool):
            i = _int_index(k, n, growable)
            axes.append(Axis(runs=[(i, 1, 0)], size=1, dropped=True))
        elif isinstance(k, slice):
            axes.append(_slice_axis(k, n, data_len.get(d, n) if growable else None))
        else:
            idx = np.asarray(k)
            if idx.dtype == bool:
                if idx.ndim != 1 or (idx.shape[0] != n and not growable):
                    raise IndexError("a boolean index must be 1-D and as long as its dimension")
                idx = np.nonzero(idx)[0]
            if idx.ndim != 1 or (idx.size and idx.dtype.kind not in "iu"):
                raise IndexError("only integers, slices, ellipsis and 1-D integer or boolean "
                                 "lists are valid indices")
            idx = [_int_index(i, n, growable) for i in idx.tolist()]
            has_list = True
            axes.append(Axis(runs=_runs(idx), size=len(idx)))
    if has_list:
        # Strided slices join the product as lists of single indices.
        for a in axes:
            if a.stride != 1 or a.flip:
                first, count, _ = a.runs[0]
                idx = [first + i * a.stride for i in range(count)]
                if a.flip:
                    idx.reverse()
                a.runs, a.stride, a.flip = _runs(idx), 1, False
    return Selection(axes, fancy=has_list)


def is_fancy(key) -> bool:
    """Whether key has a list index (the form of the key, not its values)."""
    key = key if isinstance(key, tuple) else (key,)
    return any(not isinstance(k, (int, np.integer, slice)) and k is not Ellipsis and k is not None
               for k in key)
