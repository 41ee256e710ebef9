"""The terminal environment: one sandboxed /app per attempt, and its verifier.

Lifecycle of one attempt (one `TerminalEnvironment`):
  start()      a disk quota (spec.disk_mb) mounted over the attempt's host dir, which
               holds /app and /tmp, for the whole attempt (sandbox/quota.py); then
               environment/files/ copied into it, then
               `bash /environment/setup.sh` run in the sandbox with /app as cwd
  execute(cmd) each command its own bwrap invocation over the same /app (and the same
               /tmp), with its own timeout, no network, stderr merged into stdout
  verify()     a FRESH sandbox over a copy of the final /app (under a quota of twice
               spec.disk_mb: the copy plus as much again), the task's tests/ mounted
               read-only at /tests (never visible to the agent's commands), a writable
               /logs/verifier; runs `bash /tests/test.sh`, reads the reward file
  close()      unmounts the quota (also after errors) and removes the host dirs

A verifier that writes no reward, times out, or whose sandbox fails yields
`VerifierResult(reward=None, error=...)`: an agent error, never a wrong submission
(invariant 6).
"""

from __future__ import annotations

import functools
import math
import shlex
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypedDict

from pydantic import BaseModel, ConfigDict, ValidationError

from tether.core import Task, long_step
from tether.errors import TetherError
from tether.sandbox import (
    DiskQuota,
    Sandbox,
    SandboxError,
    SandboxResult,
    SandboxSession,
    SandboxUnavailable,
    UnsafeFile,
    copy_tree,
    get_sandbox,
    owned_dir,
    read_own_file,
)
from tether.systems.terminal.spec import TerminalSpec

DEFAULT_COMMAND_TIMEOUT_S = 60.0
DEFAULT_OUTPUT_CHARS = 10_000
ARGV_COMMAND_BYTES = 100_000
COMMAND_FILE = ".tether-command.sh"
# git refuses to commit without an identity; HOME is /app, so no global config exists.
BASE_ENV = {
    "GIT_AUTHOR_NAME": "agent", "GIT_AUTHOR_EMAIL": "agent@sandbox",
    "GIT_COMMITTER_NAME": "agent", "GIT_COMMITTER_EMAIL": "agent@sandbox",
    "PYTHONDONTWRITEBYTECODE": "1",
}  # fmt: skip
#: the range of a verifier's reward (Harbor's convention: 1 solved, 0 not, partial between)
MIN_REWARD, MAX_REWARD = 0.0, 1.0
VerifierErrorKind = Literal["no_reward", "bad_reward", "timeout", "infrastructure"]


class _Limits(TypedDict):
    """The resource limits every session of a task's environment runs under."""

    memory_mb: int
    max_procs: int
    max_file_mb: int


class EnvironmentSetupError(SandboxError):
    """The task's setup failed before the agent started (a task or host problem)."""


class AgentTimeExceeded(TetherError):
    """The task's agent timeout ([agent].timeout_sec) is spent: the attempt is over."""


@dataclass(frozen=True)
class CommandResult:
    """One executed command: stdout and stderr merged, head+tail capped."""

    command: str
    returncode: int | None
    output: str
    output_elided: int
    timed_out: bool
    killed_reason: str | None
    duration_s: float

    def to_json(self) -> dict[str, object]:
        """What an agent is shown: return code and output (timeouts say so)."""
        out: dict[str, object] = {"returncode": self.returncode, "output": self.output}
        if self.timed_out:
            out["timed_out"] = True
        elif self.killed_reason:
            out["killed"] = self.killed_reason
        return out


@dataclass(frozen=True)
class VerifierResult:
    """reward is None exactly when error is set (an agent error, not a wrong answer)."""

    reward: float | None
    error: str | None
    output: str
    duration_s: float = 0.0
    error_kind: VerifierErrorKind | None = None

    @property
    def passed(self) -> bool | None:
        return None if self.reward is None else self.reward >= 1.0

    def to_json(self) -> dict[str, object]:
        return {"reward": self.reward, "error": self.error, "error_kind": self.error_kind,
                "output": self.output, "duration_s": self.duration_s}


@functools.cache
def _cached_sandbox(name: str) -> Sandbox:
    return get_sandbox(name)


def resolve_sandbox(sandbox: Sandbox | str) -> Sandbox:
    """A sandbox that can mount /app and /tests; the unsafe backend cannot."""
    box = _cached_sandbox(sandbox) if isinstance(sandbox, str) else sandbox
    if box.name != "bwrap":
        raise SandboxUnavailable(
            f"terminal tasks need the bwrap sandbox (they use /app, /tests, /logs), "
            f"not {box.name!r}",
            hint="install bubblewrap; the subprocess backend cannot mount paths",
        )
    return box


