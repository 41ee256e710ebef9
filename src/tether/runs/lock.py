"""One process at a time writes in a directory: DIR/.lock, an exclusive flock.

Two processes resuming one run directory would both run its remaining trials and record
each twice; so the first writer takes the lock and a second one is refused with a
one-line error naming the holder's pid. The lock belongs to the process (flock on an open
file, released when the file is closed or the process ends, a kill -9 included), so
several writers in one process share it: it is held until the last of them releases it.
"""

from __future__ import annotations

import fcntl
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from tether.errors import ConfigError

LOCK_NAME = ".lock"


@dataclass
class _Held:
    file: IO[str]
    holders: int


#: the directories this process holds the lock of (their open lock files)
_HELD: dict[Path, _Held] = {}
_GUARD = threading.Lock()


class DirectoryBusy(ConfigError):
    """Another process holds the directory's lock (exit 2, naming its pid)."""


def lock_directory(directory: Path, *, what: str, hint: str) -> None:
    """Hold `directory`'s lock (a second holder in this process shares it); DirectoryBusy
    "DIR: another process holds this WHAT (pid N)" when another process has it."""
    directory.mkdir(parents=True, exist_ok=True)
    key = directory.resolve()
    with _GUARD:
        held = _HELD.get(key)
        if held is not None:
            held.holders += 1
            return
        fh = (directory / LOCK_NAME).open("a+", encoding="utf-8")
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            holder = fh.read(32).strip()
            fh.close()
            raise DirectoryBusy(f"{directory}: another process holds this {what}"
                                + (f" (pid {holder})" if holder.isdigit() else ""),
                                hint=hint) from None
        fh.seek(0)
        fh.truncate()
        fh.write(str(os.getpid()))
        fh.flush()
        _HELD[key] = _Held(fh, 1)


def unlock_directory(directory: Path) -> None:
    """Give up one hold of `directory`'s lock; the last one lets other processes in."""
    key = directory.resolve()
    with _GUARD:
        held = _HELD.get(key)
        if held is None:
            return
        held.holders -= 1
        if held.holders <= 0:
            del _HELD[key]
            held.file.close()  # closing the file releases its flock


def holds_directory(directory: Path) -> bool:
    """Whether this process holds `directory`'s lock."""
    return directory.resolve() in _HELD
