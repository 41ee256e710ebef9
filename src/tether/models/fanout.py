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
is the one a serial loop would have raised first. The error carries what the samples
that did run gave, and how each failed one failed (`ran_samples`), so a caller can
record every request that was made, not only the call's error.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")


def sample_concurrency(model: Any) -> int:
    """How many samples of one call `model` may have in flight (1: strictly serial).

    Remote backends set `concurrency` from their spec option; wrappers (cache,
    recording) pass their inner model's on. A model without the attribute is serial.
    """
    return max(1, int(getattr(model, "concurrency", 1) or 1))


@dataclass(frozen=True)
class RanSamples:
    """The samples of a failed call that ran: (index, result) and (index, error)."""

    done: list[tuple[int, Any]]
    failed: list[tuple[int, BaseException]]


_RAN = "_tether_ran_samples"


def ran_samples(exc: BaseException) -> RanSamples | None:
    """What ran of the call `exc` ended (None when it did not come from `map_samples`)."""
    found = getattr(exc, _RAN, None)
    return found if isinstance(found, RanSamples) else None


def _raise_with(exc: BaseException, done: list[tuple[int, Any]],
                failed: list[tuple[int, BaseException]]) -> None:
    setattr(exc, _RAN, RanSamples(done, failed))
    raise exc


def map_samples(fn: Callable[[int], T], indices: Sequence[int], concurrency: int) -> list[T]:
    """`[fn(i) for i in indices]`, with up to `concurrency` calls running at once."""
    workers = min(max(1, concurrency), len(indices))
    if workers <= 1:
        results: list[tuple[int, T]] = []
        for i in indices:
            try:
                results.append((i, fn(i)))
            except Exception as exc:
                _raise_with(exc, list(results), [(i, exc)])
        return [r for _, r in results]
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
    ran = [(i, f) for i, f in zip(indices, futures, strict=False) if not f.cancelled()]
    failed = [(i, e) for i, f in ran if (e := f.exception()) is not None]
    if failed:
        done = [(i, f.result()) for i, f in ran if f.exception() is None]
        first = failed[0][1]
        if isinstance(first, Exception):
            _raise_with(first, done, failed)
        raise first
    return [f.result() for f in futures]
