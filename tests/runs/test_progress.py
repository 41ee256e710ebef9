"""The run's live numbers: done/total, tokens, pass rate and score, errors apart."""

from __future__ import annotations

import io

from rich.console import Console

from tether.core.activity import long_step, running_steps
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
    assert lines[0].startswith("trials 2/4 | eta ") and "| 10 tok | pass 50%" in lines[0]
    assert lines[-1].startswith("trials 4/4")


def test_disabled_progress_prints_nothing() -> None:
    buf = io.StringIO()
    with RunProgress(Console(file=buf), total=2, enabled=False) as progress:
        progress.update(record())
    assert buf.getvalue() == "" and progress.done == 1


def test_a_running_setup_step_shows_its_elapsed_time_and_limit_on_the_bar() -> None:
    buf = io.StringIO()
    console = Console(file=buf, width=200, force_terminal=True)
    with RunProgress(console, total=2) as progress:
        assert progress._progress is not None
        with long_step("build-task setup", 900):
            console.print(progress._progress.get_renderable())
            shown = buf.getvalue()
        buf.seek(0)
        buf.truncate()
        console.print(progress._progress.get_renderable())
        after = buf.getvalue()
    assert "build-task setup: 0s of 900s limit" in shown
    assert "900s" not in after  # gone once the step ends


def test_plain_lines_name_the_running_step() -> None:
    buf = io.StringIO()
    with RunProgress(Console(file=buf, width=200), total=2) as progress:
        with long_step("a setup", 600), long_step("b setup", 60):
            progress.update(record())
    assert "| a setup: 0s of 600s limit (+1 more)" in buf.getvalue()
    assert running_steps() == []


def test_a_terminal_task_setup_is_a_long_step_while_it_runs(tmp_path, bwrap,  # noqa: F811
                                                            monkeypatch) -> None:
    from tests.systems.terminal.agent.task_factory import make_task
    from tether.systems.terminal.environment import TerminalEnvironment
    from tether.systems.terminal.harbor import load_harbor_task

    seen = []
    real = TerminalEnvironment._run_once

    def spy(self, command, timeout_s, **kw):
        seen.append([(s.label, s.limit_s) for s in running_steps()])
        return real(self, command, timeout_s, **kw)

    monkeypatch.setattr(TerminalEnvironment, "_run_once", spy)
    task = load_harbor_task(make_task(tmp_path, name="slow-build"))
    with TerminalEnvironment.for_task(task, sandbox=bwrap):
        pass
    assert seen == [[("slow-build setup", 20.0)]]  # task.toml: build_timeout_sec = 20
    assert running_steps() == []


def test_plain_lines_carry_an_eta_from_this_sessions_pace() -> None:
    buf, now = io.StringIO(), [100.0]
    progress = RunProgress(Console(file=buf, width=200), total=5, clock=lambda: now[0])
    progress.absorb([record()])  # already done: not part of the pace
    assert progress.eta() == "eta -"
    with progress:
        now[0] = 130.0
        progress.update(record())  # 1 trial in 30 s, 3 left
    assert progress.eta() == "eta 1m30s"
    assert buf.getvalue().startswith("trials 2/5 | eta 1m30s | ")
