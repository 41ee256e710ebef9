"""Scoring a harness on a split: the runtime of `compiled_harness`, item by item, recorded.

    scorer = SplitScorer(setting, endpoint, run)
    result = scorer.score(harness, "validation", items)   # SplitScore

Every item goes through `HarnessRuntime.run_item` (systems/compile/runtime.py), the
runtime the `compiled_harness` strategy deploys, with a `StudentSession` of the compile's
student endpoint (endpoint.py) making the calls, each budgeted and recorded. `score_item`
is the one student-scoring path: it runs one item and returns its row and calls; the
scorer commits each scored item to the compile's run as a trial record as soon as it is
known (compiler/run.py, compiler/trial.py), so after a kill the next run re-scores
neither a scored proposal nor a scored item (the student is decoded with a fixed seed,
so a replayed item would give the same answer anyway).

The mean is the unrounded mean over the scored items (infra errors are never scored:
docs/concepts.md invariant 6); a hook error scores 0 (the harness's fault).

An intervention is decided n/a per item: an item it does not apply to (no candidates,
no signals, no resource on that item) is recorded as n/a with the reason, never scored,
and the split's mean is over the items where it applies; only when it applies to none
is the whole split `NotApplicable`. An item a student call of which the student's token
budget refused is a budget stop: kept in the split's result with the reason
(`SplitScore.budget`), never scored (the student did not fail it; it was not asked),
never committed as the item's result, and a split with one is incomplete (`stopped`):
a resume asks again, and the compile loop stops there (loop.py).

`score_baseline` scores a baseline with no harness (systems/compile/baselines.py:
student_routed, cot_vote) the same recorded, item-by-item way. `score_all` scores
several jobs (`job(harness or baseline, split, items)`) in one pool of student calls
(compiler/pool.py): the build loop's probe and validation, the test arms.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tether.core import BudgetExhausted
from tether.errors import ConfigError
from tether.models import CallRecord, ModelError
from tether.systems.compile.baselines import CotVote, StudentRouted
from tether.systems.compile.compiler.endpoint import StudentEndpoint
from tether.systems.compile.compiler.pool import ItemScorer, Job, score_jobs
from tether.systems.compile.compiler.trial import Scoring
from tether.systems.compile.harness import Harness, bare_harness
from tether.systems.compile.interventions import NotApplicable, intervene, intervened_harness
from tether.systems.compile.runtime import HarnessRuntime, ItemOutcome, score_outcome
from tether.systems.compile.setting import Item, Setting, is_labelled
from tether.systems.compile.settings.metric_process import MetricError
from tether.systems.compile.student import StudentSession

if TYPE_CHECKING:
    from tether.systems.compile.compiler.run import CompileRun

__all__ = ["NotApplicable", "ScoredItem", "ScoringEnv", "SplitScore", "SplitScorer", "graded"]

#: called before an item is scored: (split, harness hash, item) (tests check the freeze)
BeforeItem = Callable[[str, str, Item], None]
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
    #: items with no gold to score against (a deployment's unlabelled rows): answered
    unlabelled: list[str] = field(default_factory=list)

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
    def known_mean(self) -> float | None:
        """The mean as reported: None when items ran but none was scored (every one an
        infra error, n/a or unlabelled), which is unknown, never a score of 0. The gate
        compares `mean`, where such a split counts 0 and so never beats the floor."""
        return self.mean if self.scores else None

    @property
    def tokens_per_item(self) -> float:
        """Over the items it ran on (n/a and budget-stopped items excluded)."""
        n = len(self.outcomes) - len(self.na) - len(self.budget)
        return self.output_tokens / n if n else 0.0

    def to_json(self) -> dict[str, Any]:
        return {"hash": self.hash, "split": self.split, "mean": self.mean,
                "scores": self.scores, "outcomes": self.outcomes,
                "output_tokens": self.output_tokens, "infra_errors": self.infra_errors,
                "na": self.na, **({"budget": self.budget} if self.budget else {}),
                **({"unlabelled": self.unlabelled} if self.unlabelled else {})}

    @classmethod
    def of_rows(cls, key: str, split: str, rows: Sequence[dict[str, Any]]) -> SplitScore:
        """The split's result from its items' rows, in the order given."""
        result = cls(key, split)
        for row in rows:
            _add(result, row)
        return result

    @classmethod
    def from_json(cls, row: dict[str, Any]) -> SplitScore:
        return cls(row["hash"], row["split"], dict(row["scores"]), dict(row["outcomes"]),
                   int(row["output_tokens"]), int(row.get("infra_errors", 0)),
                   dict(row.get("na", {})), dict(row.get("budget", {})),
                   list(row.get("unlabelled", [])))


@dataclass
class ScoredItem:
    """One item scored: the scorer's row of it and the student calls it made."""

    row: dict[str, Any]
    calls: list[CallRecord]
    wall_s: float = 0.0

    @property
    def budget_stop(self) -> bool:
        return "budget" in self.row




