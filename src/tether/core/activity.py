"""Long steps running now in this process, so a live display can show them.

A terminal task's environment build (`setup.sh`) can run for minutes before the
agent's first command; a progress bar that only spins says nothing about it. A step
is registered for as long as it runs (`long_step`), with its limit, and the run's
progress display reads `running_steps()` on every refresh to show each one's
elapsed time against its limit.

This holds what is running, nothing else: no accounting, no counters (invariant 2).
Steps run by Ray workers live in their own processes and are not shown.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass(frozen=True)
class Step:
    label: str
    limit_s: float
    started: float  # time.monotonic()

    def elapsed_s(self) -> float:
        return time.monotonic() - self.started


_running: dict[int, Step] = {}
_ids = itertools.count()
_lock = threading.Lock()


@contextmanager
def long_step(label: str, limit_s: float) -> Iterator[Step]:
    """Register a step for as long as the block runs."""
    step = Step(label, limit_s, time.monotonic())
    with _lock:
        key = next(_ids)
        _running[key] = step
    try:
        yield step
    finally:
        with _lock:
            del _running[key]


def running_steps() -> list[Step]:
    """The steps running now, the longest-running first."""
    with _lock:
        steps = list(_running.values())
    return sorted(steps, key=lambda s: s.started)
