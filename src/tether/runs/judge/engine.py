"""Judging a run: every eligible attempt, once per (judged, version), results stored.

A `Job` names what is judged (a rubric set's key or a check's name, and its version),
which trials it applies to and the question it asks about one attempt. `judge_run`
reads the run read-only, skips attempts already judged without error under the same
(judged, version, repeat) (so a rerun asks nothing twice and picks up judge errors and
attempts it did not reach), records every judge call (role `judge`) and writes one row
per attempt, job and repeat to the run's `judgements` table as soon as it is answered.

`repeats` = k asks each question k times, independently (the paper judges every
trajectory twice and averages: `DEFAULT_REPEATS` = 2); the report gives the mean flags
and the agreement of the k runs. Repeats differ only by sampling, so they are asked at a
temperature above 0 (`DEFAULT_TEMPERATURE`): two greedy judgements of one transcript are
one judgement twice, and asking for repeats at temperature 0 is refused.

The cap (`cap` output tokens, reasoning included, for the whole command) is the core's
`Ledger`: reserved before each call and settled with its usage, so recorded spend never
exceeds it. A question the cap refuses is recorded as that attempt's judge error (no
call made; a rerun with a larger cap asks it), never raised.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tether.core import AgentFacts, Ledger, TrialRecord, facts_of
from tether.errors import ConfigError
from tether.models import CallRecord, Model
from tether.runs.judge.ask import Answer, CapReached, Question, ask, judge_ledger
from tether.runs.judge.table import JUDGE_ERROR, OK, Judgement, JudgeTable
from tether.runs.judge.transcript import AttemptView, attempt_view
from tether.runs.store import RunStore

#: judge runs per attempt, as the turn-level best-of-N paper judges each trajectory
DEFAULT_REPEATS = 2
#: the judge's sampling temperature: above 0, so repeats can disagree (the paper does not
#: state its judge's; 0.7 is a common sampling default)
DEFAULT_TEMPERATURE = 0.7


@dataclass(frozen=True)
class Job:
    judged: str
    version: str
    #: why a trial is left out ("" = judge it): e.g. "not passed" for reward hacking
    exclude: Callable[[TrialRecord], str]
    question: Callable[[TrialRecord, AttemptView], Question]


@dataclass
class JobSummary:
    judged: str
    version: str
    eligible: int = 0
    already: int = 0
    ok: int = 0
    errors: int = 0
    not_asked: int = 0
    excluded: dict[str, int] = field(default_factory=dict)
    output_tokens: int = 0


def agent_exclusion(record: TrialRecord) -> str:
    """Why an attempt is not judged at all: not an agent trial, or an agent error (a
    sandbox or API failure has no trajectory worth judging; it is never a behaviour)."""
    agent = facts_of(record.extra, AgentFacts)
    if agent is None:
        return "not an agent trial"
    if record.status == "error" or agent.end_state.value == "agent_error":
        return "agent error"
    return ""


def _usage(calls: Sequence[CallRecord]) -> tuple[int, int]:
    return (sum(c.usage.input_tokens for c in calls),
            sum(c.usage.output_tokens + c.usage.reasoning_tokens for c in calls))


def judge_run(run_dir: str | Path, jobs: Sequence[Job], model: Model, *,
              retries: int = 2, max_tokens: int = 1024, cap: int | Ledger | None = None,
              arms: Iterable[str] | None = None, repeats: int = DEFAULT_REPEATS,
              temperature: float = DEFAULT_TEMPERATURE,
              on_attempt: Callable[[str, str], None] | None = None) -> list[JobSummary]:
    """Judge every eligible attempt of the run for every job, `repeats` times each; one
    summary per job (its counts are of (attempt, repeat) questions)."""
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}")
    if repeats > 1 and temperature <= 0:
        raise ConfigError(f"{repeats} judge repeats at temperature {temperature:g} are one "
                          "greedy judgement asked again",
                          hint="give a temperature above 0, or repeats = 1")
    ledger = cap if isinstance(cap, Ledger) else judge_ledger(cap)
    wanted_arms = set(arms) if arms else None
    with RunStore.open(run_dir, readonly=True) as store:
        records = store.trials()
    summaries = [JobSummary(j.judged, j.version) for j in jobs]
    with JudgeTable(run_dir, readonly=False) as table:
        done = {(j.judged, j.version): table.done(j.judged, j.version) for j in jobs}
        for record in records:
            if wanted_arms is not None and record.spec.arm not in wanted_arms:
                continue
            view = attempt_view(record)
            for job, summary in zip(jobs, summaries, strict=True):
                reason = agent_exclusion(record) or job.exclude(record)
                if reason or view is None:
                    reason = reason or "not an agent trial"
                    summary.excluded[reason] = summary.excluded.get(reason, 0) + 1
                    continue
                for repeat in range(repeats):
                    summary.eligible += 1
                    if (record.trial_id, repeat) in done[(job.judged, job.version)]:
                        summary.already += 1
                        continue
                    status = _judge_one(table, job, record, view, model, ledger, summary,
                                        repeat=repeat, retries=retries, max_tokens=max_tokens,
                                        temperature=temperature)
                    if on_attempt is not None:
                        on_attempt(job.judged, status)
    return summaries


def _judge_one(table: JudgeTable, job: Job, record: TrialRecord, view: AttemptView,
               model: Model, ledger: Ledger, summary: JobSummary, *, repeat: int,
               retries: int, max_tokens: int, temperature: float) -> str:
    """Ask one question about one attempt and store the row; returns its status."""
    log: list[CallRecord] = []
    try:
        answer = ask(model, job.question(record, view), ledger=ledger, log=log,
                     retries=retries, max_tokens=max_tokens, temperature=temperature)
    except CapReached as exc:
        if not log:
            summary.not_asked += 1
        answer = Answer(None, f"{exc} ({'during a retry' if log else 'not asked'})",
                        len(log))
    tokens_in, tokens_out = _usage(log)
    summary.output_tokens += tokens_out
    status = OK if answer.result is not None else JUDGE_ERROR
    table.put(Judgement(record.trial_id, job.judged, job.version, status, answer.result,
                        answer.error, model.model_id, [c.to_json() for c in log],
                        tokens_in, tokens_out, repeat))
    if status == OK:
        summary.ok += 1
    else:
        summary.errors += 1
    return status