class SplitScorer:
    """Scores harnesses on splits through the runtime, each item a trial of `run`.

    `scope` keeps a search's scores apart from the compile's own ("gepa0": GEPA's search
    of build 0 scores its candidates in its own trials, as it always did)."""

    def __init__(self, setting: Setting, endpoint: StudentEndpoint, run: CompileRun, *,
                 modality: str = "text", before_item: BeforeItem | None = None,
                 progress: Progress | None = None, scope: str = "") -> None:
        self.setting = setting
        self.endpoint = endpoint
        self.run = run
        self.modality = modality
        self.before_item = before_item
        self.progress = progress
        self.scope = scope
        self.bare_hash = bare_harness(setting.name).hash

    def within(self, scope: str) -> SplitScorer:
        """The same scorer, keeping its scores in `scope`."""
        return SplitScorer(self.setting, self.endpoint, self.run, modality=self.modality,
                           before_item=self.before_item, progress=self.progress, scope=scope)

    def score(self, harness: Harness, split: str, items: Sequence[Item],
              intervention: str | None = None) -> SplitScore:
        """The harness's scores on `items` (with one decision intervention applied:
        systems/compile/interventions.py; NotApplicable when it applies to none of them)."""
        # an intervention's policy may keep state across items: those run one at a time
        [result] = self.score_all([self.job(harness, split, items, intervention)],
                                  width=1 if intervention is not None else None)
        if intervention is not None and result.na and len(result.na) == len(result.outcomes):
            raise NotApplicable(next(iter(result.na.values())))
        return result

    def score_baseline(self, baseline: CotVote | StudentRouted, split: str,
                       items: Sequence[Item]) -> SplitScore:
        """A baseline's scores on `items`, keyed by `baseline.key`."""
        return self.score_all([self.job(baseline, split, items)])[0]

    def job(self, scored: Harness | CotVote | StudentRouted, split: str,
            items: Sequence[Item], intervention: str | None = None, *,
            after: int | None = None) -> Job:
        """What scores `items` with a harness (and an intervention) or a baseline, for
        `score_all` (`after`: see pool.py)."""
        if not isinstance(scored, Harness):
            baseline = scored
            scoring = Scoring.of_baseline(baseline.name, baseline.key, split)

            @contextmanager
            def baseline_runner() -> Iterator[ItemScorer]:
                yield lambda item: self.score_item(scoring, item, baseline=baseline)

            return Job(scoring, items, baseline_runner, f"{split} {baseline.name}", after)
        harness = scored
        scoring = Scoring.of_harness(harness, split, bare_hash=self.bare_hash,
                                     intervention=intervention, scope=self.scope)

        @contextmanager
        def runner() -> Iterator[ItemScorer]:
            # persist runs an edited copy: its runtime
            run = harness if intervention is None else intervened_harness(intervention,
                                                                          harness)
            with HarnessRuntime(run, self.setting,
                                # self.modality is a Modality value; its attribute is typed str
                                student_modality=self.modality) as runtime:  # type: ignore[arg-type]
                yield lambda item: self.score_item(scoring, item, harness=harness,
                                                   runtime=runtime, intervention=intervention)

        label = f"{split} {scoring.key[:8]}" + (f" {intervention}" if intervention else "")
        return Job(scoring, items, runner, label, after)

    def score_all(self, jobs: Sequence[Job], *, width: int | None = None) -> list[SplitScore]:
        """Each job's scores, their items scored in one pool of the endpoint's width
        (pool.py): the callers keep a pool on one side of the freeze."""

        def commit(scoring: Scoring, item: Item, scored: ScoredItem) -> None:
            self.run.commit(scoring, self.setting, item, scored.row, scored.calls,
                            modality=self.modality, wall_s=scored.wall_s)

        def tick(job: Job, done: int, total: int) -> None:
            if self.progress is not None:
                self.progress(job.label, done, total)

        rows = score_jobs(jobs, width=self.endpoint.concurrency if width is None else width,
                          scored=self.run.scored, commit=commit, tick=tick,
                          prepare=self._prepare())
        # split order, whatever order the items finished in: the same result as serial
        return [SplitScore.of_rows(job.scoring.key, job.scoring.split,
                                   [got[i.item_id] for i in job.items if i.item_id in got])
                for job, got in zip(jobs, rows, strict=True)]

    def _prepare(self) -> Callable[[Item], object] | None:
        """What makes an item's image ahead of its call (pool.py): the setting's own
        `prepare` (setting.py), for a student that is shown images."""
        prepare = getattr(self.setting, "prepare", None)
        return prepare if self.modality == "image" and callable(prepare) else None

    # -- one item: the student-scoring path -------------------------------------------
    def score_item(self, scoring: Scoring, item: Item, *, harness: Harness | None = None,
                   runtime: HarnessRuntime | None = None, intervention: str | None = None,
                   baseline: CotVote | StudentRouted | None = None) -> ScoredItem:
        """Score one item (with the harness's `runtime`, or a baseline): its row and the
        student calls it made, nothing recorded yet (the caller commits it). Safe to call
        for several items at once: each gets its own student session and call log."""
        if self.before_item is not None:
            self.before_item(scoring.split, scoring.key.split("+")[0], item)
        calls: list[CallRecord] = []
        started = time.monotonic()
        if baseline is not None:
            student = self.endpoint.session(
                max_tokens=baseline.max_tokens, temperature=baseline.temperature,
                modality=self._modality(), where=scoring.where(item.item_id), log=calls)
            row = self._baseline_row(baseline, item, student)
        else:
            assert harness is not None and runtime is not None
            student = self.endpoint.session(
                max_tokens=harness.decode.max_tokens, temperature=harness.decode.temperature,
                modality=self._modality(), where=scoring.where(item.item_id), log=calls)
            row = self._harness_row(runtime, harness, scoring.split, item, intervention,
                                    student)
        return ScoredItem(row, calls, time.monotonic() - started)

    def _modality(self) -> Any:
        return "image" if self.modality == "image" else "text"

    def _harness_row(self, runtime: HarnessRuntime, harness: Harness, split: str,
                     item: Item, intervention: str | None,
                     student: StudentSession) -> dict[str, Any]:
        shown: list[str] = []

        def call(prompt: str, image: bytes | None) -> str:
            shown.append(prompt)  # the rendered prompt: the probe evidence reads it
            return student(prompt, image)

        try:
            policy = None
            if intervention is not None:
                image = (lambda: self.setting.image(item)) if self.modality == "image" \
                    else (lambda: None)
                policy = intervene(intervention, harness, self.setting, call, image)[1]
            outcome: ItemOutcome = runtime.run_item(item, call, policy)
        except NotApplicable as exc:  # this item only: the split reports the others
            return {"item_id": item.item_id, "score": None, "na": str(exc),
                    "tokens": student.output_tokens,
                    "outcome": {"status": "na", "answer": None, "error": str(exc),
                                "step_limit": False, "calls": []}}
        except BudgetExhausted as exc:
            return _budget_stop(item, str(exc), student.output_tokens)
        compact = _compact(outcome)
        row: dict[str, Any] = {"item_id": item.item_id, "score": None,
                               "tokens": student.output_tokens, "outcome": compact}
        if not is_labelled(self.setting, item):  # a deployment's row without gold:
            row["unlabelled"] = True  # answered, never scored
        else:
            try:
                row["score"] = score_outcome(self.setting, item, outcome)
            except MetricError as exc:  # the metric's failure on this item: never scored
                row["outcome"] = {**compact, "status": "metric_error", "error": str(exc)}
        if split == "probe":
            row["outcome"]["shown"] = shown
        return row

    def _baseline_row(self, baseline: CotVote | StudentRouted, item: Item,
                      student: StudentSession) -> dict[str, Any]:
        image = self.setting.image(item) if self.modality == "image" else None
        answer: str | None
        try:
            answer, detail = baseline.answer(self.setting, item, student, image)
            status, error = "answered", ""
        except ModelError as exc:  # an API failure: infra, never scored (invariant 6)
            answer, detail = None, {}
            status, error = "infra_error", f"student: {type(exc).__name__}: {exc}"
        except BudgetExhausted as exc:
            return _budget_stop(item, str(exc), student.output_tokens)
        try:
            value = None if answer is None else self.setting.score(answer, item)
        except MetricError as exc:  # the metric's failure on this item: never scored
            value, status, error = None, "metric_error", str(exc)
        return {"item_id": item.item_id, "score": value, "tokens": student.output_tokens,
                "outcome": {"status": status, "answer": answer, "error": error,
                            "step_limit": False, "student_calls": student.calls,
                            "calls": [], **detail}}


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
    elif row.get("unlabelled"):
        result.unlabelled.append(row["item_id"])
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
