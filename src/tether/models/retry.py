"""Retries with capped exponential backoff and jitter, and per-endpoint concurrency.

Retried: HTTP 429 (honouring Retry-After), 5xx, timeouts, connection errors and
malformed responses. Not retried: authentication, unknown model, context overflow,
other 4xx — repeating those only wastes time.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from tether.models.errors import (
    AuthenticationError,
    ContextLengthExceeded,
    ModelError,
    RateLimited,
    ServerError,
    UnknownModelError,
)

T = TypeVar("T")


class Retryable(Exception):
    """Raised by a backend attempt to ask for another try.

    `final` is the user-facing error to raise once the cap is reached;
    `retry_after_s` is the server's own hint, when it sent one.
    """

    def __init__(self, final: Exception, retry_after_s: float | None = None) -> None:
        super().__init__(str(final))
        self.final = final
        self.retry_after_s = retry_after_s


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 5
    base_delay_s: float = 0.5
    max_delay_s: float = 30.0
    #: A Retry-After longer than this is not waited for: the error is raised.
    max_retry_after_s: float = 120.0

    def delay(self, attempt: int, retry_after_s: float | None, rng: random.Random) -> float:
        if retry_after_s is not None:
            return min(retry_after_s, self.max_retry_after_s)
        # Full jitter: spreads concurrent clients so they do not retry in lockstep.
        return rng.uniform(0, min(self.max_delay_s, self.base_delay_s * 2**attempt))


def call_with_retries(
    attempt_fn: Callable[[], T],
    policy: RetryPolicy,
    *,
    sleep: Callable[[float], None] = time.sleep,
    on_retry: Callable[[int, Exception, float], None] | None = None,
) -> T:
    rng = random.Random()
    for attempt in range(policy.max_attempts):
        try:
            return attempt_fn()
        except Retryable as exc:
            last = attempt == policy.max_attempts - 1
            if last or (exc.retry_after_s or 0) > policy.max_retry_after_s:
                raise exc.final from None
            wait = policy.delay(attempt, exc.retry_after_s, rng)
            if on_retry:
                on_retry(attempt + 1, exc.final, wait)
            sleep(wait)
    raise AssertionError("unreachable")  # pragma: no cover


_limits: dict[str, threading.BoundedSemaphore] = {}
_limits_lock = threading.Lock()


def endpoint_slot(endpoint: str, limit: int) -> threading.BoundedSemaphore:
    """The semaphore shared by every client of one endpoint in this process.

    This is a limit on concurrency, not a counter of usage: it holds no accounting.
    """
    with _limits_lock:
        sem = _limits.get(endpoint)
        if sem is None:
            sem = _limits[endpoint] = threading.BoundedSemaphore(limit)
        return sem


def parse_retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None  # an HTTP date: rare from model APIs, fall back to backoff


def status_error(model_id: str, status: int, text: str, *, where: str,
                 retry_after: str | None, context_overflow: bool) -> Exception:
    """The tether error for an HTTP error status of a provider (every backend maps
    statuses the same way): 401/403 a rejected key, 404 an unknown model, 429 and 5xx
    worth retrying (429 after the server's `retry-after`), a 4xx the backend recognised as
    a context overflow `ContextLengthExceeded`, any other 4xx a rejected request."""
    if status in (401, 403):
        return AuthenticationError(f"{model_id}: the API key was rejected ({status})")
    if status == 404:
        return UnknownModelError(f"{model_id}: unknown model or endpoint ({where})")
    if status == 429:
        return Retryable(RateLimited(f"{model_id}: rate limited (429)"),
                         parse_retry_after(retry_after))
    if status >= 500:
        return Retryable(ServerError(f"{model_id}: server error {status}"))
    if context_overflow:
        return ContextLengthExceeded(f"{model_id}: {text[:300]}")
    return ModelError(f"{model_id}: request rejected ({status}): {text[:300]}")
