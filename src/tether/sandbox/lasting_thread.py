"""Sandboxed processes started from one thread that lasts as long as this process.

bwrap's --die-with-parent kills a sandbox when the *thread* that forked it ends
(PR_SET_PDEATHSIG follows the thread, not the process). A long-lived sandboxed process
(a warm slot, a hook or scene worker) is often started by whichever thread first needs
it: a trial's thread, a thread pool's worker, which end before the process does, and
with them the sandbox, silently, between two calls. Forking from one lasting thread
instead ties the sandbox's life to this process, as --die-with-parent means it to.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

__all__ = ["from_lasting_thread"]

T = TypeVar("T")

_starter: ThreadPoolExecutor | None = None
_starter_lock = threading.Lock()


def from_lasting_thread(start: Callable[[], T]) -> T:
    """`start()` run on the lasting thread (it should fork and return at once: every
    start of the process waits its turn there); its result or its exception."""
    global _starter
    with _starter_lock:
        if _starter is None:
            _starter = ThreadPoolExecutor(1, thread_name_prefix="tether-sandbox-start")
        starter = _starter
    return starter.submit(start).result()
