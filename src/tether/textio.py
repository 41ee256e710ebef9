"""JSON and TOML text from files and from sandboxed workers, read with bounded nesting.

`json.loads` recurses once per nesting level: `"[" * 100000` raises RecursionError,
and a value that parses at depth 900 can still overflow the stack of whatever walks it
next (repr, a validator, json.dumps). `loads` parses with pydantic-core's parser
instead, which refuses nesting past MAX_DEPTH levels without recursing in Python, so
every failure is one JSONError naming what is wrong and where.

    value = loads(text)                    # JSONError (a ValueError) when not JSON
    value = read_json(path)                # ConfigError naming the file
    table = read_toml(path)                # ConfigError naming the file

tomllib recurses too, with no parser to swap in: a TOML file nested past the
interpreter's recursion limit is caught as such and reported like any syntax error.

It reads what `json.dumps` writes, NaN and Infinity included; a lone UTF-16 surrogate
escape (which no UTF-8 text can hold) is refused.

A user's text file is read as `utf-8-sig`: the byte-order mark spreadsheets and some
editors write is not part of the text. JSON Lines are split on `\n` only
(`jsonl_lines`): `str.splitlines` also splits on U+2028, U+0085 and other characters a
JSON string may hold raw.

Every file reader here is bounded: `read_bytes` takes only a regular file (a FIFO would
wait for a writer forever, `/dev/zero` never ends) of at most `limit` bytes
(MAX_FILE_BYTES unless the caller names another), and says which in one line.
"""

from __future__ import annotations

import os
import re
import stat
import tomllib
from pathlib import Path
from typing import Any

from pydantic_core import from_json

from tether.errors import ConfigError

__all__ = ["MAX_DEPTH", "MAX_FILE_BYTES", "JSONError", "jsonl_lines", "loads", "loads_toml",
           "read_bytes", "read_json", "read_text", "read_toml", "resolved"]

#: the deepest nesting `loads` accepts (pydantic-core's parser limit)
MAX_DEPTH = 200
#: the largest file a reader here takes unless its caller names another limit (a config,
#: a price table, a data file of rows): 256 MiB
MAX_FILE_BYTES = 256 * 2**20

_UTF8_BOM = b"\xef\xbb\xbf"
#: what JSON counts as whitespace besides the \n a JSON Lines file is split on
_JSON_BLANK = " \t\r"

_WHERE = re.compile(r"^(?P<msg>.*?)(?: at line (?P<line>\d+) column (?P<col>\d+))?$", re.S)


class JSONError(ValueError):
    """Text that is not JSON, or nested deeper than MAX_DEPTH: `msg`, `lineno`, `colno`."""

    def __init__(self, msg: str, lineno: int = 0, colno: int = 0) -> None:
        self.msg, self.lineno, self.colno = msg, lineno, colno
        where = f" at line {lineno} column {colno}" if lineno else ""
        super().__init__(msg + where)


def loads(data: str | bytes) -> Any:
    """The JSON value of `data` (text, or UTF-8 bytes); JSONError when it is not JSON."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JSONError(f"not UTF-8 text (byte {exc.start})") from None
    try:
        return from_json(data, allow_inf_nan=True)
    except ValueError as exc:
        found = _WHERE.match(str(exc))
        assert found is not None  # the pattern matches any text
        msg = found["msg"]
        if msg.startswith("recursion limit exceeded"):
            msg = f"nested deeper than {MAX_DEPTH} levels"
        raise JSONError(msg, int(found["line"] or 0), int(found["col"] or 0)) from None


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def read_bytes(path: str | Path, *, what: str = "", limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of the regular file at `path`, at most `limit` of them; a one-line
    ConfigError naming it (and `what` it is) when it cannot be read, is not a regular
    file (a FIFO, a device, a directory) or is larger than `limit`."""
    p = Path(path)
    label = f"{what} {p}" if what else str(p)
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused below)
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise ConfigError(f"{label}: cannot read: {exc.strerror}") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise ConfigError(f"{label}: cannot read: {_kind(mode)}, not a regular file")
    with os.fdopen(fd, "rb") as fh:
        os.set_blocking(fd, True)
        try:
            data = fh.read(limit + 1)
        except OSError as exc:
            raise ConfigError(f"{label}: cannot read: {exc.strerror}") from None
    if len(data) > limit:
        raise ConfigError(f"{label}: larger than {limit:,} bytes, the most read here")
    return data


def resolved(path: str | Path, *, what: str = "") -> Path:
    """`path` made absolute with every link followed; a one-line ConfigError naming it
    when its links loop (Path.resolve raises RuntimeError for that)."""
    p = Path(path)
    try:
        return p.resolve()
    except (RuntimeError, OSError) as exc:
        label = f"{what} {p}" if what else str(p)
        why = "its links loop" if isinstance(exc, RuntimeError) else exc.strerror
        raise ConfigError(f"{label}: cannot resolve it: {why}") from None


def read_json(path: str | Path, *, what: str = "", limit: int = MAX_FILE_BYTES) -> Any:
    """The JSON value of the file at `path`; a one-line ConfigError naming it (and
    `what` it is) when it cannot be read (see `read_bytes`), is not UTF-8 or is not JSON."""
    p = Path(path)
    label = f"{what} {p}" if what else str(p)
    raw = read_bytes(p, what=what, limit=limit)
    try:
        return loads(raw.removeprefix(_UTF8_BOM))
    except JSONError as exc:
        raise ConfigError(f"{label}: not valid JSON: {exc}") from None


def loads_toml(text: str) -> dict[str, Any]:
    """The table of TOML `text`; tomllib.TOMLDecodeError when it is not TOML (nesting
    past the recursion limit included)."""
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise tomllib.TOMLDecodeError("nested too deeply to read") from None


def jsonl_lines(text: str) -> list[tuple[int, str]]:
    """(line number from 1, line) of every line of JSON Lines `text` that is not blank,
    split on `\n` only (a raw U+2028 inside a JSON string stays in its line)."""
    return [(number, line) for number, line in enumerate(text.split("\n"), 1)
            if line.strip(_JSON_BLANK)]


def read_text(path: str | Path, *, what: str = "", limit: int = MAX_FILE_BYTES) -> str:
    """The UTF-8 text of the file at `path` (a leading byte-order mark dropped); a
    one-line ConfigError naming it (and `what` it is) when it cannot be read (see
    `read_bytes`) or is not UTF-8. Line endings become newlines, as in a file opened in
    text mode."""
    p = Path(path)
    label = f"{what} {p}" if what else str(p)
    raw = read_bytes(p, what=what, limit=limit)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{label}: not UTF-8 text ({exc.reason} at byte {exc.start})"
                          ) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_toml(path: str | Path, *, what: str = "") -> dict[str, Any]:
    """The table of the TOML file at `path`; a one-line ConfigError naming it (and
    `what` it is) when it cannot be read, is not UTF-8 or is not TOML."""
    p = Path(path)
    label = f"{what} {p}" if what else str(p)
    text = read_text(p, what=what)
    try:
        return loads_toml(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{label}: not valid TOML: {exc}") from None
