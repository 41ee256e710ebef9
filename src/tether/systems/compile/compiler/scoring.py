"""Scoring a harness on a split: the runtime of `compiled_harness`, item by item, cached.

    scorer = SplitScorer(setting, student, store)
    result = scorer.score(harness, "validation", items)   # SplitScore

Every item goes through `HarnessRuntime.run_item` (systems/compile/runtime.py), the runtime the
`compiled_harness` strategy deploys, with a `ModelStudent` (student.py) making the
calls, each budgeted and recorded. Each item's outcome is appended to
`scores/SPLIT/HASH.partial.jsonl` as soon as it is known and the finished split is
written to `scores/SPLIT/HASH.json` atomically, so after a kill the next run re-scores
neither a scored proposal nor a scored item (the student is decoded with a fixed seed,
so a replayed item would give the same answer anyway).

The mean is the unrounded mean over the scored items (infra errors are never scored:
docs/concepts.md invariant 6); a hook error scores 0 (the harness's fault).

An intervention is decided n/a per item: an item it does not apply to (no candidates,
no signals, no resource on that item) is recorded as n/a with the reason, never scored,
and the split's mean is over the items where it applies; only when it applies to none
is the whole split `NotApplicable`. An item a student call of which the student's token
budget refused is a budget stop: recorded with the reason (`SplitScore.budget`), never
scored (the student did not fail it; it was not asked), never kept as the item's result,
and a split with one is incomplete (`stopped`): not written as final, so a resume asks
again, and the compile loop stops there (loop.py).

`score_baseline` scores a baseline with no harness (systems/compile/baselines.py: student_routed,
cot_vote) the same cached, item-by-item way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from tether.core import BudgetExhausted
from tether.errors import ConfigError
from tether.models import ModelError
from tether.systems.compile.baselines import CotVote, StudentRouted
from tether.systems.compile.compiler.student import ModelStudent
from tether.systems.compile.harness import Harness
from tether.systems.compile.interventions import NotApplicable, intervene
from tether.systems.compile.runtime import (
    HarnessRuntime,
    ItemOutcome,
    ItemPolicy,
    StudentFn,
    score_outcome,
)
from tether.systems.compile.setting import Item, Setting
from tether.systems.compile.settings.metric_process import MetricError

__all__ = ["ModelStudent", "NotApplicable", "ScoringEnv", "SplitScore", "SplitScorer", "graded"]

#: called before an item is scored: (split, harness hash, item) (tests check the freeze)
BeforeItem = Callable[[str, str, Item], None]
#: one item's row (item_id, score, tokens, outcome)
RunItem = Callable[[Item], dict[str, Any]]
Progress = Callable[[str, int, int], None]


def graded(setting: Setting) -> bool:
    """True when the setting's metric is graded (ANLS), so stats use bootstrap + sign."""
    return getattr(setting, "aggregation", "") == "mean_score"


@dataclass
class SplitScore:
    """A harness's scores on one split (items in split order)."""

    hash: str
    split: str
    scores: dict[str, float] = field(default_factory=dict)  # scored items only
    outcomes: dict[str, dict[str, Any]] = field(default_factory=dict)
    output_tokens: int = 0
    infra_errors: int = 0
    na: dict[str, str] = field(default_factory=dict)  # item -> why the change is n/a
    #: item -> why the student's budget refused it (never scored; the split is incomplete)
    budget: dict[str, str] = field(default_factory=dict)

    @property
    def stopped(self) -> str | None:
        """Why the student's budget left items of this split unscored (None: none)."""
        return next(iter(self.budget.values()), None)

    @property
    def mean(self) -> float:
        """Unrounded mean over scored items (0.0 when items ran but none was scored: the
        infra errors and n/a items say why). A split of no items has no mean: an error,
        so an empty split can never read as a score of 0."""
        if not self.outcomes:
            raise ConfigError(f"the {self.split} split has no items: nothing to score",
                              hint="ask for a split size of at least 1")
        return sum(self.scores.values()) / len(self.scores) if self.scores else 0.0

    @property
    def tokens_per_item(self) -> float:
        """Over the items it ran on (n/a and budget-stopped items excluded)."""
        n = len(self.outcomes) - len(self.na) - len(self.budget)
        return self.output_tokens / n if n else 0.0

    def to_json(self) -> dict[str, Any]:
        return {"hash": self.hash, "split": self.split, "mean": self.mean,
                "scores": self.scores, "outcomes": self.outcomes,
                "output_tokens": self.output_tokens, "infra_errors": self.infra_errors,
                "na": self.na, **({"budget": self.budget} if self.budget else {})}

    @classmethod
    def from_json(cls, row: dict[str, Any]) -> SplitScore:
        return cls(row["hash"], row["split"], dict(row["scores"]), dict(row["outcomes"]),
                   int(row["output_tokens"]), int(row.get("infra_errors", 0)),
                   dict(row.get("na", {})), dict(row.get("budget", {})))


