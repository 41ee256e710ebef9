"""The terminal environment: one sandboxed /app per attempt, and its verifier.

Lifecycle of one attempt (one `TerminalEnvironment`):
  start()      a disk quota (spec.disk_mb) mounted over the attempt's host dir, which
               holds /app and /tmp, for the whole attempt (sandbox/quota.py); on an
               image, the attempt's writable system layer inside it (system_layer.py);
               with `registry_access`, the registry proxy (registry_access.py); then
               environment/files/ copied into it, then
               `bash /environment/setup.sh` run in the sandbox with /app as cwd
  execute(cmd) each command its own bwrap invocation over the same /app (and the same
               /tmp and system layer), with its own timeout, no network (or the
               registries only, when opted in), stderr merged into stdout
  verify()     a FRESH sandbox over a copy of the final /app (under a quota of twice
               spec.disk_mb: the copy plus as much again) and, read-only, the attempt's
               system, the task's tests/ mounted read-only at /tests (never visible to
               the agent's commands), a writable /logs/verifier; runs
               `bash /tests/test.sh`, reads the reward file
  close()      stops the proxy, unmounts the layer and the quota (also after errors)
               and removes the host dirs

Every command (setup, the agent's, the solution's, the verifier's) runs as root inside
the sandbox's user namespace (`as_root`): uid 0 there is the unprivileged sandbox user
outside, with no capabilities, as a task written for a container expects.

A verifier that writes no reward, times out, or whose sandbox fails yields
`VerifierResult(reward=None, error=...)`: an agent error, never a wrong submission
(invariant 6).
"""

from __future__ import annotations

import functools
import math
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypedDict, cast

from pydantic import BaseModel, ConfigDict, ValidationError

