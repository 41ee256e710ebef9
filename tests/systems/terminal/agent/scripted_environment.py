"""ScriptedEnvironment: an in-memory test double of a terminal environment, not a shell.

It understands a handful of commands (`touch F`, `echo TEXT`, `ls`, `cat F`, `sleep S`,
`fail`) over a dict of files, records every command it was asked to run, and can be
told to fail like a broken sandbox. Given a `FakeClock`, `sleep S` advances that clock
instead of sleeping, so time limits are tested by arithmetic, not by the machine's
speed. Real-sandbox tests use TerminalEnvironment.
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Callable

from tether.sandbox import SandboxError
from tether.systems.terminal.environment import CommandResult


class FakeClock:
    """A monotonic clock that only moves when told to: `sleep(s)` advances it by s.

    Install it as the `time` of the module under test (it has `monotonic` and `sleep`).
    """

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


class ScriptedEnvironment:
    def __init__(self, *, handler: Callable[[str], tuple[int, str]] | None = None,
                 fail_on: str | None = None, clock: FakeClock | None = None) -> None:
        self.files: dict[str, str] = {}
        self.executed: list[str] = []
        self.timeouts: list[float | None] = []
        self.app_dir = "/scripted/app"
        self.closed = False
        self._handler = handler
        self._fail_on = fail_on
        self._clock = clock or time

    def __enter__(self) -> ScriptedEnvironment:
        return self

    def __exit__(self, *exc: object) -> None:
        self.closed = True

    def execute(self, command: str, *, timeout_s: float | None = None) -> CommandResult:
        self.executed.append(command)
        self.timeouts.append(timeout_s)
        if self._fail_on is not None and self._fail_on in command:
            raise SandboxError("scripted sandbox failure")
        start = self._clock.monotonic()
        rc, out = self._handler(command) if self._handler else self._run(command)
        return CommandResult(command=command, returncode=rc, output=out, output_elided=0,
                             timed_out=False, killed_reason=None,
                             duration_s=self._clock.monotonic() - start)

    def _run(self, command: str) -> tuple[int, str]:
        argv = shlex.split(command)
        head, args = argv[0], argv[1:]
        if head == "touch":
            self.files.update({a: self.files.get(a, "") for a in args})
            return 0, ""
        if head == "echo":
            return 0, " ".join(args) + "\n"
        if head == "ls":
            return 0, "".join(f"{f}\n" for f in sorted(self.files))
        if head == "cat":
            if args and args[0] in self.files:
                return 0, self.files[args[0]]
            return 1, f"cat: {args[0] if args else ''}: No such file or directory\n"
        if head == "sleep":
            self._clock.sleep(float(args[0]))
            return 0, ""
        if head == "fail":
            return 1, "failed\n"
        return 127, f"bash: {head}: command not found\n"
