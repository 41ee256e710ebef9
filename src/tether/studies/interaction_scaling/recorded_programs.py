"""Recorded real model outputs of the interaction-scaling study, and re-checking them.

Each recorded file holds programs with the verdict the study gave them. `load_records`
reads every format listed in the reference README into flat `RecordedProgram`s with
stable ids (`seed1/S/5000/code_003/sample2`, `code_007/rv`, ...); `recheck` runs each
program with its task's checks under the study's rule (program + "\\n" + test_code,
pass = exit status 0 within 30 s) in the sandbox and compares with the record.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tether.errors import ConfigError
from tether.sandbox import SandboxError
from tether.systems.code import STUDY_TIMEOUT_S, run_whole_script

# (code key, verdict key, id suffix) of the paired single-shot / reviewed formats.
_PAIRS = (
    ("ss_final_code", "single_shot_passed", "ss"), ("rv_final_code", "reviewed_passed", "rv"),
    ("ss_final_code", "ss_meets", "ss"), ("rv_final_code", "rv_meets", "rv"),
)  # fmt: skip


@dataclass(frozen=True)
class RecordedProgram:
    id: str
    task_id: str
    code: str
    passed: bool


@dataclass
class RecheckReport:
    records: int = 0
    executions: int = 0
    agree: int = 0
    disagreements: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def disagree(self) -> int:
        return len(self.disagreements)

    def to_json(self) -> dict[str, Any]:
        return {"records": self.records, "agree": self.agree, "disagree": self.disagree,
                "disagreements": self.disagreements, "errors": self.errors,
                "executions": self.executions}


def _program(rid: str, task_id: Any, code: Any, passed: Any) -> RecordedProgram:
    if not isinstance(passed, bool):
        raise ConfigError(f"record {rid}: verdict is {passed!r}, not true/false")
    return RecordedProgram(rid, str(task_id), code if isinstance(code, str) else "", passed)


def _four_strategy(data: dict) -> Iterator[RecordedProgram]:
    for seed, strategies in data.items():
        for strategy, budgets in strategies.items():
            for budget, tasks in budgets.items():
                for task_id, rec in tasks.items():
                    base = f"seed{seed}/{strategy}/{budget}/{task_id}"
                    yield _program(base, task_id, rec.get("code_emitted"), rec.get("passed"))
                    for sample in rec.get("samples") or []:
                        yield _program(f"{base}/sample{sample['idx']}", task_id,
                                       sample.get("code"), sample.get("passed"))


def _paired(rows: list[dict]) -> Iterator[RecordedProgram]:
    for row in rows:
        for code_key, verdict_key, suffix in _PAIRS:
            if code_key in row and verdict_key in row:
                yield _program(f"{row['task_id']}/{suffix}", row["task_id"], row[code_key],
                               row[verdict_key])


def iter_records(data: Any) -> Iterator[RecordedProgram]:
    """Flatten any recorded format of the study (see the reference README) into programs."""
    if isinstance(data, list):
        yield from _paired(data)
    elif isinstance(data, dict) and isinstance(data.get("results"), list):  # feedback_types
        for row in data["results"]:
            yield _program(f"{row['task_id']}/rv", row["task_id"], row.get("final_code"),
                           row.get("rv_passed"))
    elif isinstance(data, dict) and isinstance(data.get("records"), dict):  # iad
        for task_id, rec in data["records"].items():
            yield _program(task_id, task_id, rec.get("code_emitted"), rec.get("passed"))
    elif isinstance(data, dict) and data and all(k.isdigit() for k in data):  # 4-strategy
        yield from _four_strategy(data)
    else:
        raise ConfigError("unrecognised recorded-results format",
                          hint="expected one of the formats in the interaction-scaling README")


def load_records(path: Path) -> list[RecordedProgram]:
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read recorded results {path}: {exc}") from None
    records = list(iter_records(data))
    ids = [r.id for r in records]
    if len(set(ids)) != len(ids):
        raise ConfigError(f"{path}: record ids are not unique")
    return records


def load_task_checks(path: Path) -> dict[str, str]:
    """task_id -> test_code from an interaction-scaling tasks file."""
    try:
        tasks = json.loads(Path(path).read_text())
        return {t["task_id"]: t["test_code"] for t in tasks}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ConfigError(f"cannot read tasks from {path}: {exc}") from None


def recheck(records: list[RecordedProgram], checks: dict[str, str], *, sandbox: str = "bwrap",
            jobs: int = 2, timeout_s: float = STUDY_TIMEOUT_S, dedupe: bool = True,
            on_done: Callable[[RecordedProgram, bool | None], None] | None = None,
            ) -> RecheckReport:
    """Re-execute the records; a sandbox failure is an error, never a verdict.

    With `dedupe`, records holding the same program for the same task (best-of-N
    samples often repeat the final program) share one execution: about half of the
    4-strategy file. Each record is still judged against its own recorded verdict.
    """
    missing = sorted({r.task_id for r in records} - set(checks))
    if missing:
        raise ConfigError(f"tasks file lacks {len(missing)} task(s) the records use: "
                          f"{', '.join(missing[:5])}",
                          hint="pass the tasks file these records were made on (see README)")

    def one(rec: RecordedProgram) -> bool | None:
        try:
            verdict = run_whole_script(rec.code, checks[rec.task_id], sandbox=sandbox,
                                       timeout_s=timeout_s).passed
        except SandboxError:
            verdict = None
        if on_done is not None:
            on_done(rec, verdict)
        return verdict

    def key(rec: RecordedProgram) -> tuple[str, str]:
        return (rec.task_id, rec.code) if dedupe else (rec.id, "")

    runs: dict[tuple[str, str], RecordedProgram] = {}
    for rec in records:
        runs.setdefault(key(rec), rec)
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        verdicts = dict(zip(runs, pool.map(one, runs.values()), strict=True))
    report = RecheckReport(records=len(records), executions=len(runs))
    for rec in records:
        verdict = verdicts[key(rec)]
        if verdict is None:
            report.errors.append(rec.id)
        elif verdict == rec.passed:
            report.agree += 1
        else:
            report.disagreements.append(rec.id)
    return report
