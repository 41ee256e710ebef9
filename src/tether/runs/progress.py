"""The live view of a run: done/total, ETA, tokens so far, running pass rate and score.

On a terminal it is a rich progress bar; elsewhere (CI logs, pipes) a plain line
every tenth of the run, so a long run is never silent. Long steps running now (a
terminal task's environment build, see `tether.core.activity`) are shown with their
elapsed time and limit, on the bar at every refresh and on each plain line.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from tether.core import Step, TrialRecord, running_steps


def steps_text(steps: list[Step]) -> str:
    """`| setup of t1: 42s of 600s limit (+2 more)`, or "" when nothing long runs."""
    if not steps:
        return ""
    first = steps[0]
    more = f" (+{len(steps) - 1} more)" if len(steps) > 1 else ""
    return f" | {first.label}: {first.elapsed_s():.0f}s of {first.limit_s:g}s limit{more}"


class _StepsColumn(ProgressColumn):
    """Re-read at every refresh, so the elapsed time moves while no trial ends."""

    def render(self, task: Task) -> Text:
        return Text(steps_text(running_steps()))


class RunProgress:
    def __init__(self, console: Console, total: int, *, enabled: bool = True,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.console = console
        # the ETA of plain lines: this session's pace (trials a resumed run already had
        # took no time now, so they are left out of it)
        self._clock, self._started, self._absorbed = clock, clock(), 0
        self.total, self.done = total, 0
        self.tokens = self.passed = self.judged = self.errors = 0
        self.score_sum, self.scored = 0.0, 0
        self.enabled = enabled
        self.live = enabled and console.is_terminal
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        self._next_line = 0

    def __enter__(self) -> RunProgress:
        if self.live:
            self._progress = Progress(
                TextColumn("[bold]trials"), BarColumn(), MofNCompleteColumn(),
                TextColumn("eta"), TimeRemainingColumn(), TimeElapsedColumn(),
                TextColumn("{task.fields[stats]}"), _StepsColumn(), console=self.console,
                transient=False)
            self._progress.start()
            self._task = self._progress.add_task("run", total=self.total, completed=self.done,
                                                 stats=self.stats())
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()

    def stats(self) -> str:
        rate = f"{100 * self.passed / self.judged:.0f}%" if self.judged else "-"
        score = f"{self.score_sum / self.scored:.2f}" if self.scored else "-"
        errors = f" | [red]{self.errors} error[/]" if self.errors else ""
        return f"{self.tokens} tok | pass {rate} | score {score}{errors}"

    def absorb(self, records: list[TrialRecord]) -> None:
        """Count trials a resumed run already has, so the running numbers cover the run."""
        for r in records:
            self._count(r)
        self._absorbed = self.done

    def eta(self) -> str:
        """`eta 1m05s` from this session's pace; `eta -` before its first trial."""
        now_done = self.done - self._absorbed
        if now_done <= 0:
            return "eta -"
        left = (self._clock() - self._started) / now_done * max(0, self.total - self.done)
        minutes, seconds = divmod(int(round(left)), 60)
        return f"eta {minutes}m{seconds:02d}s" if minutes else f"eta {seconds}s"

    def update(self, record: TrialRecord) -> None:
        self._count(record)
        if self._progress is not None and self._task is not None:
            self._progress.update(self._task, completed=self.done, stats=self.stats())
        elif self.enabled and self.done >= self._next_line:
            self.console.print(f"trials {self.done}/{self.total} | {self.eta()} | {self.stats()}"
                               f"{steps_text(running_steps())}", highlight=False)
            self._next_line = self.done + max(1, self.total // 10)

    def _count(self, record: TrialRecord) -> None:
        self.done += 1
        self.tokens += sum(record.tokens(k) for k in ("input", "output", "reasoning"))
        if record.status == "error":
            self.errors += 1
        if record.passed is not None:
            self.judged += 1
            self.passed += int(record.passed)
        if record.score is not None:
            self.score_sum += record.score
            self.scored += 1