def cap_output(text: str, limit: int, already_elided: int = 0) -> tuple[str, int]:
    """Head and tail of text within `limit` chars; the marker counts every dropped char.

    `already_elided` > 0 means text is the sandbox's own head+tail (with its marker):
    its halves are cut further and the count covers both cuts.
    """
    half = limit // 2
    if already_elided:
        head, sep, tail = text.partition(f"\n... [{already_elided} characters elided] ...\n")
        if not sep or (len(head) <= half and len(tail) <= half):
            return text, already_elided
        head, tail = head[:half], tail[-half:] if half else ""
        elided = len(text) - len(sep) - len(head) - len(tail) + already_elided
        return f"{head}\n... [{elided} characters elided] ...\n{tail}", elided
    if len(text) <= limit:
        return text, 0
    elided = len(text) - 2 * half
    return f"{text[:half]}\n... [{elided} characters elided] ...\n{text[len(text) - half:]}", elided


def command_env(spec: TerminalSpec) -> dict[str, str]:
    """The environment of every command: ours, then the image's ENV (PATH included)."""
    return {**BASE_ENV, **spec.image_env}


def workdir_prefix(spec: TerminalSpec) -> str:
    """`cd WORKDIR` when an image's WORKDIR is below the writable dir (Docker starts
    commands there); a WORKDIR the agent may have deleted is not an error."""
    wd, top = (spec.workdir or "").rstrip("/"), spec.writable_dir
    if not wd.startswith(top + "/"):
        return ""
    return f"cd {shlex.quote(wd)} 2>/dev/null\n"


def _make_root(kind: str, *, keep: bool = False) -> Path:
    """A fresh host dir for an attempt or a verifier run, named by this process's pid so
    that what a killed process leaves (its quota still mounted) is reaped at the next
    start (tether.sandbox.reaper); one to keep is never reaped."""
    root = (Path(tempfile.mkdtemp(prefix=f"tether-{kind}-kept-")) if keep
            else owned_dir(kind))
    root.chmod(0o755)  # the sandbox user must traverse it to reach its binds
    return root


def _tail(text: str, n: int = 2000) -> str:
    return text if len(text) <= n else "..." + text[-n:]


