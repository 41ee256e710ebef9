"""What a store write or read can run into that is not a damaged file: a full disk, a
row that is not a record. Each is one line (`tether.errors`), never a traceback, and a
full disk leaves the store as resumable as a crash would (`tether.runs.store`).
"""

from __future__ import annotations

import errno
import sqlite3

from tether.errors import TetherError

__all__ = ["DiskFull", "disk_full", "first_error", "rollback"]


class DiskFull(TetherError):
    """The disk filled while a trial was being committed (the store stays resumable)."""


def disk_full(exc: BaseException) -> bool:
    """Whether `exc` says the disk (or a quota) is full."""
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    return isinstance(exc, sqlite3.Error) and (
        getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL
        or "disk is full" in str(exc))


def rollback(db: sqlite3.Connection) -> None:
    """Roll back the open transaction, if SQLite has not already: after SQLITE_FULL it
    has, and a second ROLLBACK would raise `cannot rollback - no transaction is active`
    over the error that matters."""
    if db.in_transaction:
        db.execute("ROLLBACK")


def first_error(exc: ValueError) -> str:
    """One line of what is wrong with a record (pydantic's first error, or the text)."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        first = errors()[0]
        where = ".".join(map(str, first.get("loc", ()))) or "top level"
        return f"{where}: {first.get('msg', '')}"[:200]
    return (str(exc).splitlines() or [type(exc).__name__])[0][:200]
