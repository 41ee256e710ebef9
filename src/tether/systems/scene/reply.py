"""What the host accepts from the scene worker: a reply schema and files read by name.

The worker runs model- and task-written programs, so everything it sends is untrusted:
- a reply is JSON text validated against ChildReply (pydantic, unknown keys refused,
  nesting bounded by the parser), else the execution is an error;
- the host never takes a path from a reply: outputs have names the host fixed
  (executor.py), looked up in the worker's own directory, and read only when the name
  is a regular file there with one link, opened without following a symlink
  (O_NOFOLLOW) and without blocking on a FIFO;
- inputs the host places in that directory are created afresh (O_EXCL, O_NOFOLLOW), so
  a link the program left under that name cannot redirect the write.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

MAX_OUTPUT_BYTES = 512 * 1024 * 1024


class UnsafeOutput(Exception):
    """An output name in the worker's directory that is not a plain file of its own."""


class ChildError(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: str
    type: str = ""
    message: str = ""
    line: int | None = None
    traceback: str = ""


class ChildState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    cells: dict[str, Any]
    bindings: list[dict[str, Any]]
    structure: dict[str, Any]


class ChildReply(BaseModel):
    """One execution as the worker's child reports it (the fields _child.py writes);
    strict: a path where a flag belongs is refused, not coerced."""

    model_config = ConfigDict(extra="forbid", strict=True)

    ok: bool
    error: ChildError | None
    events: list[dict[str, Any]]
    unresolved: list[dict[str, Any]]
    truncated: bool
    state: ChildState | None
    overrides: list[dict[str, Any]]
    contaminated: list[str]
    rendered: bool
    saved: bool
    blocked: list[str] = Field(default_factory=list)
    state_error: str | None = None
    save_error: str | None = None


class Died(BaseModel):
    """The template's word that an execution's process ended without replying."""

    model_config = ConfigDict(extra="forbid", strict=True)

    died: Literal["signal", "exit"]
    code: int = Field(ge=-255, le=255)


def parse_died(value: Any) -> tuple[Died | None, str]:
    """(died, "") or (None, why it is refused)."""
    try:
        return Died.model_validate(value), ""
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "top level"
        return None, f"malformed death notice ({where}: {first['msg']})"[:500]


def parse_reply(text: Any) -> tuple[ChildReply | None, str]:
    """(reply, "") or (None, why it is refused)."""
    if not isinstance(text, str):
        return None, f"the worker's reply is not JSON text but {type(text).__name__}"
    try:
        return ChildReply.model_validate_json(text), ""
    except ValidationError as exc:
        first: Mapping[str, Any] = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()))
        return None, f"malformed reply ({where or 'top level'}: {first.get('msg', exc)})"[:500]


def inside(workdir: Path, name: str) -> Path:
    """workdir/name, refused unless it names an entry directly inside workdir."""
    if not name or "/" in name or name in (".", "..") or "\0" in name:
        raise UnsafeOutput(f"{name!r} is not a plain file name")
    root = workdir.resolve()
    path = root / name
    if path.parent != root:
        raise UnsafeOutput(f"{name!r} is outside the worker's directory")
    return path


def read_output(workdir: Path, name: str, *, max_bytes: int = MAX_OUTPUT_BYTES) -> bytes | None:
    """The bytes of the worker's output `name` and the file removed; None when absent.
    Raises UnsafeOutput for a symlink, FIFO, directory, hard link or oversized file."""
    path = inside(workdir, name)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:  # ELOOP: the name is a symlink
        _remove(path)
        raise UnsafeOutput(f"{name} is not a regular file in the worker's directory "
                           f"({exc.strerror})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
            raise UnsafeOutput(f"{name} is not a regular file of its own in the worker's "
                               "directory")
        if st.st_size > max_bytes:
            raise UnsafeOutput(f"{name} is over {max_bytes} bytes")
        with os.fdopen(os.dup(fd), "rb") as f:
            data = f.read(max_bytes + 1)
        if len(data) > max_bytes:
            raise UnsafeOutput(f"{name} is over {max_bytes} bytes")
        return data
    finally:
        os.close(fd)
        _remove(path)


def write_input(workdir: Path, name: str, data: bytes) -> None:
    """Place `data` as workdir/name, created afresh (whatever held the name is removed)."""
    path = inside(workdir, name)
    _remove(path)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                 0o644)
    with os.fdopen(fd, "wb") as f:
        f.write(data)


def _remove(path: Path) -> None:
    """Unlink a name (never follows it); a directory under the name is left."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    except IsADirectoryError:
        pass
