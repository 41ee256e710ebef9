"""Samples of one call, run concurrently up to a bound, returned in sample order.

A remote backend answers `n > 1` with one request per sample (each has its own seed
and cache key), and those requests are independent: waiting for them one after another
makes turn-level best-of-N cost N round trips per turn instead of about one. The SDKs
are synchronous, so the fan-out is a small thread pool per call, sized
`min(samples, concurrency)`; the endpoint's own semaphore (`retry.endpoint_slot`) still
bounds what is in flight across every caller of that endpoint in the process.

Failures: once a sample fails, samples that have not started are cancelled, samples
already in flight are waited for (no thread outlives the call, and their side effects,
such as a cache write, happen), and the error of the lowest failing sample index is
raised. Samples start in index order, so every sample below that index ran: the error
is the one a serial loop would have raised first.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from typing import Any, TypeVar

T = TypeVar("T")


def sample_concurrency(model: Any) -> int:
    """How many samples of one call `model` may have in flight (1: strictly serial).

    Remote backends set `concurrency` from their spec option; wrappers (cache,
    recording) pass their inner model's on. A model without the attribute is serial.
    """
    return max(1, int(getattr(model, "concurrency", 1) or 1))


def map_samples(fn: Callable[[int], T], indices: Sequence[int], concurrency: int) -> list[T]:
    """`[fn(i) for i in indices]`, with up to `concurrency` calls running at once."""
    workers = min(max(1, concurrency), len(indices))
    if workers <= 1:
        return [fn(i) for i in indices]
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="tether-sample")
    futures: list[Future[T]] = []
    try:
        futures = [pool.submit(fn, i) for i in indices]
        wait(futures, return_when=FIRST_EXCEPTION)
    finally:
        # Reached on the first failure, on success, or when the caller is interrupted:
        # drop what has not started, let what runs finish.
        for f in futures:
            f.cancel()
        pool.shutdown(wait=True)
    for f in futures:
        exc = None if f.cancelled() else f.exception()
        if exc is not None:
            raise exc
    return [f.result() for f in futures]
