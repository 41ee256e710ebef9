"""The TLS context the OpenAI-compatible backend's clients verify servers with, made once
per process in a thread of its own.

Loading the CA certificates takes ~50 ms of a process's start (45-55 ms measured on a
2-core machine), and OpenSSL does most of it without the interpreter lock: begun before
the SDK is imported (~0.6 s), it is ready when the first client is made, instead of that
client making it then. The context is the HTTP package's own default
(`create_ssl_context()`: `SSL_CERT_FILE` and `SSL_CERT_DIR` honoured, the system's trust
store otherwise), made by the package the SDK's client is built on, so a client given it
verifies exactly as one left to make its own; for any other client there is none.

    start_tls_context()                                  # before `import openai`
    ...
    verify = tls_context_for(openai.DefaultHttpxClient)  # None: let the client make it
"""

from __future__ import annotations

import importlib.util
import os
import ssl
import threading
from collections.abc import Callable
from concurrent.futures import Future

__all__ = ["start_tls_context", "tls_context_for"]

#: the SDK's HTTP package, which this module makes the context with (the openai SDK's
#: since its 3.x releases; an older SDK built on httpx simply gets no context from here)
PACKAGE = "httpx2"

_lock = threading.Lock()
_context: Future[ssl.SSLContext] | None = None


def start_tls_context() -> None:
    """Begin making the process's context (once; nothing if PACKAGE is not installed)."""
    global _context
    with _lock:
        if _context is not None or importlib.util.find_spec(PACKAGE) is None:
            return
        # imported here, whole, before the thread starts: the thread imports nothing
        # while this one goes on importing the SDK, which imports the same modules
        import httpcore2  # noqa: F401 (create_ssl_context's own import, made first)
        import httpx2

        _context = Future()
        threading.Thread(target=_make, args=(_context, httpx2.create_ssl_context),
                         name="tether-tls-context", daemon=True).start()


def tls_context_for(client_class: type) -> ssl.SSLContext | None:
    """The context for a client of `client_class`, once made (raising what making it
    raised, an unreadable `SSL_CERT_FILE` say); None when the class is not built on
    PACKAGE or no context was begun."""
    if not any(base.__module__.split(".")[0] == PACKAGE for base in client_class.__mro__):
        return None
    with _lock:
        context = _context
    return None if context is None else context.result()


def _forget() -> None:
    """In a forked child: the thread making the context was not copied, so a context
    still being made would never be; the child begins its own when it needs one."""
    global _context, _lock
    _context = None
    _lock = threading.Lock()


os.register_at_fork(after_in_child=_forget)


def _make(into: Future[ssl.SSLContext], create: Callable[[], ssl.SSLContext]) -> None:
    try:
        into.set_result(create())
    except BaseException as exc:  # noqa: BLE001 (handed to whoever asks for the result)
        into.set_exception(exc)