class SplitScorer:
    """Scores harnesses on splits through the runtime, with the store's cache."""

    def __init__(self, setting: Setting, student: ModelStudent, store: Any, *,
                 modality: str = "text", before_item: BeforeItem | None = None,
                 progress: Progress | None = None) -> None:
        self.setting = setting
        self.student = student
        self.store = store
        self.modality = modality
        self.before_item = before_item
        self.progress = progress

    def score(self, harness: Harness, split: str, items: Sequence[Item],
              intervention: str | None = None) -> SplitScore:
        """The harness's scores on `items` (with one decision intervention applied:
        systems/compile/interventions.py; NotApplicable when it applies to none of them)."""
        key = harness.hash if intervention is None else f"{harness.hash}+{intervention}"

        @contextmanager
        def runner() -> Iterator[RunItem]:
            run = harness
            if intervention is not None:  # persist runs an edited copy: its runtime
                run, _ = intervene(intervention, harness, self.setting, self.student,
                                   lambda: None)
            self.student.configure(run)
            with HarnessRuntime(run, self.setting,
                                # self.modality is a Modality value; its attribute is typed str
                                student_modality=self.modality) as runtime:  # type: ignore[arg-type]
                yield lambda item: self._one(runtime, harness, split, item, intervention)

        # an intervention's policy may keep state across items: those run one at a time
        result = self._score(key, split, items, runner,
                             f"{split} {key[:8]}" + (f" {intervention}" if intervention else ""),
                             workers=1 if intervention is not None else None)
        if intervention is not None and result.na and len(result.na) == len(result.outcomes):
            raise NotApplicable(next(iter(result.na.values())))
        return result

    def score_baseline(self, baseline: CotVote | StudentRouted, split: str,
                       items: Sequence[Item]) -> SplitScore:
        """A baseline's scores on `items`, keyed by `baseline.key`."""

        @contextmanager
        def runner() -> Iterator[RunItem]:
            self.student.decode(max_tokens=baseline.max_tokens,
                                temperature=baseline.temperature)
            yield lambda item: self._baseline_one(baseline, split, item)

        return self._score(baseline.key, split, items, runner, f"{split} {baseline.name}")

    def _score(self, key: str, split: str, items: Sequence[Item],
               runner: Callable[[], Any], label: str, *, workers: int | None = None
               ) -> SplitScore:
        cached = self.store.split_score(split, key)
        if cached is not None and set(cached.outcomes) == {i.item_id for i in items}:
            return cached  # (a file for other items is not these items' scores)
        rows = {row["item_id"]: row for row in self.store.partial_items(split, key)}
        todo = [item for item in items if item.item_id not in rows]
        if todo:
            with runner() as run_item:
                width = self.student.concurrency if workers is None else workers
                for row in _run_items(run_item, todo, width, self._tick(label, len(items),
                                                                         len(rows))):
                    # item by item: resumable; a budget stop is no result of the item
                    if "budget" not in row:
                        self.store.append_partial(split, key, row)
                    rows[row["item_id"]] = row
        # split order, whatever order the items finished in: the same result as serial
        result = SplitScore(key, split)
        order = [i.item_id for i in items if i.item_id in rows]
        for item_id in [*order, *(k for k in rows if k not in set(order))]:
            _add(result, rows[item_id])
        if not result.budget:  # an incomplete split is never final: a resume retries it
            self.store.write_split_score(result)
        return result

    def _tick(self, label: str, total: int, done: int) -> Callable[[], None]:
        count = [done]

        def tick() -> None:
            if self.progress is not None:
                self.progress(label, count[0], total)
            count[0] += 1

        return tick

    def _policy(self, harness: Harness, item: Item, intervention: str | None,
                student: StudentFn) -> ItemPolicy | None:
        if intervention is None:
            return None
        image = (lambda: self.setting.image(item)) if self.modality == "image" else (
            lambda: None)
        return intervene(intervention, harness, self.setting, student, image)[1]

    def _one(self, runtime: HarnessRuntime, harness: Harness, split: str,
             item: Item, intervention: str | None = None) -> dict[str, Any]:
        if self.before_item is not None:
            self.before_item(split, harness.hash, item)
        with self.student.at(split, harness.hash, item.item_id):
            return self._run_one(runtime, harness, split, item, intervention)

    def _run_one(self, runtime: HarnessRuntime, harness: Harness, split: str,
                 item: Item, intervention: str | None) -> dict[str, Any]:
        before = self.student.counts()[1]
        shown: list[str] = []

        def student(prompt: str, image: bytes | None) -> str:
            shown.append(prompt)  # the rendered prompt: the probe evidence reads it
            return self.student(prompt, image)

        call: StudentFn = student
        try:
            outcome: ItemOutcome = runtime.run_item(
                item, call, self._policy(harness, item, intervention, call))
        except NotApplicable as exc:  # this item only: the split reports the others
            return {"item_id": item.item_id, "score": None, "na": str(exc),
                    "tokens": self.student.counts()[1] - before,
                    "outcome": {"status": "na", "answer": None, "error": str(exc),
                                "step_limit": False, "calls": []}}
        except BudgetExhausted as exc:
            return _budget_stop(item, str(exc), self.student.counts()[1] - before)
        compact = _compact(outcome)
        try:
            value = score_outcome(self.setting, item, outcome)
        except MetricError as exc:  # the metric's failure on this item: never scored
            value, compact = None, {**compact, "status": "metric_error", "error": str(exc)}
        row: dict[str, Any] = {"item_id": item.item_id, "score": value,
               "tokens": self.student.counts()[1] - before, "outcome": compact}
        if split == "probe":
            row["outcome"]["shown"] = shown
        return row

    def _baseline_one(self, baseline: CotVote | StudentRouted, split: str,
                      item: Item) -> dict[str, Any]:
        if self.before_item is not None:
            self.before_item(split, baseline.key, item)
        with self.student.at(split, baseline.key, item.item_id):
            return self._run_baseline(baseline, item)

    def _run_baseline(self, baseline: CotVote | StudentRouted, item: Item) -> dict[str, Any]:
        calls, before = self.student.counts()
        image = self.setting.image(item) if self.modality == "image" else None
        answer: str | None
        try:
            answer, detail = baseline.answer(self.setting, item, self.student, image)
            status, error = "answered", ""
        except ModelError as exc:  # an API failure: infra, never scored (invariant 6)
            answer, detail = None, {}
            status, error = "infra_error", f"student: {type(exc).__name__}: {exc}"
        except BudgetExhausted as exc:
            return _budget_stop(item, str(exc), self.student.counts()[1] - before)
        try:
            value = None if answer is None else self.setting.score(answer, item)
        except MetricError as exc:  # the metric's failure on this item: never scored
            value, status, error = None, "metric_error", str(exc)
        return {"item_id": item.item_id, "score": value,
                "tokens": self.student.counts()[1] - before,
                "outcome": {"status": status, "answer": answer, "error": error,
                            "step_limit": False,
                            "student_calls": self.student.counts()[0] - calls,
                            "calls": [], **detail}}


