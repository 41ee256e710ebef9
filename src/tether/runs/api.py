"""The Python entry point to an experiment: `tether.run(config, out=None)`.

`config` is a dict in the config schema (what a TOML config parses to, `tether.runs.config`)
or the path of a config file; the run goes through the same `prepare` and `execute` as
`tether run`, into a run directory like any other (resumable, `tether report` reads it).
A dict is validated as it is: nothing is written but the run directory.

What comes back is the run's numbers, defined once here and by `arm_rows`:
- an arm's `pass_rate` is passed / judged trials (errored trials and trials with no
  verdict are left out: an infrastructure failure is not a fail), `None` when none was
  judged; `interval` is its 95% Wilson interval (`tether.stats.wilson_interval`), `None`
  likewise;
- `output_tokens` counts output and reasoning tokens of every call, `input_tokens` the
  prompts';
- `cost_usd` is `None` (unknown, never 0) unless every call of the arm has a price;
- `paired(a, b)` counts the tasks B passed and A failed (`improved`) and the reverse
  (`regressed`) over (task, seed, models, budget) pairs both arms judged, with the
  two-sided exact sign test's p-value.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tether.core import TrialRecord
from tether.errors import ConfigError
from tether.runs.costs import META_KEY as COST_META, run_book
from tether.runs.launch import RunRequest, execute, prepare
from tether.runs.summary import arm_rows

__all__ = ["ArmOutcome", "PairedOutcome", "RunOutcome", "run"]


@dataclass(frozen=True)
class ArmOutcome:
    """One arm of a run (one row per models configuration and budget when there are several)."""

    label: str
    models: str
    budget: str
    trials: int
    judged: int
    passed: int
    errors: int
    pass_rate: float | None
    interval: tuple[float, float] | None
    mean_score: float | None
    output_tokens: int
    input_tokens: int
    cost_usd: float | None

    def __str__(self) -> str:
        rate = ("-" if self.pass_rate is None or self.interval is None else
                f"{100 * self.pass_rate:.1f}% [{100 * self.interval[0]:.1f}, "
                f"{100 * self.interval[1]:.1f}]")
        cost = "-" if self.cost_usd is None else f"${self.cost_usd:.4f}"
        errors = f", {self.errors} errored" if self.errors else ""
        return (f"{self.label}: passed {self.passed}/{self.judged} = {rate}{errors}, "
                f"{self.output_tokens} output tokens, cost {cost}")

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "models": self.models, "budget": self.budget,
                "trials": self.trials, "judged": self.judged, "passed": self.passed,
                "errors": self.errors, "pass_rate": self.pass_rate,
                "interval": list(self.interval) if self.interval else None,
                "mean_score": self.mean_score, "output_tokens": self.output_tokens,
                "input_tokens": self.input_tokens, "cost_usd": self.cost_usd}


@dataclass(frozen=True)
class PairedOutcome:
    """Arm B against arm A on the pairs both judged."""

    baseline: str
    candidate: str
    pairs: int
    improved: int
    regressed: int
    p: float

    def __str__(self) -> str:
        return (f"{self.candidate} vs {self.baseline}: {self.improved} improved, "
                f"{self.regressed} regressed of {self.pairs} pairs (sign test p = {self.p:.3g})")

    def to_dict(self) -> dict[str, Any]:
        return {"baseline": self.baseline, "candidate": self.candidate, "pairs": self.pairs,
                "improved": self.improved, "regressed": self.regressed, "p": self.p}


@dataclass
class RunOutcome:
    """What `tether.run` returns: the run directory, its arms and every trial record."""

    run_dir: Path
    arms: list[ArmOutcome]
    records: list[TrialRecord] = field(repr=False)
    planned: int = 0
    interrupted: bool = False
    #: model endpoints that kept refusing connections: the trials still to start that
    #: used them were recorded as errors, not run (`run(..., resume=True,
    #: retry_errors=True)` runs them once the server is back)
    endpoints_down: list[str] = field(default_factory=list)

    @property
    def errored(self) -> int:
        return sum(1 for r in self.records if r.status == "error")

    def arm(self, label: str) -> ArmOutcome:
        for a in self.arms:
            if a.label == label:
                return a
        raise KeyError(f"no arm {label!r}; the arms are {[a.label for a in self.arms]}")

    def paired(self, baseline: str, candidate: str) -> PairedOutcome:
        """`candidate` against `baseline`, task by task (see the module's definition)."""
        from tether.stats import sign_test

        verdicts: dict[str, dict[tuple[Any, ...], bool]] = {baseline: {}, candidate: {}}
        for r in self.records:
            if r.spec.arm in verdicts and r.passed is not None and r.status != "error":
                key = (r.spec.suite, r.spec.task_id, r.spec.seed,
                       tuple(sorted(r.spec.models.items())), r.spec.budget.label)
                verdicts[r.spec.arm][key] = r.passed
        for label in (baseline, candidate):
            self.arm(label)  # a typo is a KeyError naming the arms, never 0 pairs
        a, b = verdicts[baseline], verdicts[candidate]
        both = a.keys() & b.keys()
        improved = sum(1 for k in both if b[k] and not a[k])
        regressed = sum(1 for k in both if a[k] and not b[k])
        test = sign_test(improved, regressed, len(both) - improved - regressed)
        return PairedOutcome(baseline, candidate, len(both), improved, regressed,
                             test.p_value)

    def __str__(self) -> str:
        head = f"{self.run_dir}: {len(self.records)}/{self.planned} trials" + (
            " (interrupted)" if self.interrupted else "")
        down = [f"  not reached: {e} (trials after it not started; resume with "
                "retry_errors=True once it is back)" for e in self.endpoints_down]
        return "\n".join([head, *(f"  {a}" for a in self.arms), *down])

    def to_dict(self) -> dict[str, Any]:
        return {"run_dir": str(self.run_dir), "planned": self.planned,
                "committed": len(self.records), "interrupted": self.interrupted,
                "errored": self.errored, "endpoints_down": list(self.endpoints_down),
                "arms": [a.to_dict() for a in self.arms]}


def arm_outcomes(rows: list[dict[str, Any]]) -> list[ArmOutcome]:
    """`arm_rows`' rows with each pass rate's interval; labels name the models and the
    budget only where the run has several of them."""
    from tether.stats import wilson_interval

    several_models = len({r["models"] for r in rows}) > 1
    several_budgets = len({r["budget"] for r in rows}) > 1
    out = []
    for r in rows:
        judged = r["judged"]
        label = r["arm"] + (f" @ {r['models']}" if several_models else "") + (
            f" [{r['budget']}]" if several_budgets else "")
        out.append(ArmOutcome(
            label=label, models=r["models"], budget=r["budget"], trials=r["trials"],
            judged=judged, passed=r["passed"], errors=r["error"], pass_rate=r["pass_rate"],
            interval=wilson_interval(r["passed"], judged) if judged else None,
            mean_score=r["mean_score"], output_tokens=r["output_tokens"],
            input_tokens=r["input_tokens"], cost_usd=r["cost_usd"]))
    return out


def run(config: Mapping[str, Any] | str | Path, out: str | Path | None = None, *,
        resume: bool = False, retry_errors: bool = False, sets: tuple[str, ...] = (),
        prices: str | Path | None = None, on_trial: Callable[[TrialRecord], None] | None = None,
        stop: threading.Event | None = None) -> RunOutcome:
    """Run the experiment `config` (a dict in the config schema, or a config file's path)
    into the run directory `out` (default `runs/NAME-TIMESTAMP`) and return its outcome.

    `resume=True` finishes the run already in `out` (after a crash or a stop): only its
    missing trials run, and `config` must be the experiment it was started with;
    `retry_errors=True` runs its error trials again as well (after a server was down:
    `RunOutcome.endpoints_down`). `sets`
    are `--set KEY=VALUE` overrides, `prices` a price table file for dollar costs;
    `on_trial(record)` is called as each trial is committed. Errors in the config are
    `tether.errors.ConfigError` (one line, with a hint), raised before anything is written.
    """
    if resume and out is None:
        raise ConfigError("resume=True needs out=RUN_DIR", hint="name the run to finish")
    if retry_errors and not resume:
        raise ConfigError("retry_errors=True needs resume=True",
                          hint="a new run has no error trials to run again")
    where = None if out is None else str(out)
    request = RunRequest(out=None if resume else where, resume=where if resume else None,
                         sets=tuple(sets), prices=None if prices is None else str(prices),
                         retry_errors=retry_errors)
    if isinstance(config, str | Path):
        request.config = str(config)
    else:  # anything but a path is taken for the dict, so a wrong type is named as one
        request.experiment = config
    prepared = prepare(request)
    try:
        result = execute(prepared, stop=stop, on_commit=on_trial)
        resolved = prepared.experiment.resolved()
        book = run_book(resolved, None, prepared.store.meta(COST_META))
        arms = arm_outcomes(arm_rows(result.records, resolved, book))
    finally:
        prepared.store.close()
    return RunOutcome(run_dir=Path(prepared.store.dir), arms=arms, records=result.records,
                      planned=len(prepared.planned), interrupted=result.interrupted,
                      endpoints_down=list(result.endpoints_down))
