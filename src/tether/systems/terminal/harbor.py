"""Harbor task directories -> tether Tasks.

A Harbor task is a directory: `instruction.md` (the prompt), `task.toml` (timeouts,
resources, metadata), `environment/`, `tests/test.sh` (the verifier, which writes
/logs/verifier/reward.txt) and optionally `solution/solve.sh` (the oracle).

tether runs tasks in a bubblewrap sandbox over the host's read-only system, not in a
container: the environment is `environment/files/` (copied into /app) plus
`environment/setup.sh` (run inside the sandbox). A task that only describes its
environment as a container image (a Dockerfile, a compose file or
`[environment].docker_image`, and no setup.sh) is refused with a clear message.

This module registers the `harbor:DIR` and `harbor-gated:DIR` suite formats and tether's
own `terminal` suite (the bundled tasks under data/).
"""

from __future__ import annotations

import logging
import math
import re
import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any

from tether.core import Task
from tether.errors import ConfigError
from tether.sandbox import DEFAULT_DISK_MB
from tether.suites import register_format, register_suite
from tether.systems.terminal.imported import IMAGE_FILE, gate_status, read_image_ref
from tether.systems.terminal.spec import (
    DEFAULT_AGENT_TIMEOUT_S,
    DEFAULT_MEMORY_MB,
    DEFAULT_SETUP_TIMEOUT_S,
    DEFAULT_VERIFIER_TIMEOUT_S,
    MAX_SIZE_MB,
    MAX_TIMEOUT_S,
    TerminalSpec,
)
from tether.systems.terminal.task_links import check_task_links
from tether.textio import loads_toml, read_text, resolved

METRIC = "terminal_verifier"
ARTIFACT_KIND = "shell"
LAYOUT_HINT = (
    "a Harbor task dir holds instruction.md, task.toml, environment/ (files/, setup.sh), "
    "tests/test.sh and optionally solution/solve.sh"
)
CONTAINER_FILES = ("Dockerfile", "docker-compose.yaml", "docker-compose.yml", "compose.yaml")
# Limits we accept from task.toml; a task asking for more is capped (the sandbox is
# per command, not a VM) rather than refused.
MAX_MEMORY_MB = 8192
MAX_DISK_MB = 16384


def is_task_dir(path: Path) -> bool:
    return path.is_dir() and (path / "instruction.md").is_file()


def expand_task_dirs(paths: list[Path]) -> list[Path]:
    """Each path that is a task dir, or the task dirs directly inside it (sorted)."""
    out: list[Path] = []
    for path in paths:
        if not path.is_dir():
            raise ConfigError(f"{path}: not a directory", hint=LAYOUT_HINT)
        if is_task_dir(path):
            out.append(path)
            continue
        inner = sorted(p for p in path.iterdir() if is_task_dir(p))
        if not inner:
            raise ConfigError(f"{path}: neither a task dir nor a dir of task dirs",
                              hint=LAYOUT_HINT)
        out.extend(inner)
    return out


