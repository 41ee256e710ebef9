"""The run's live numbers: done/total, tokens, pass rate and score, errors apart."""

from __future__ import annotations

import io

from rich.console import Console

from tether.core.observation import Observation
from tether.core.trial import TrialRecord, TrialSpec
from tether.models.base import Usage
from tether.runs.progress import RunProgress

SPEC = TrialSpec(suite="s", task_id="t", strategy="single_shot", models={"proposer": "x"})


def record(status: str = "ok", passed: bool | None = True) -> TrialRecord:
    metric = None if passed is None else Observation(
        instrument="scripted_check", version="1", grounded=True, score=float(passed),
        passed=passed)
    return TrialRecord(trial_id="x", index=0, spec=SPEC, status=status, metric=metric,
                       spend={"proposer": Usage(input_tokens=3, output_tokens=2)})


def test_plain_lines_off_a_terminal_with_running_numbers() -> None:
    buf = io.StringIO()
    progress = RunProgress(Console(file=buf, width=200), total=4)
    progress.absorb([record(passed=True)])  # a resumed run's finished trial
    assert buf.getvalue() == ""
    with progress:
        progress.update(record(passed=False))
        progress.update(record(status="error", passed=None))
        progress.update(record(passed=True))
    assert progress.done == 4 and progress.tokens == 20
    assert progress.judged == 3 and progress.passed == 2 and progress.errors == 1
    assert "pass 67%" in progress.stats() and "1 error" in progress.stats()
    lines = buf.getvalue().splitlines()
    assert lines[0].startswith("trials 2/4 | 10 tok | pass 50%")
    assert lines[-1].startswith("trials 4/4")


def test_disabled_progress_prints_nothing() -> None:
    buf = io.StringIO()
    with RunProgress(Console(file=buf), total=2, enabled=False) as progress:
        progress.update(record())
    assert buf.getvalue() == "" and progress.done == 1
