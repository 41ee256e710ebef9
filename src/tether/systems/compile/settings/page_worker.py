"""Pages drawn in a helper process, ahead of the calls that show them.

Drawing a docs page (text, blur, rotation, noise, PNG) is about 30 ms of CPU, and a
compile shows a remote student one page per item: 50 items are 1.5 s of drawing. In the
compile's own process that drawing competes with everything else for the interpreter
(its start, a second of imports, is all on one core) and makes the calls it feeds wait.
A helper process has a core of its own: started as soon as a compile has its splits, it
draws the pages in the order their calls will come while the compile loads its models,
and keeps drawing while the first calls are out.

The helper is this module run as a program (`python -m`), one per process, started on
first use and kept until exit; it is not a multiprocessing child, so nothing of the
caller's program (a user's script without a `__main__` guard, say) is run again in it. It
draws one page at a time, in the order asked, each a module-level function of
JSON arguments, and answers on its stdout:

    caller -> helper   4-byte length, then JSON {"fn": "module:function", "args": [...]}
    helper -> caller   1-byte status (0 drawn, 1 failed), 4-byte length, then the PNG
                       bytes or the error's text

Whatever the helper cannot do is done where the page is asked for: `submit` returns None
when there is no helper (it could not be started, or it ended), and a drawing that failed
there is drawn again by the thread that needs the page (settings/base.py ImageMemo),
which then meets the real error. The helper is in a session of its own (Ctrl-C at the
terminal is the compile's to handle) and ends at the end of its input, which comes when
this process ends, however it ends.
"""

from __future__ import annotations

import collections
import importlib
import json
import os
import struct
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import IO, Any

__all__ = ["PageHelperError", "start", "submit"]

_REQUEST = struct.Struct(">I")
_REPLY = struct.Struct(">BI")


class PageHelperError(RuntimeError):
    """A drawing the helper could not make (its text), or the helper ended."""


class _Helper:
    """The caller's side: requests written in order, replies read in the same order by
    one reader thread, each resolving the oldest pending future."""

    def __init__(self, warm: Sequence[str] = ()) -> None:
        root = str(Path(__file__).resolve().parents[4])  # the folder `tether` is in
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", __name__, *warm], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, start_new_session=True)
        self._pending: collections.deque[Future[bytes]] = collections.deque()
        self._lock = threading.Lock()
        self.alive = True
        threading.Thread(target=self._read, name="tether-page-replies", daemon=True).start()

    def submit(self, name: str, args: tuple[Any, ...]) -> Future[bytes] | None:
        body = json.dumps({"fn": name, "args": list(args)}).encode("utf-8")
        future: Future[bytes] = Future()
        with self._lock:
            if not self.alive:
                return None
            self._pending.append(future)
            try:
                assert self.proc.stdin is not None
                self.proc.stdin.write(_REQUEST.pack(len(body)) + body)
                self.proc.stdin.flush()
            except (OSError, ValueError):  # the helper is gone: its reader fails the rest
                self._pending.remove(future)
                return None
        return future

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        try:
            while True:
                head = _read_exact(out, _REPLY.size)
                if head is None:
                    break
                status, size = _REPLY.unpack(head)
                payload = _read_exact(out, size)
                if payload is None:
                    break
                with self._lock:
                    future = self._pending.popleft()
                if status == 0:
                    future.set_result(payload)
                else:
                    future.set_exception(PageHelperError(payload.decode("utf-8", "replace")))
        finally:
            with self._lock:
                self.alive = False
                left, self._pending = list(self._pending), collections.deque()
            for future in left:
                future.set_exception(PageHelperError("the page helper ended"))


def _read_exact(stream: IO[bytes], size: int) -> bytes | None:
    data = b""
    while len(data) < size:
        chunk = stream.read(size - len(data))
        if not chunk:
            return None
        data += chunk
    return data


_lock = threading.Lock()
_helper: _Helper | None = None
_unavailable = False  # it could not be started: pages are drawn where they are asked for


def _started(warm: Sequence[str] = ()) -> _Helper | None:
    global _helper, _unavailable
    with _lock:
        if _unavailable:
            return None
        if _helper is None or not _helper.alive:
            if _helper is not None:  # it ended: one helper per process, no restarts
                _unavailable = True
                return None
            try:
                _helper = _Helper(warm)
            except OSError:
                _unavailable = True
                return None
        return _helper


def start(warm: Sequence[str] = ()) -> None:
    """Start the helper now, if it is not running, importing the modules `warm` names
    before it reads its first request. A module it cannot import is no error here: the
    drawing that needs it meets the error, and reports it."""
    _started(warm)


def submit(fn: Callable[..., bytes], *args: Any) -> Future[bytes] | None:
    """`fn(*args)` in the helper process (fn a module-level function, args JSON); None
    when there is no helper: the caller draws in-process."""
    name = f"{fn.__module__}:{fn.__qualname__}"
    if "<" in name:
        raise ValueError(f"the page helper runs module-level functions, not {name}")
    helper = _started()
    return None if helper is None else helper.submit(name, args)


def _serve(warm: Sequence[str]) -> None:
    """The helper: import what `warm` names, then draw what is asked, in order, until
    the end of the input."""
    for module in warm:
        try:
            importlib.import_module(module)
        except Exception:  # noqa: BLE001, S112 - met again, and reported, by its drawing
            continue
    requests = sys.stdin.buffer
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # a stray print of a drawing function must not corrupt the replies
    while True:
        head = _read_exact(requests, _REQUEST.size)
        body = head and _read_exact(requests, _REQUEST.unpack(head)[0])
        if not body:
            return
        try:
            request = json.loads(body)
            module, _, attr = request["fn"].partition(":")
            drawn = getattr(importlib.import_module(module), attr)(*request["args"])
            status, payload = 0, bytes(drawn)
        except Exception as exc:  # noqa: BLE001 - reported to the caller, who draws again
            status, payload = 1, f"{type(exc).__name__}: {exc}"[:2000].encode("utf-8")
        replies.write(_REPLY.pack(status, len(payload)) + payload)
        replies.flush()


if __name__ == "__main__":
    _serve(sys.argv[1:])