class TerminalEnvironment:
    """One attempt at one terminal task. Use as a context manager (start/close)."""

    def __init__(
        self,
        spec: TerminalSpec,
        *,
        sandbox: Sandbox | str = "bwrap",
        command_timeout_s: float = DEFAULT_COMMAND_TIMEOUT_S,
        output_chars: int = DEFAULT_OUTPUT_CHARS,
        keep: bool = False,
    ) -> None:
        self.spec = spec
        self.sandbox = resolve_sandbox(sandbox)
        self.command_timeout_s = command_timeout_s
        self.output_chars = output_chars
        self._keep = keep
        self.root = _make_root("attempt", keep=keep)
        self.app_dir = self.root / "app"
        self._tmp_dir = self.root / "tmp"
        self._session: SandboxSession | None = None
        self._quota: DiskQuota | None = None
        self._deadline: float | None = None
        self.setup_result: CommandResult | None = None

    @classmethod
    def for_task(cls, task: Task, **kwargs: object) -> TerminalEnvironment:
        # kwargs are TerminalEnvironment's own keywords, passed through unchanged
        return cls(TerminalSpec.from_task(task), **kwargs)  # type: ignore[arg-type]

    # -- lifecycle ---------------------------------------------------------------
    def start(self) -> None:
        """Stage files, run setup.sh; the agent's clock starts when this returns."""
        if self._session is not None:
            return
        if self._quota is None and self.spec.disk_mb > 0:
            self._quota = DiskQuota(self.root, self.spec.disk_mb)
            self.root.chmod(0o755)  # the mount's root: the sandbox user must traverse it
        files = self.spec.environment_dir / "files"
        if files.is_dir():
            # an installed package may hold byte-code caches next to the task's files
            copy_tree(files, self.app_dir, skip_dirs=frozenset({"__pycache__"}))
        self.app_dir.mkdir(exist_ok=True)
        self._tmp_dir.mkdir(exist_ok=True)
        setup = self.spec.environment_dir / "setup.sh"
        if setup.is_file():
            # a build can take minutes: the run's progress display shows it with its limit
            with long_step(f"{self.spec.task_dir.name} setup", self.spec.setup_timeout_s):
                result = self._run_once(
                    "bash /environment/setup.sh", self.spec.setup_timeout_s,
                    ro_binds={str(self.spec.environment_dir): "/environment"},
                )
            self.setup_result = result
            if result.returncode != 0 or result.timed_out:
                why = "timed out" if result.timed_out else f"exit {result.returncode}"
                raise EnvironmentSetupError(
                    f"{self.spec.task_dir.name}: environment/setup.sh failed ({why}): "
                    f"{_tail(result.output, 600)}"
                )
        # /tmp persists across the agent's commands, as it would in a container.
        self._session = self.sandbox.session(
            self.app_dir, self.spec.writable_dir, rw_binds={str(self._tmp_dir): "/tmp"},
            **self._limits(),
            env=command_env(self.spec), quota=self._quota, rootfs=self.spec.rootfs,
        )
        self._deadline = time.monotonic() + self.spec.agent_timeout_s

    def close(self) -> None:
        try:
            if self._session is not None:
                self._session.close()
        finally:
            try:
                if self._quota is not None:  # keep: the files stay, as plain host files
                    self._quota.close(preserve=self._keep)
            finally:
                if not self._keep:
                    shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> TerminalEnvironment:
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the agent's side ----------------------------------------------------------
    def time_left_s(self) -> float:
        """Seconds of the task's agent timeout left (inf before start)."""
        return float("inf") if self._deadline is None else self._deadline - time.monotonic()

    def execute(self, command: str, *, timeout_s: float | None = None) -> CommandResult:
        """Run one shell command in /app; its timeout is clipped to the agent time left.

        Raises AgentTimeExceeded when no agent time is left; SandboxError when the
        sandbox itself fails (the caller records an agent error).
        """
        if self._session is None:
            self.start()
        assert self._session is not None
        left = self.time_left_s()
        if left <= 0:
            raise AgentTimeExceeded(
                f"agent timeout of {self.spec.agent_timeout_s:g}s spent on "
                f"{self.spec.task_dir.name}"
            )
        timeout = min(timeout_s or self.command_timeout_s, left)
        if "\0" in command:  # bash cannot take it; the model's fault, not the sandbox's
            return CommandResult(command, 126, "bash: the command contains a NUL byte",
                                 0, False, None, 0.0)
        script = "exec 2>&1\n" + workdir_prefix(self.spec) + command
        if len(script.encode()) <= ARGV_COMMAND_BYTES:
            return self._result(command, self._session.run(script, timeout_s=timeout))
        # One argv string may not exceed 128 KiB (MAX_ARG_STRLEN): a long heredoc goes
        # through a script file in the attempt's /tmp instead.
        path = self._tmp_dir / COMMAND_FILE
        path.write_text(script, encoding="utf-8")
        try:
            raw = self._session.run(f"bash /tmp/{COMMAND_FILE}", timeout_s=timeout)
        finally:
            path.unlink(missing_ok=True)
        return self._result(command, raw)

    def run_solution(self) -> CommandResult:
        """The oracle: `bash /solution/solve.sh` in /app (the agent's session, plus /solution)."""
        if self._session is None:
            self.start()
        if not (self.spec.solution_dir / "solve.sh").is_file():
            raise EnvironmentSetupError(f"{self.spec.task_dir.name}: no solution/solve.sh")
        return self._run_once(
            "bash /solution/solve.sh", self.spec.agent_timeout_s,
            ro_binds={str(self.spec.solution_dir): "/solution"},
            rw_binds={str(self._tmp_dir): "/tmp"}, env=self.spec.solution_env,
        )

    # -- the verifier's side ---------------------------------------------------------
    def verify(self, app_dir: Path | None = None) -> VerifierResult:
        """Run the hidden tests over a copy of app_dir (default: this attempt's /app, which
        stays untouched)."""
        return run_verifier(self.spec, app_dir or self.app_dir, sandbox=self.sandbox,
                            output_chars=self.output_chars)

    # -- helpers ----------------------------------------------------------------------
    def _limits(self) -> _Limits:
        return {"memory_mb": self.spec.memory_mb, "max_procs": self.spec.max_procs,
                "max_file_mb": 64}

    def _run_once(self, command: str, timeout_s: float, *, ro_binds: dict[str, str],
                  rw_binds: dict[str, str] | None = None,
                  env: dict[str, str] | None = None) -> CommandResult:
        with self.sandbox.session(self.app_dir, self.spec.writable_dir, ro_binds=ro_binds,
                                  rw_binds=rw_binds,
                                  env={**command_env(self.spec), **(env or {})},
                                  quota=self._quota, rootfs=self.spec.rootfs,
                                  **self._limits()) as s:
            raw = s.run("exec 2>&1\n" + workdir_prefix(self.spec) + command,
                        timeout_s=timeout_s)
        return self._result(command, raw)

    def _result(self, command: str, raw: SandboxResult) -> CommandResult:
        text = raw.stdout + raw.stderr  # stderr is empty unless bash failed to start
        output, elided = cap_output(text, self.output_chars,
                                    raw.stdout_elided + raw.stderr_elided)
        return CommandResult(command=command, returncode=raw.returncode, output=output,
                             output_elided=elided, timed_out=raw.timed_out,
                             killed_reason=raw.killed_reason, duration_s=raw.duration_s)


