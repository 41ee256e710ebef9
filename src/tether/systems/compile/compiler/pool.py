"""Scoring the items of several splits (or arms) in one pool of student calls.

    results = score_jobs(jobs, width=endpoint.concurrency, scored=run.scored, commit=...)

A compile's student calls are independent within a phase of the freeze: before it, a
proposal's probe and validation items (loop.py); after it, every test arm's items
(build.py). Scored split after split, each split's last wave of calls waits for its
slowest item while the endpoint has room for more; in one pool the endpoint stays full
from the phase's first call to its last. A pool runs twice as many items as the endpoint
takes calls (ITEMS_PER_CALL_SLOT): the calls wait for the student endpoint's own limit,
and an item recording its result never holds a call back. A pool never holds items of
both sides of the freeze: the callers build one pool per phase, and the scorer's guard
still checks every test item against the recorded selection before it is scored
(build.py).

A job may name an earlier job it follows (`after`): its items start only while that job
has had no budget stop (a validation split is not scored for a proposal whose probe
split the student's budget left incomplete). With width 1 the items run in the jobs'
order, one at a time: the serial compile, call for call. Jobs of the same scores (the
same scope, split and key: the selection is bare) are scored once and shared.

What an item needs before its call and that depends on the item alone (a docs page) can
be made ahead (`prepare`): from a compile's start for its first items (`draw_ahead`), and
in each pool by one background thread in the pool's order, never more than `width` items
past the last one started, so an item's input is ready while the calls before it wait for
the endpoint (in a serial compile too). It changes no call: preparing is what the item's
own scoring would do first, memoized (settings/base.py ImageMemo; docs draws in a helper
process, settings/page_worker.py), and a failure there is left for the item's own
scoring to meet and record.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from contextlib import AbstractContextManager, ExitStack
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from tether.systems.compile.setting import SPLITS, Item

if TYPE_CHECKING:
    from tether.systems.compile.compiler.scoring import ScoredItem
    from tether.systems.compile.compiler.trial import Scoring

__all__ = ["EARLY_ITEMS", "ItemScorer", "Job", "draw_ahead", "run_items", "score_jobs"]

#: what scores one item of a job (opened once per job, in the calling thread)
ItemScorer = Callable[[Item], "ScoredItem"]
T = TypeVar("T")
R = TypeVar("R")


@dataclass
class Job:
    """One split's items under one scoring (a harness, an intervention or a baseline)."""

    scoring: Scoring
    items: Sequence[Item]
    #: opens what scores the job's items (a harness runtime), closed after the pool
    runner: Callable[[], AbstractContextManager[ItemScorer]]
    label: str
    #: the index of an earlier job whose budget stop keeps this job's items from starting
    after: int | None = None


def score_jobs(jobs: Sequence[Job], *, width: int,
               scored: Callable[[Scoring], dict[str, dict[str, Any]]],
               commit: Callable[[Scoring, Item, ScoredItem], None],
               tick: Callable[[Job, int, int], None] | None = None,
               prepare: Callable[[Item], object] | None = None,
               ) -> list[dict[str, dict[str, Any]]]:
    """Each job's rows by item id (those scored before included), its items scored in one
    pool of `width`; `commit` records each scored item as soon as it is known; `prepare`
    makes an item's input ahead of its call (see the module docstring)."""
    owner: dict[tuple[str, str, str], int] = {}  # a scores' key -> the job that scores it
    rows: list[dict[str, dict[str, Any]]] = []
    todo: list[tuple[int, Item]] = []
    for k, job in enumerate(jobs):
        group = (job.scoring.scope, job.scoring.split, job.scoring.key)
        if group in owner:  # the same scores: shared with the job that scores them
            rows.append(rows[owner[group]])
            continue
        owner[group] = k
        rows.append(scored(job.scoring))
        todo += [(k, item) for item in job.items if item.item_id not in rows[k]]
    if not todo:
        return rows
    # more items than the endpoint's width run at once: while one commits (its page
    # blob, record and log line), another's call already has the endpoint; the student
    # endpoint itself keeps the calls in flight at `width` (compiler/endpoint.py)
    workers = width if width <= 1 else ITEMS_PER_CALL_SLOT * width
    stopped: set[int] = set()  # jobs an item of which was a budget stop
    left = Counter(k for k, _ in todo)
    done = {k: len(jobs[k].items) - n for k, n in left.items()}  # scored before, per job

    with ExitStack() as stack:
        scorers = {k: stack.enter_context(jobs[k].runner()) for k in sorted(done)}

        def one(pair: tuple[int, Item]) -> tuple[int, dict[str, Any]] | None:
            k, item = pair
            after = jobs[k].after
            if after is not None and owner_of(after) in stopped:
                return None  # the job it follows is incomplete: not asked
            result = scorers[k](item)
            if result.budget_stop:
                stopped.add(k)  # a set's add is atomic under the GIL
            else:  # item by item: resumable; a budget stop is no result of the item
                commit(jobs[k].scoring, item, result)
            return k, result.row

        def owner_of(k: int) -> int:
            job = jobs[k]
            return owner[(job.scoring.scope, job.scoring.split, job.scoring.key)]

        def started(pair: tuple[int, Item]) -> None:
            k = pair[0]
            if tick is not None:
                tick(jobs[k], done[k], len(jobs[k].items))
            done[k] += 1

        ahead = None if prepare is None else _Ahead(prepare, [item for _, item in todo],
                                                     width)
        try:
            for got in run_items(one, todo, workers, started,
                                 None if ahead is None else ahead.started):
                if got is not None:
                    rows[got[0]][got[1]["item_id"]] = got[1]
        finally:
            if ahead is not None:
                ahead.close()
    return rows