def load_harbor_task(task_dir: Path | str, suite: str = "harbor",
                     require_gates: bool = False) -> Task:
    """One task dir as a Task (id = dir name); ConfigError names file, key, expectation.

    require_gates: an imported task (with an image) whose gates have not passed in its
    current environment is refused (ConfigError) rather than scored.
    """
    task_dir = resolved(task_dir, what="task dir")
    if not task_dir.is_dir():
        raise ConfigError(f"{task_dir}: task dir not found", hint=LAYOUT_HINT)
    check_task_links(task_dir)  # before the host reads, copies or binds any of its paths
    instruction = task_dir / "instruction.md"
    if not instruction.is_file():
        raise ConfigError(f"{instruction}: missing (the task's prompt)", hint=LAYOUT_HINT)
    prompt = read_text(instruction).strip()
    if not prompt:
        raise ConfigError(f"{instruction}: empty (the task's prompt)")
    config = _read_toml(task_dir / "task.toml")
    if not (task_dir / "tests" / "test.sh").is_file():
        raise ConfigError(f"{task_dir / 'tests' / 'test.sh'}: missing (the verifier)",
                          hint=LAYOUT_HINT)
    _check_environment(task_dir, config)
    spec = _spec(task_dir, config)
    ref = read_image_ref(task_dir)
    if ref is not None:
        spec = replace(spec, rootfs=ref.rootfs, image_env=ref.env, workdir=ref.workdir)
        if require_gates:
            passed, why = gate_status(task_dir)
            if not passed:
                raise UngatedTask(f"{task_dir.name}: refused: {why}",
                                  hint=f"run `tether tasks check {task_dir}` first, or load "
                                  "with harbor-gated:DIR to skip such tasks")
    metadata = _table(config, "metadata", task_dir)
    data: dict[str, Any] = {
        **spec.to_data(),
        "metadata": metadata,
        "has_solution": (task_dir / "solution" / "solve.sh").is_file(),
    }
    return Task(id=task_dir.name, suite=suite, prompt=prompt, artifact_kind=ARTIFACT_KIND,
                metric=METRIC, data=data)


class UngatedTask(ConfigError):
    """An imported task whose oracle/null/determinism gates have not passed."""


def load_harbor_dir(path: Path | str, suite: str | None = None, *,
                    ungated: str = "refuse",
                    skipped: list[str] | None = None) -> list[Task]:
    """A task dir, or a dir of task dirs, as Tasks (suite defaults to the dir's name).

    A file inside a task dir (its task.toml or instruction.md) names that task dir.
    Imported tasks must have passed their gates: ungated="refuse" raises for the first
    that has not, "skip" leaves them out (each reason appended to `skipped`).
    """
    path = resolved(path, what="task dir")
    if path.is_file():
        path = path.parent
    dirs = expand_task_dirs([path])
    name = suite or (path.parent.name if is_task_dir(path) else path.name)
    tasks: list[Task] = []
    for d in dirs:
        try:
            tasks.append(load_harbor_task(d, suite=name, require_gates=True))
        except UngatedTask as exc:
            if ungated != "skip":
                raise
            if skipped is not None:
                skipped.append(str(exc))
    return tasks