def run_verifier(spec: TerminalSpec, app_dir: Path, *, sandbox: Sandbox | str = "bwrap",
                 output_chars: int = DEFAULT_OUTPUT_CHARS) -> VerifierResult:
    """`bash /tests/test.sh` in a fresh sandbox over a copy of app_dir; never raises
    for a sandbox failure (that becomes error_kind "infrastructure")."""
    start = time.monotonic()
    root = _make_root("verify")
    quota: DiskQuota | None = None
    try:
        box = resolve_sandbox(sandbox)
        quota = DiskQuota(root, 2 * spec.disk_mb)
        root.chmod(0o755)
        app, logs = root / "app", root / "logs"
        copy_tree(Path(app_dir), app)
        logs.mkdir()
        with box.session(app, spec.writable_dir, ro_binds={str(spec.tests_dir): "/tests"},
                         rw_binds={str(logs): "/logs/verifier"},
                         env={**command_env(spec), **spec.verifier_env},
                         memory_mb=spec.memory_mb, max_procs=spec.max_procs, max_file_mb=64,
                         quota=quota, rootfs=spec.rootfs) as session:
            raw = session.run("exec 2>&1\n" + workdir_prefix(spec) + "bash /tests/test.sh",
                              timeout_s=spec.verifier_timeout_s)
        output, _ = cap_output(raw.stdout + raw.stderr, output_chars)
        took = time.monotonic() - start
        if raw.timed_out:
            return VerifierResult(None, f"verifier timed out after {spec.verifier_timeout_s:g}s",
                                  output, took, "timeout")
        return _read_reward(logs, output, took)
    except (SandboxError, OSError) as exc:
        return VerifierResult(None, f"verifier sandbox failed: {type(exc).__name__}: {exc}",
                              "", time.monotonic() - start, "infrastructure")
    finally:
        try:
            if quota is not None:
                quota.close()
        finally:
            shutil.rmtree(root, ignore_errors=True)


class _RewardJSON(BaseModel):
    """reward.json as Harbor writes it: the reward, and anything else beside it."""

    model_config = ConfigDict(extra="allow")

    reward: float


def _read_reward(logs: Path, output: str, took: float) -> VerifierResult:
    """The reward the verifier left in logs/: reward.txt (a number) or reward.json
    ({"reward": number}). The verifier chose what those names are: a link, a FIFO, a
    hard link or an oversized file is a bad reward, never followed or read."""
    try:
        text = read_own_file(logs, "reward.txt", 256)
        if text is not None:
            reward = float(text.decode("utf-8", errors="replace").strip())
        else:
            data = read_own_file(logs, "reward.json", 65536)
            if data is None:
                return VerifierResult(None, "verifier wrote no /logs/verifier/reward.txt",
                                      output, took, "no_reward")
            reward = _RewardJSON.model_validate_json(data).reward
        if not math.isfinite(reward):
            raise ValueError(f"reward {reward} is not finite")
        if not MIN_REWARD <= reward <= MAX_REWARD:
            # a score must mean the same on every task: another scale is the verifier's
            # own to divide out in test.sh, never a number an arm's mean takes in
            raise ValueError(f"reward {reward:g} is outside [{MIN_REWARD:g}, {MAX_REWARD:g}]")
        return VerifierResult(reward, None, output, took)
    except (ValueError, UnsafeFile) as exc:  # ValidationError is a ValueError
        exc_text = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
        if isinstance(exc, ValidationError):
            err = exc.errors()[0]
            exc_text = f"reward.json: {'.'.join(map(str, err['loc'])) or 'top level'}: " \
                       f"{err['msg']}"[:200]
        return VerifierResult(None, f"verifier wrote an unreadable reward: {exc_text}", output,
                              took, "bad_reward")
