"""A tether run as Inspect AI eval logs, written through inspect_ai's own log API.

    paths = export_inspect_logs(store, "logs/")   # one .eval file per arm

Inspect logs one task with one model per file, so each arm of the run (a strategy label)
is one log; its samples are the arm's trials: sample id = the task key, epoch = the
trial's rank among that task's seeds (1-based). A sample holds:

- `input`: the messages of the trial's first model call (what the model was first
  sent); `messages`: the conversation of the trial's main role (the first call's role:
  the proposer of a reviewed trial), its calls' new messages then their replies; every
  other role's calls are in the events, each with the messages it was sent
  (inspect_messages.py);
- `events`: one model event per call in role spans, the per-iteration and final scores,
  at the times the store recorded (inspect_events.py); none for a run recorded before
  start times were kept;
- `output`: the delivered artifact's text (the last reply where there is none);
- `scores["tether"]`: the metric observation (value = its score; answer = the artifact;
  explanation = its defects; metadata: instrument, passed, aggregation and a loop's
  per-iteration scores);
- `model_usage` and `role_usage`: tokens per model and per role over every call;
- `started_at`, `completed_at`, `total_time`: the trial's recorded start and wall time;
- `error`: an errored trial's error (never a score of 0: invariant 6).

The log's results hold the arm's mean metric score over scored trials (none when no
trial was scored: an all-error arm has no mean, never a mean of 0), its stats the usage
over the arm and the arm's first start and last end. Only the records are read: nothing
is re-run or re-scored.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

from inspect_ai.log import (
    EvalConfig,
    EvalDataset,
    EvalError,
    EvalLog,
    EvalMetric,
    EvalResults,
    EvalSample,
    EvalScore,
    EvalSpec,
    EvalStats,
    write_eval_log,
)
from inspect_ai.model import ModelOutput, ModelUsage
from inspect_ai.scorer import Score

from tether.core import TrialRecord
from tether.integrations.inspect_events import iso, sample_events, sum_usage, trial_end
from tether.integrations.inspect_messages import conversation, main_role, message, role_of
from tether.models import CallRecord
from tether.runs import RunStore

__all__ = ["arm_log", "export_inspect_logs"]

#: the scorer name tether's metric appears under in every exported sample
SCORER = "tether"


def _by_model(calls: list[CallRecord]) -> dict[str, ModelUsage]:
    return sum_usage(calls, lambda c: c.model_id)


def _by_role(calls: list[CallRecord]) -> dict[str, ModelUsage]:
    return sum_usage(calls, role_of)


def _score(record: TrialRecord, answer: str | None) -> Score | None:
    metric = record.metric
    if metric is None or not metric.ok or record.score is None:
        return None
    explanation = "\n".join(f"{d.kind}: {d.message}" for d in metric.defects[:50]) \
        or ("passed" if metric.passed else "no defects reported")
    return Score(value=float(record.score), answer=answer, explanation=explanation,
                 metadata={"instrument": metric.instrument, "version": metric.version,
                           "passed": record.passed, "aggregation": metric.aggregation,
                           "higher_is_better": metric.higher_is_better,
                           "n_defects": len(metric.defects),
                           # a loop's metric per iteration (iteration 0: the draft); None
                           # for an iteration that could not be scored
                           **({"iteration_scores": record.extra["iteration_scores"]}
                              if "iteration_scores" in record.extra else {})})


def _sample(store: RunStore, record: TrialRecord, epoch: int) -> EvalSample:
    calls = record.calls
    text = store.artifact_text(record.artifact) if record.artifact else None
    delivered = text if text is not None else (calls[-1].output if calls else "")
    model = calls[-1].model_id if calls else "none"
    score = _score(record, text)
    error = None
    if record.status == "error":
        said = f"{record.error_kind or 'error'}: {record.error_message or ''}".strip()
        error = EvalError(message=said, traceback=said, traceback_ansi=said)
    spec, role = record.spec, main_role(calls)
    return EvalSample(
        id=spec.task_key, epoch=epoch,
        input=[message(dict(m)) for m in calls[0].messages] if calls else "",
        target="", messages=conversation(calls, role),
        output=ModelOutput.from_content(model=model, content=delivered),
        scores={SCORER: score} if score is not None else None,
        events=sample_events(record, score, error),
        model_usage=_by_model(calls), role_usage=_by_role(calls), error=error,
        started_at=iso(record.started_at), completed_at=iso(trial_end(record)),
        total_time=record.wall_s or None,
        metadata={"trial_id": record.trial_id, "strategy": spec.strategy, "arm": spec.arm,
                  "seed": spec.seed, "status": record.status, "passed": record.passed,
                  "models": dict(spec.models), "messages_of_role": role,
                  "calls_per_role": {r: sum(1 for c in calls if role_of(c) == r)
                                     for r in dict.fromkeys(map(role_of, calls))}})


def _times(store: RunStore, records: list[TrialRecord]) -> tuple[str, str, str]:
    """(created, started_at, completed_at) of an arm's log: the run's recorded start, the
    arm's first trial start and last trial end; '' where the store has no time (a run
    recorded before trials kept their start). Only `created`, which Inspect requires,
    falls back to the time the log is written: the time it was created."""
    starts = [r.started_at for r in records if r.started_at is not None]
    ends = [e for e in map(trial_end, records) if e is not None]
    run_start = store.meta("started_at")
    started = iso(min(starts)) or "" if starts else ""
    completed = iso(max(ends)) or "" if ends else ""
    created = str(run_start) if run_start else (started or datetime.now(UTC).isoformat())
    return created, started, completed


def arm_log(store: RunStore, arm: str, records: list[TrialRecord]) -> EvalLog:
    """The Inspect log of one arm's trials (see the module docstring)."""
    by_task: dict[str, list[TrialRecord]] = defaultdict(list)
    for r in records:
        by_task[r.spec.task_key].append(r)
    samples = []
    for task in sorted(by_task):
        for epoch, r in enumerate(sorted(by_task[task], key=lambda r: r.spec.seed), 1):
            samples.append(_sample(store, r, epoch))
    models = [c.model_id for r in records for c in r.calls]
    main = max(set(models), key=models.count) if models else "none"
    scored = [r.score for r in records if r.score is not None]
    metric = records[0].metric.instrument if records and records[0].metric else SCORER
    created, started, completed = _times(store, records)
    spec = EvalSpec(created=created, task=arm,
                    dataset=EvalDataset(name=",".join(sorted({r.spec.suite for r in records})),
                                        samples=len(by_task)),
                    model=main, config=EvalConfig(epochs=max((len(v) for v in by_task.values()),
                                                             default=1)),
                    metadata={"tether_run": str(store.dir), "arm": arm})
    # an arm with no scored trial (all errored) has no mean: never a mean of 0
    mean = {"mean": EvalMetric(name="mean", value=sum(scored) / len(scored))} if scored else {}
    results = EvalResults(
        total_samples=len(samples), completed_samples=len(scored),
        scores=[EvalScore(name=SCORER, scorer=SCORER, metadata={"instrument": metric},
                          metrics=mean)])
    errors = sum(1 for r in records if r.status == "error")
    return EvalLog(status="success" if not errors else "error", eval=spec,
                   results=results, samples=samples,
                   stats=EvalStats(started_at=started, completed_at=completed,
                                   model_usage=_by_model([c for r in records for c in r.calls]),
                                   role_usage=_by_role([c for r in records for c in r.calls])),
                   error=None if not errors else EvalError(
                       message=f"{errors} of {len(records)} trials errored",
                       traceback="", traceback_ansi=""))


def _file_name(arm: str) -> str:
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in arm)
    return f"{safe or 'arm'}.eval"


def export_inspect_logs(store: RunStore, out_dir: str | Path) -> list[Path]:
    """Write one Inspect `.eval` log per arm of the run into `out_dir`; their paths."""
    by_arm: dict[str, list[TrialRecord]] = defaultdict(list)
    for record in store.trials():
        by_arm[record.spec.arm].append(record)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for arm in sorted(by_arm):
        path = out / _file_name(arm)
        write_eval_log(arm_log(store, arm, by_arm[arm]), str(path))
        paths.append(path)
    return paths
