"""What a terminal environment needs to know about one task, as plain data.

A terminal Task carries these fields in `Task.data` (JSON-able, so a run record
holds them); `TerminalSpec.from_task` reads them back with clear errors. The Harbor
loader (`tether.systems.terminal.harbor`) is one way to build them; anything that lays a task
out the same way (instruction, setup, hidden tests, oracle) can build them too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tether.core import Task
from tether.errors import ConfigError
from tether.sandbox import DEFAULT_DISK_MB

DEFAULT_AGENT_TIMEOUT_S = 600.0
DEFAULT_VERIFIER_TIMEOUT_S = 120.0
DEFAULT_SETUP_TIMEOUT_S = 300.0
DEFAULT_MEMORY_MB = 1024
DEFAULT_MAX_PROCS = 128
APP = "/app"
# Past these a value is not a limit but a mistake (1e308, inf): refused, naming the key.
MAX_TIMEOUT_S = 7 * 24 * 3600.0
MAX_SIZE_MB = 1024 * 1024  # 1 TiB, for memory and disk
MAX_PROCS = 65536


def writable_dir(workdir: str | None) -> str:
    """Where an attempt's writable dir is mounted: /app, or an image's own WORKDIR when
    the Dockerfile put it outside /app (it is writable there, as in the container)."""
    wd = (workdir or "").rstrip("/")
    if not wd or wd == APP or wd.startswith(APP + "/"):
        return APP
    return wd


@dataclass(frozen=True)
class TerminalSpec:
    """A task directory in the Harbor layout plus its limits.

    task_dir holds `environment/` (optional `files/` copied into /app, optional
    `setup.sh` run in the sandbox), `tests/test.sh` (the verifier, hidden from the
    agent) and `solution/solve.sh` (the oracle, optional).
    """

    task_dir: Path
    agent_timeout_s: float = DEFAULT_AGENT_TIMEOUT_S
    verifier_timeout_s: float = DEFAULT_VERIFIER_TIMEOUT_S
    setup_timeout_s: float = DEFAULT_SETUP_TIMEOUT_S
    memory_mb: int = DEFAULT_MEMORY_MB
    max_procs: int = DEFAULT_MAX_PROCS
    disk_mb: int = DEFAULT_DISK_MB  # quota of the attempt's /app and /tmp together
    verifier_env: dict[str, str] = field(default_factory=dict)
    solution_env: dict[str, str] = field(default_factory=dict)
    # An imported task's image (tether.systems.terminal.imported): its root filesystem replaces
    # the host's system in the sandbox; its ENV and WORKDIR apply to every command.
    rootfs: Path | None = None
    image_env: dict[str, str] = field(default_factory=dict)
    workdir: str | None = None

    @property
    def writable_dir(self) -> str:
        """The attempt's writable dir inside the sandbox (see `writable_dir`)."""
        return writable_dir(self.workdir)

    @property
    def environment_dir(self) -> Path:
        return self.task_dir / "environment"

    @property
    def tests_dir(self) -> Path:
        return self.task_dir / "tests"

    @property
    def solution_dir(self) -> Path:
        return self.task_dir / "solution"

    def to_data(self) -> dict[str, Any]:
        return {
            "task_dir": str(self.task_dir),
            "agent_timeout_s": self.agent_timeout_s,
            "verifier_timeout_s": self.verifier_timeout_s,
            "setup_timeout_s": self.setup_timeout_s,
            "memory_mb": self.memory_mb,
            "max_procs": self.max_procs,
            "disk_mb": self.disk_mb,
            "verifier_env": dict(self.verifier_env),
            "solution_env": dict(self.solution_env),
            "rootfs": None if self.rootfs is None else str(self.rootfs),
            "image_env": dict(self.image_env),
            "workdir": self.workdir,
        }

    @classmethod
    def from_task(cls, task: Task) -> TerminalSpec:
        data = task.data
        if "task_dir" not in data:
            raise ConfigError(
                f"task {task.key} has no data['task_dir']: it is not a terminal task",
                hint="load terminal tasks with the Harbor loader (suite 'terminal' or harbor:DIR)",
            )
        def limit(key: str, default: float, top: float) -> float:
            value = data.get(key, default)
            if isinstance(value, bool) or not isinstance(value, int | float) or not (
                    math.isfinite(value) and 0 < value <= top):
                raise ConfigError(f"task {task.key}: {key} must be a positive number up to "
                                  f"{top:g}, not {value!r}")
            return float(value)

        try:
            return cls(
                task_dir=Path(data["task_dir"]),
                agent_timeout_s=limit("agent_timeout_s", DEFAULT_AGENT_TIMEOUT_S,
                                      MAX_TIMEOUT_S),
                verifier_timeout_s=limit("verifier_timeout_s", DEFAULT_VERIFIER_TIMEOUT_S,
                                         MAX_TIMEOUT_S),
                setup_timeout_s=limit("setup_timeout_s", DEFAULT_SETUP_TIMEOUT_S,
                                      MAX_TIMEOUT_S),
                memory_mb=int(limit("memory_mb", DEFAULT_MEMORY_MB, MAX_SIZE_MB)),
                max_procs=int(limit("max_procs", DEFAULT_MAX_PROCS, MAX_PROCS)),
                disk_mb=int(limit("disk_mb", DEFAULT_DISK_MB, MAX_SIZE_MB)),
                verifier_env={str(k): str(v) for k, v in data.get("verifier_env", {}).items()},
                solution_env={str(k): str(v) for k, v in data.get("solution_env", {}).items()},
                rootfs=Path(data["rootfs"]) if data.get("rootfs") else None,
                image_env={str(k): str(v) for k, v in data.get("image_env", {}).items()},
                workdir=data.get("workdir") or None,
            )
        except (TypeError, ValueError, AttributeError) as exc:
            raise ConfigError(f"task {task.key}: bad terminal task data: {exc}") from None
