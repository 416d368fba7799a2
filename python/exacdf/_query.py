"""Queries over values (include/exacdf_query.h) from Python.

``q = f.query("energy > 1.9 and x < 0.5")`` names variables of one shape; ``q & r``,
``q | r`` and ``~q`` combine queries. ``q.evaluate()`` is collective: each rank evaluates
its box (default: the library's split of dimension 0 across the ranks) and gets its number
of hits; ``q.hits()`` gives this rank's hit coordinates (row-major order) and
``q.get("x")`` reads another variable at the hits in one collective read. An index built
with ``v.create_index("bins=64")`` is used when it is current; queries never answer from a
stale chunk of it (one written since it was built: its values are tested), and
``v.create_index("update")`` rebuilds only the stale, changed and new chunks.
"""
from __future__ import annotations

import numpy as np

from . import _core
from ._types import empty_buffer, from_buffer


class Query:
    """A condition over the values of a file's variables (exa_query_*)."""

    def __init__(self, file, qid: int):
        self._file = file
        self._qid = qid
        self._nhits: int | None = None

    @property
    def ndims(self) -> int:
        """Coordinates per hit: the number of dimensions of the query's variables."""
        return _core.query_ndims(self._live())

    def __and__(self, other: "Query") -> "Query":
        return Query(self._file, _core.query_combine(self._live(), _core.QUERY_AND, other._live()))

    def __or__(self, other: "Query") -> "Query":
        return Query(self._file, _core.query_combine(self._live(), _core.QUERY_OR, other._live()))

    def __invert__(self) -> "Query":
        return Query(self._file, _core.query_not(self._live()))

    def evaluate(self, start=None, count=None) -> int:
        """Collective: evaluates on this rank's box; returns this rank's number of hits."""
        if (start is None) != (count is None):
            raise ValueError("give both start and count, or neither")
        self._file._data_mode()
        start = [] if start is None else [int(s) for s in start]
        count = [] if count is None else [int(c) for c in count]
        self._nhits = int(_core.query_eval(self._file._ncid, self._live(), start, count))
        return self._nhits

    def hits(self) -> np.ndarray:
        """This rank's hits of the last evaluate(), an int64 array (nhits, ndims)."""
        n = self._evaluated()
        coords = np.empty((n, self.ndims), dtype=np.int64)
        if n:
            _core.query_hits(self._file._ncid, self._live(), coords)
        return coords

    def get(self, var) -> np.ndarray:
        """Collective: the values of var (a name or Variable of the same shape) at the hits."""
        v = self._file.variables[var] if isinstance(var, str) else var
        n = self._evaluated()
        out = empty_buffer((n,), v._nc_type)
        _core.query_get(self._file._ncid, self._live(), v._varid, out, v._nc_type)
        return from_buffer(out, v._nc_type)

    def free(self) -> None:
        if self._qid >= 0:
            _core.query_free(self._qid)
            self._qid = -1

    def __enter__(self) -> "Query":
        return self

    def __exit__(self, *exc) -> None:
        self.free()

    def _live(self) -> int:
        if self._qid < 0:
            raise ValueError("this query has been freed")
        return self._qid

    def _evaluated(self) -> int:
        if self._nhits is None:
            raise ValueError("evaluate() the query first")
        return self._nhits