def _run_items(run_item: RunItem, items: Sequence[Item], workers: int,
               tick: Callable[[], None]) -> Iterator[dict[str, Any]]:
    """Each item's row as it finishes, up to `workers` items at once (1: in order). On
    a failure nothing new starts, what runs finishes (its row is still yielded, so a
    resume does not redo it), and the error is raised."""
    if workers <= 1 or len(items) <= 1:
        for item in items:
            tick()
            yield run_item(item)
        return
    pool = ThreadPoolExecutor(max_workers=min(workers, len(items)),
                              thread_name_prefix="tether-score")
    failure: BaseException | None = None
    try:
        pending = {pool.submit(run_item, item) for item in items}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                tick()
                if future.cancelled():
                    continue
                if future.exception() is not None:
                    if failure is None:
                        failure = future.exception()
                        for rest in pending:
                            rest.cancel()
                    continue
                yield future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    if failure is not None:
        raise failure


def _budget_stop(item: Item, reason: str, tokens: int) -> dict[str, Any]:
    """The row of an item a student call of which the budget refused: not scored (the
    student did not fail it, it was not asked), and not kept as the item's result."""
    return {"item_id": item.item_id, "score": None, "budget": reason, "tokens": tokens,
            "outcome": {"status": "budget_stop", "answer": None, "error": reason,
                        "step_limit": False, "calls": []}}


def _add(result: SplitScore, row: dict[str, Any]) -> None:
    result.outcomes[row["item_id"]] = row["outcome"]
    if row.get("budget") is not None:
        # its calls before the refusal are in the student's call records, not in the
        # split's tokens per item (over the items that ran to the end)
        result.budget[row["item_id"]] = str(row["budget"])
        return
    result.output_tokens += int(row["tokens"])
    if row.get("na") is not None:
        result.na[row["item_id"]] = str(row["na"])
    elif row["score"] is None:
        result.infra_errors += 1
    else:
        result.scores[row["item_id"]] = float(row["score"])


def _compact(outcome: ItemOutcome) -> dict[str, Any]:
    """What the evidence and the report read of an outcome (hook trace left out)."""
    return {"status": outcome.status, "answer": outcome.answer, "error": outcome.error,
            "step_limit": outcome.step_limit, "calls": outcome.calls}


@dataclass
class ScoringEnv:
    """What every search of a compile shares (the build loop and a comparator's search):
    the setting, its seeded splits and sizes, and the scorer of the student."""

    setting: Setting
    splits: dict[str, list[Item]]
    scorer: SplitScorer
    seed: int
    sizes: dict[str, int]
