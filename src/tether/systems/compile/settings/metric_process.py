"""A user's metric function (`--metric module:function`) runs in processes of its own.

The items of a split are scored on worker threads, and a thread cannot be stopped: a
metric that hangs would hang the compile, and one that raises would end it. So the
function is loaded and called in child processes (`spawn`: nothing of this process's
threads or state is copied), a few at most, each call with a time limit:

- loading it (a syntax error, an exception at import, `:f`, a name that is not a
  function) is a one-line ConfigError before anything runs;
- a call that raises, runs past METRIC_TIMEOUT_S (its process is killed, a fresh one
  takes its place) or returns anything but a bool or a number in [0, 1] is a
  `MetricError` of that item, which the compile records as the item's metric error
  (never scored), not the end of the compile.
"""

from __future__ import annotations

import importlib
import math
import multiprocessing
import threading
from multiprocessing.connection import Connection
from typing import Any

from tether.errors import ConfigError, TetherError

__all__ = ["LOAD_TIMEOUT_S", "METRIC_TIMEOUT_S", "MetricError", "MetricProcesses",
           "metric_processes"]

#: the longest one metric call may take
METRIC_TIMEOUT_S = 10.0
#: the longest loading the metric's module may take
LOAD_TIMEOUT_S = 60.0
#: how many calls of one metric run at once (each in its own process)
MAX_PROCESSES = 4


class MetricError(TetherError):
    """The metric failed on one item: it raised, timed out, died or returned a value
    that is not a bool or a number in [0, 1]."""


def _describe(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:300]}" if text else type(exc).__name__


def _serve(spec: str, conn: Connection) -> None:
    """The child: load `module:function`, then answer calls until the pipe closes."""
    module_name, _, attr = spec.partition(":")
    try:
        fn = getattr(importlib.import_module(module_name), attr)
        if not callable(fn):
            raise TypeError(f"{attr} is not a function")
    except BaseException as exc:  # SyntaxError, whatever the module raises on import
        conn.send(("load", _describe(exc)))
        return
    conn.send(("ready", bool(getattr(fn, "binary", False))))
    while True:
        try:
            args = conn.recv()
        except EOFError:
            return
        try:
            value = fn(*args)
        except BaseException as exc:  # the metric's own failure, SystemExit included
            conn.send(("raised", _describe(exc)))
            continue
        ok = isinstance(value, bool | int | float)
        conn.send(("ok", value) if ok else ("bad", repr(value)[:100]))


class _Child:
    def __init__(self, spec: str) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.conn, theirs = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(spec, theirs), daemon=True,
                                name="tether-metric")
        self.proc.start()
        theirs.close()

    def receive(self, timeout_s: float) -> tuple[str, Any] | None:
        """The child's next message, or None when it died or did not answer in time."""
        try:
            if not self.conn.poll(timeout_s):
                return None
            kind, payload = self.conn.recv()
        except (EOFError, OSError):
            return None
        return str(kind), payload

    def kill(self) -> None:
        self.proc.kill()
        self.proc.join(5)
        self.conn.close()


class MetricProcesses:
    """`module:function` loaded in up to MAX_PROCESSES children; call it like the
    function: `(prediction, golds, row) -> float in [0, 1]`, or MetricError."""

    def __init__(self, spec: str, *, timeout_s: float | None = None) -> None:
        module_name, sep, attr = spec.partition(":")
        if not sep or not module_name.strip() or not attr.strip():
            raise ConfigError(f"metric {spec!r}: not module:function",
                              hint="write module:function, the module importable")
        self.spec = spec
        self.timeout_s = METRIC_TIMEOUT_S if timeout_s is None else timeout_s
        self._lock = threading.Lock()
        self._idle: list[_Child] = []
        self._slots = threading.BoundedSemaphore(MAX_PROCESSES)
        first, binary = self._start()
        self.binary = binary
        self._idle.append(first)

    def _start(self) -> tuple[_Child, bool]:
        child = _Child(self.spec)
        message = child.receive(LOAD_TIMEOUT_S)
        if message is None or message[0] != "ready":
            child.kill()
            why = (message[1] if message is not None
                   else f"its module did not load within {LOAD_TIMEOUT_S:g}s")
            raise ConfigError(f"metric {self.spec!r}: cannot load it ({why})",
                              hint="write module:function, the module importable")
        return child, bool(message[1])

    def __call__(self, prediction: str, golds: list[str], row: dict[str, Any]) -> float:
        with self._slots:
            with self._lock:
                child = self._idle.pop() if self._idle else None
            if child is None:
                try:
                    child, _ = self._start()
                except ConfigError as exc:  # it loaded before: a failure now is this call's
                    raise MetricError(str(exc)) from None
            try:
                child.conn.send((prediction, list(golds), row))
                message = child.receive(self.timeout_s)
            except (OSError, ValueError) as exc:  # a dead pipe, or a row pickle refuses
                child.kill()
                raise MetricError(f"metric {self.spec!r}: {_describe(exc)}") from None
            if message is None:
                timed_out = child.proc.is_alive()
                child.kill()  # a fresh process takes its place at the next call
                why = (f"ran past its time limit of {self.timeout_s:g}s" if timed_out
                       else "died without answering")
                raise MetricError(f"metric {self.spec!r} {why}")
            with self._lock:
                self._idle.append(child)
        kind, payload = message
        if kind == "raised":
            raise MetricError(f"metric {self.spec!r} raised {payload}")
        if kind == "ok" and (isinstance(payload, bool) or (
                math.isfinite(payload) and 0.0 <= float(payload) <= 1.0)):
            return float(payload)
        shown = payload if kind == "bad" else repr(payload)
        raise MetricError(f"metric {self.spec!r} returned {shown}: it must return a bool "
                          "or a number in [0, 1]")


_pools: dict[str, MetricProcesses] = {}
_pools_lock = threading.Lock()


def metric_processes(spec: str) -> MetricProcesses:
    """The processes of `spec`, started once per process (ConfigError if it cannot load)."""
    with _pools_lock:
        found = _pools.get(spec)
        if found is None:
            found = _pools[spec] = MetricProcesses(spec)
        return found
