"""Retries with capped exponential backoff and jitter, and per-endpoint concurrency.

Retried: HTTP 429 (honouring Retry-After), 5xx, timeouts, connection errors and
malformed responses. Not retried: authentication, unknown model, context overflow,
other 4xx — repeating those only wastes time. The loop itself is tenacity's; what to
retry, how long to wait and when to give up are tether's (`RetryPolicy`).
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import tenacity

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
    """`attempt_fn()`, tried again while it raises `Retryable`, at most
    `policy.max_attempts` times; then (or when the server asks for a wait longer than
    `policy.max_retry_after_s`) the Retryable's `final` error is raised. Any other
    exception passes straight through. `on_retry(attempt, error, wait_s)` is told of each
    wait before it is slept."""
    rng = random.Random()

    def failure(state: tenacity.RetryCallState) -> Retryable:
        # only outcomes worth retrying reach the wait and before_sleep callbacks
        exc = state.outcome.exception() if state.outcome else None
        assert isinstance(exc, Retryable)
        return exc

    def worth_retrying(exc: BaseException) -> bool:
        return isinstance(exc, Retryable) and (
            (exc.retry_after_s or 0) <= policy.max_retry_after_s)

    def wait(state: tenacity.RetryCallState) -> float:
        return policy.delay(state.attempt_number - 1, failure(state).retry_after_s, rng)

    def before_sleep(state: tenacity.RetryCallState) -> None:
        if on_retry and state.next_action is not None:
            on_retry(state.attempt_number, failure(state).final, state.next_action.sleep)

    retrying = tenacity.Retrying(
        retry=tenacity.retry_if_exception(worth_retrying),
        stop=tenacity.stop_after_attempt(policy.max_attempts),
        wait=wait, sleep=sleep, before_sleep=before_sleep, reraise=True)
    try:
        return retrying(attempt_fn)
    except Retryable as exc:
        raise exc.final from None


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
