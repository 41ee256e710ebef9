"""A deadline for a whole model call: connect, send, and every byte of the reply.

The SDKs' `timeout` is a limit on each read: a server that sends one byte every few
seconds, or a chunked body that never ends, keeps a call alive forever under it. So
every HTTP backend also gives each attempt a deadline (`call_deadline`), and the
connections its SDK opens go through `DeadlineBackend`: each connect, read and write
may wait only for what is left of it, and once it has passed the next one raises the
library's own timeout (which the SDK reports as a timeout of the call). The deadline is
kept per thread: a call's samples run on threads of their own, each with its own.

The default scales with what the request may generate (`default_deadline_s`): the
per-read timeout plus DEADLINE_S_PER_TOKEN for each token allowed, so a 16k-token
reasoning call gets about 15 minutes (at least 20 tokens a second) and a 64-token answer
about two. A spec sets its own with `;deadline_s=SECONDS`.

How it is installed: the SDKs build their HTTP client from httpx and httpcore (or the
forks they vendor); the backend wraps the network backend of each connection pool of
that client. That reaches into the client (`_transport`, `_mounts`, `_pool`,
`_network_backend`): there is no public hook for it. Where the shape is not the one
expected, a call goes without a deadline and a warning says so once
(tests/models/test_deadline.py holds the shape to what is installed).
"""

from __future__ import annotations

import importlib
import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["DEADLINE_S_PER_TOKEN", "DeadlineBackend", "call_deadline", "deadline_passed",
           "default_deadline_s", "with_deadlines"]

#: seconds of deadline per token a request allows (20 tokens a second at the slowest)
DEADLINE_S_PER_TOKEN = 0.05

_local = threading.local()
_warned = False


def default_deadline_s(read_timeout_s: float, allowed_tokens: int) -> float:
    """The deadline of a call that may generate `allowed_tokens`, when its spec sets none."""
    return read_timeout_s + DEADLINE_S_PER_TOKEN * allowed_tokens


@contextmanager
def call_deadline(seconds: float | None) -> Iterator[None]:
    """Within the block, this thread's connections end `seconds` from now (None: none)."""
    before = getattr(_local, "at", None)
    _local.at = None if seconds is None else time.monotonic() + seconds
    try:
        yield
    finally:
        _local.at = before


def _left() -> float | None:
    at = getattr(_local, "at", None)
    return None if at is None else at - time.monotonic()


def deadline_passed() -> bool:
    """Whether this thread is in a call whose deadline has passed."""
    left = _left()
    return left is not None and left <= 0


def _clamp(timeout: float | None, error: type[Exception]) -> float | None:
    left = _left()
    if left is None:
        return timeout
    if left <= 0:
        raise error("the call's deadline passed")
    return left if timeout is None else min(timeout, left)


class _Errors:
    """The timeout exceptions of the HTTP core library a pool belongs to."""

    def __init__(self, package: Any) -> None:
        self.connect: type[Exception] = package.ConnectTimeout
        self.read: type[Exception] = package.ReadTimeout
        self.write: type[Exception] = package.WriteTimeout


class _DeadlineStream:
    """A network stream whose every wait is cut to what is left of the deadline."""

    def __init__(self, inner: Any, errors: _Errors) -> None:
        self._inner = inner
        self._errors = errors

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        data: bytes = self._inner.read(max_bytes, _clamp(timeout, self._errors.read))
        return data

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _clamp(timeout, self._errors.write))

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None,
                  timeout: float | None = None) -> _DeadlineStream:
        inner = self._inner.start_tls(ssl_context, server_hostname,
                                      _clamp(timeout, self._errors.connect))
        return _DeadlineStream(inner, self._errors)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class DeadlineBackend:
    """Wraps an httpcore-style network backend: its streams keep the call's deadline."""

    def __init__(self, inner: Any, errors: _Errors) -> None:
        self._inner = inner
        self._errors = errors

    def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                    local_address: str | None = None, socket_options: Any = None) -> Any:
        stream = self._inner.connect_tcp(host, port, _clamp(timeout, self._errors.connect),
                                         local_address, socket_options)
        return _DeadlineStream(stream, self._errors)

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Any = None) -> Any:
        stream = self._inner.connect_unix_socket(path, _clamp(timeout, self._errors.connect),
                                                 socket_options)
        return _DeadlineStream(stream, self._errors)

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def _warn(reason: str) -> None:
    global _warned
    if not _warned:
        _warned = True
        logging.getLogger(__name__).warning(
            "model calls have no whole-call deadline (%s): only the per-read timeout holds",
            reason)


def with_deadlines(client: Any) -> Any:
    """`client` (an SDK's httpx-style client) with `DeadlineBackend` in its pools."""
    transports = [getattr(client, "_transport", None),
                  *(getattr(client, "_mounts", None) or {}).values()]
    pools: list[Any] = [getattr(t, "_pool", None) for t in transports if t is not None]
    if not pools or any(p is None or not hasattr(p, "_network_backend") for p in pools):
        _warn(f"unexpected HTTP client {type(client).__name__}")
        return client
    for pool in pools:
        package = importlib.import_module(type(pool).__module__.split(".")[0])
        if not all(hasattr(package, n) for n in ("ConnectTimeout", "ReadTimeout",
                                                  "WriteTimeout")):
            _warn(f"no timeout errors in {package.__name__}")
            return client
        if not isinstance(pool._network_backend, DeadlineBackend):
            pool._network_backend = DeadlineBackend(pool._network_backend, _Errors(package))
    return client
