"""Exceptions of exacdf: every NC_* error code becomes an :class:`NCError`."""
from __future__ import annotations


class NCError(RuntimeError):
    """An NC_* error returned by the library.

    Attributes:
        code: the NC_* code (negative), e.g. -49 for NC_ENOTVAR.
        message: the library's text for the code (ncmpi_strerror).
        rank: the rank (in MPI_COMM_WORLD) that raised it, -1 if MPI is not running.
    """

    def __init__(self, code: int, message: str, rank: int = -1):
        super().__init__(code, message, rank)
        self.code = int(code)
        self.message = str(message)
        self.rank = int(rank)

    def __str__(self) -> str:
        return f"[rank {self.rank}] NC error {self.code}: {self.message}"

    def __reduce__(self):
        return (type(self), (self.code, self.message, self.rank))


class WaitAllError(NCError):
    """Some nonblocking requests failed in :meth:`File.wait_all`.

    ``failures`` lists ``(request, code, message)`` for each failed request; ``code`` and
    ``message`` are those of the first one.
    """

    def __init__(self, failures, rank: int = -1):
        failures = list(failures)
        first = failures[0] if failures else (None, -1, "unknown")
        super().__init__(first[1], first[2], rank)
        self.failures = failures

    def __str__(self) -> str:
        lines = [f"[rank {self.rank}] {len(self.failures)} nonblocking request(s) failed:"]
        lines += [f"  {req!r}: NC error {code}: {msg}" for req, code, msg in self.failures]
        return "\n".join(lines)

    def __reduce__(self):
        return (type(self), (self.failures, self.rank))