def _read_toml(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise ConfigError(f"{path}: missing (timeouts and resources)", hint=LAYOUT_HINT)
    text = read_text(path)
    try:
        return loads_toml(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None


def _table(config: dict[str, Any], key: str, task_dir: Path) -> dict[str, Any]:
    value = config.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f"{task_dir / 'task.toml'}: [{key}] must be a table, "
                          f"got {type(value).__name__}")
    return value


def _number(config: dict[str, Any], section: str, key: str, default: float,
            task_dir: Path) -> float:
    value = _table(config, section, task_dir).get(key, default)
    seconds = key.endswith("_sec")
    top = MAX_TIMEOUT_S if seconds else MAX_SIZE_MB
    unit = "seconds" if seconds else "MB"
    if isinstance(value, bool) or not isinstance(value, int | float) or not (
            math.isfinite(value) and 0 < value <= top):
        raise ConfigError(f"{task_dir / 'task.toml'}: key [{section}].{key}: expected a "
                          f"positive number of {unit} up to {top:g}, got {value!r}")
    return float(value)


def _env_table(config: dict[str, Any], section: str, task_dir: Path) -> dict[str, str]:
    env = _table(config, section, task_dir).get("env", {})
    if not isinstance(env, dict) or not all(isinstance(v, str | int | float) for v in env.values()):
        raise ConfigError(f"{task_dir / 'task.toml'}: key [{section}].env: expected a table "
                          f"of strings, got {env!r}")
    return {str(k): str(v) for k, v in env.items()}


_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?\s*$", re.I)


def _memory_mb(config: dict[str, Any], task_dir: Path) -> int:
    env = _table(config, "environment", task_dir)
    if "memory_mb" in env:
        return min(int(_number(config, "environment", "memory_mb", DEFAULT_MEMORY_MB,
                               task_dir)), MAX_MEMORY_MB)
    if "memory" in env:  # the older spelling, e.g. "4G"
        match = _SIZE.match(str(env["memory"]))
        if not match:
            raise ConfigError(f"{task_dir / 'task.toml'}: key [environment].memory: expected "
                              f"a size such as '2G' or '512M', got {env['memory']!r}")
        scale = {"": 1 / 2**20, "K": 1 / 1024, "M": 1, "G": 1024, "T": 2**20}
        mb = float(match.group(1)) * scale[match.group(2).upper()]
        if not math.isfinite(mb) or mb > MAX_SIZE_MB:
            raise ConfigError(f"{task_dir / 'task.toml'}: key [environment].memory: "
                              f"{env['memory']!r} is over {MAX_SIZE_MB:g} MB")
        return max(64, min(int(mb), MAX_MEMORY_MB))
    return DEFAULT_MEMORY_MB


def _disk_mb(config: dict[str, Any], task_dir: Path) -> int:
    """[environment].disk_mb, or Harbor's storage_mb: the quota of /app and /tmp."""
    env = _table(config, "environment", task_dir)
    key = "disk_mb" if "disk_mb" in env else "storage_mb"
    mb = _number(config, "environment", key, DEFAULT_DISK_MB, task_dir)
    return min(int(mb), MAX_DISK_MB)


def _check_environment(task_dir: Path, config: dict[str, Any]) -> None:
    env_dir = task_dir / "environment"
    if (env_dir / "setup.sh").is_file() or (env_dir / IMAGE_FILE).is_file():
        return
    image = _table(config, "environment", task_dir).get("docker_image")
    container = [name for name in CONTAINER_FILES if (env_dir / name).exists()]
    if image or container:
        what = f"docker_image {image!r}" if image else f"environment/{container[0]}"
        raise ConfigError(
            f"{task_dir}: unsupported environment: needs a container runtime ({what})",
            hint="convert it with `tether tasks import` (an image built without Docker), "
            "or describe the environment with environment/files/ and environment/setup.sh",
        )


def _spec(task_dir: Path, config: dict[str, Any]) -> TerminalSpec:
    return TerminalSpec(
        task_dir=task_dir,
        agent_timeout_s=_number(config, "agent", "timeout_sec", DEFAULT_AGENT_TIMEOUT_S,
                                task_dir),
        verifier_timeout_s=_number(config, "verifier", "timeout_sec",
                                   DEFAULT_VERIFIER_TIMEOUT_S, task_dir),
        setup_timeout_s=_number(config, "environment", "build_timeout_sec",
                                DEFAULT_SETUP_TIMEOUT_S, task_dir),
        memory_mb=_memory_mb(config, task_dir),
        disk_mb=_disk_mb(config, task_dir),
        verifier_env=_env_table(config, "verifier", task_dir),
        solution_env=_env_table(config, "solution", task_dir),
    )


BUNDLED_TERMINAL = Path(__file__).parent / "data"


@register_suite("terminal")
def load_terminal_suite() -> list[Task]:
    """tether's own terminal suite (Harbor layout, bundled as package data)."""
    return load_harbor_dir(BUNDLED_TERMINAL, suite="terminal")


register_format("harbor", lambda path: load_harbor_dir(path))


def _load_gated(path: Path) -> list[Task]:
    """harbor-gated:DIR: imported tasks whose gates have not passed are skipped (and
    reported), where harbor:DIR refuses the whole suite."""
    skipped: list[str] = []
    tasks = load_harbor_dir(path, ungated="skip", skipped=skipped)
    for why in skipped:
        logging.getLogger("tether.suites").warning("skipped %s", why)
    if skipped:
        logging.getLogger("tether.suites").warning(
            "%d task(s) skipped for gates not passed; %d loaded", len(skipped), len(tasks))
    return tasks


register_format("harbor-gated", _load_gated)