#: items in progress per call the student endpoint allows at once (width > 1)
ITEMS_PER_CALL_SLOT = 2

#: items whose inputs a compile starts making at its start, at most (a docs page is
#: some 130 KB: 256 of them fit the page memo; later items are made as the pools reach them)
EARLY_ITEMS = 256


def draw_ahead(setting: Any, splits: Mapping[str, Sequence[Item]]) -> None:
    """Start making the inputs of a compile's items (the setting's `prepare`: a docs
    page, drawn in the helper process) in the order their calls will come, probe,
    validation, then test, at most EARLY_ITEMS; returns at once (a background thread
    asks, so a setting whose `prepare` draws in place never holds up the start).
    Making an input is no student call and records nothing: a test page may be drawn
    before the freeze as the test items themselves exist before it."""
    prepare = getattr(setting, "prepare", None)
    if not callable(prepare):
        return
    items = [item for split in SPLITS for item in splits.get(split, ())][:EARLY_ITEMS]

    def run() -> None:
        for item in items:
            try:
                prepare(item)
            except Exception:  # noqa: BLE001 - the item's own scoring meets it and records it
                continue

    threading.Thread(target=run, name="tether-draw-ahead", daemon=True).start()


class _Ahead:
    """`prepare` on each item in order, in one background thread, at most `ahead` items
    past those started (`started` is called as each item starts)."""

    def __init__(self, prepare: Callable[[Item], object], items: Sequence[Item],
                 ahead: int) -> None:
        self._room = threading.Semaphore(max(ahead, 1))
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(prepare, items),
                                        name="tether-prepare", daemon=True)
        self._thread.start()

    def _run(self, prepare: Callable[[Item], object], items: Sequence[Item]) -> None:
        for item in items:
            self._room.acquire()
            if self._closed.is_set():
                return
            try:
                prepare(item)
            except Exception:  # noqa: BLE001 - the item's own scoring meets it and records it
                continue

    def started(self) -> None:
        self._room.release()

    def close(self) -> None:
        self._closed.set()
        self._room.release()
        self._thread.join()


def run_items(run_item: Callable[[T], R], items: Sequence[T], workers: int,
              tick: Callable[[T], None], started: Callable[[], None] | None = None,
              ) -> Iterator[R]:
    """Each item's result as it finishes, up to `workers` items at once (1: in order). On
    a failure nothing new starts, what runs finishes (its result is still yielded, so a
    resume does not redo it), and the error is raised. `started` is called as each item
    starts."""
    if started is not None:
        inner = run_item

        def run_item(item: T) -> R:
            started()
            return inner(item)

    if workers <= 1 or len(items) <= 1:
        for item in items:
            tick(item)
            yield run_item(item)
        return
    pool = ThreadPoolExecutor(max_workers=min(workers, len(items)),
                              thread_name_prefix="tether-score")
    failure: BaseException | None = None
    try:
        pending = {pool.submit(run_item, item): item for item in items}
        waiting = set(pending)
        while waiting:
            finished, waiting = wait(waiting, return_when=FIRST_COMPLETED)
            for future in finished:
                tick(pending[future])
                if future.cancelled():
                    continue
                if future.exception() is not None:
                    if failure is None:
                        failure = future.exception()
                        for rest in waiting:
                            rest.cancel()
                    continue
                yield future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    if failure is not None:
        raise failure