from tether.core import Task, long_step
from tether.errors import TetherError
from tether.sandbox import (
    BwrapSandbox,
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
from tether.systems.terminal import system_layer
from tether.systems.terminal.command_io import (
    CommandResult,
    cap_output,
    command_env,
    workdir_prefix,
)
from tether.systems.terminal.registry_access import OFF, RegistryAccess
from tether.systems.terminal.spec import TerminalSpec

DEFAULT_COMMAND_TIMEOUT_S = 60.0
DEFAULT_OUTPUT_CHARS = 10_000
ARGV_COMMAND_BYTES = 100_000
COMMAND_FILE = ".tether-command.sh"
#: the range of a verifier's reward (Harbor's convention: 1 solved, 0 not, partial between)
MIN_REWARD, MAX_REWARD = 0.0, 1.0
VerifierErrorKind = Literal["no_reward", "bad_reward", "timeout", "infrastructure"]


class _Limits(TypedDict):
    """The resource limits every session of a task's environment runs under."""

    memory_mb: int
    max_procs: int
    max_file_mb: int


class _System(TypedDict):
    """The root filesystem every command of an attempt but the verifier's runs over."""

    rootfs: Path | None
    rootfs_writable: bool
    as_root: bool


class EnvironmentSetupError(SandboxError):
    """The task's setup failed before the agent started (a task or host problem)."""


class AgentTimeExceeded(TetherError):
    """The task's agent timeout ([agent].timeout_sec) is spent: the attempt is over."""


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
        registry_access: bool = False,
    ) -> None:
        self.spec = spec
        self.sandbox = resolve_sandbox(sandbox)
        self.command_timeout_s = command_timeout_s
        self.output_chars = output_chars
        self._keep = keep
        self.registry_access = registry_access
        self.root = _make_root("attempt", keep=keep)
        self.app_dir = self.root / "app"
        self._tmp_dir = self.root / "tmp"
        self._session: SandboxSession | None = None
        self._quota: DiskQuota | None = None
        self._layer: system_layer.SystemLayer | None = None
        self._registry: RegistryAccess | None = None
        #: the root filesystem the commands see: the attempt's writable layer over the
        #: image, else the image read-only, else None (the host's system, read-only)
        self.system_dir: Path | None = spec.rootfs
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
        if self.spec.rootfs is not None and self._layer is None:
            self._mount_layer(self.spec.rootfs)
        if self.registry_access and self._registry is None:
            self._registry = RegistryAccess(self.root / "registry")
            self._registry.start()
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
            ro_binds=self._registry.binds if self._registry else None,
            **self._limits(), env=self._env(), quota=self._quota, **self._system(),
        )
        self._deadline = time.monotonic() + self.spec.agent_timeout_s

    def _mount_layer(self, rootfs: Path) -> None:
        """The attempt's writable system over the image, where the host can mount it."""
        user = cast(BwrapSandbox, self.sandbox).user  # resolve_sandbox: bwrap only
        self._layer = system_layer.attempt_layer(rootfs, self.root / "layer", user)
        if self._layer is not None:
            self.system_dir = self._layer.root

    def _system(self) -> _System:
        """The root filesystem keywords of every command's session but the verifier's."""
        return {"rootfs": self.system_dir, "rootfs_writable": self._layer is not None,
                "as_root": True}

    def _env(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        proxy = self._registry.env if self._registry is not None else {}
        return {**command_env(self.spec), **proxy, **(extra or {})}

    def _shell(self, script: str) -> str | list[str]:
        """What a session runs for `script`: itself, or under the registry forwarder."""
        return script if self._registry is None else self._registry.wrap(script)

    def record(self) -> dict[str, object]:
        """What the trial keeps about this environment: the system it had and the
        registry access (the option and every request, when on)."""
        return {"as_root": True, "writable_system": self._layer is not None,
                "registry": self._registry.record() if self._registry else dict(OFF)}

    def close(self) -> None:
        try:
            if self._session is not None:
                self._session.close()
        finally:
            try:
                if self._registry is not None:
                    self._registry.close()
                if self._layer is not None:  # before the quota: it is mounted inside
                    self._layer.close()
                    self._layer = None
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
            return self._result(command, self._session.run(self._shell(script),
                                                           timeout_s=timeout))
        # One argv string may not exceed 128 KiB (MAX_ARG_STRLEN): a long heredoc goes
        # through a script file in the attempt's /tmp instead.
        path = self._tmp_dir / COMMAND_FILE
        path.write_text(script, encoding="utf-8")
        try:
            raw = self._session.run(self._shell(f"bash /tmp/{COMMAND_FILE}"),
                                    timeout_s=timeout)
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
                            output_chars=self.output_chars, system_dir=self.system_dir)

    # -- helpers ----------------------------------------------------------------------
    def _limits(self) -> _Limits:
        return {"memory_mb": self.spec.memory_mb, "max_procs": self.spec.max_procs,
                "max_file_mb": 64}

    def _run_once(self, command: str, timeout_s: float, *, ro_binds: dict[str, str],
                  rw_binds: dict[str, str] | None = None,
                  env: dict[str, str] | None = None) -> CommandResult:
        if self._registry is not None:
            ro_binds = {**ro_binds, **self._registry.binds}
        with self.sandbox.session(self.app_dir, self.spec.writable_dir, ro_binds=ro_binds,
                                  rw_binds=rw_binds, env=self._env(env), quota=self._quota,
                                  **self._system(), **self._limits()) as s:
            raw = s.run(self._shell("exec 2>&1\n" + workdir_prefix(self.spec) + command),
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
                 output_chars: int = DEFAULT_OUTPUT_CHARS,
                 system_dir: Path | None = None) -> VerifierResult:
    """`bash /tests/test.sh` in a fresh sandbox over a copy of app_dir and, read-only,
    `system_dir` (the attempt's system: default the task's image, or the host's); never
    raises for a sandbox failure (that becomes error_kind "infrastructure")."""
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
                         quota=quota, rootfs=system_dir or spec.rootfs,
                         as_root=True) as session:
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
