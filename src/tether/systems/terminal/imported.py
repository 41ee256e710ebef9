"""Imported Terminal-Bench tasks: Harbor task dirs whose environment is a built image.

`tether tasks import SRC... --out DIR` writes, per convertible task, DIR/<task>/:

  instruction.md, task.toml, solution/   copied from the source task
  tests/                                 copied; test.sh rewritten to run offline
  environment/files/                     the image's /app at the end of its build
  environment/image.json                 the image key and dir, suite, base, notes,
                                         ENV and WORKDIR of the Dockerfile
  environment/gates.json                 written by `tether tasks check`: the gate
                                         result with the environment hash it held for

The environment hash covers the image key and every file the attempt and its verifier
see (environment/files, tests, solution, task.toml): a gate result is valid only for
the environment it was measured in, so a rebuilt image or an edited test re-gates.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tether.errors import ConfigError

IMAGE_FILE = "image.json"
GATES_FILE = "gates.json"
HASHED = ("environment/files", "tests", "solution", "task.toml", "environment/image.json")


@dataclass(frozen=True)
class ImageRef:
    """What an imported task says about its image (environment/image.json)."""

    key: str
    image_dir: Path
    suite: str
    base: str
    env: dict[str, str]
    workdir: str
    notes: tuple[str, ...] = ()

    @property
    def rootfs(self) -> Path:
        return self.image_dir / "rootfs"

    def to_json(self) -> dict[str, Any]:
        return {"image": self.key, "image_dir": str(self.image_dir), "suite": self.suite,
                "base": self.base, "env": self.env, "workdir": self.workdir,
                "notes": list(self.notes)}


def read_image_ref(task_dir: Path) -> ImageRef | None:
    """The image of an imported task, or None for a task that has none."""
    path = Path(task_dir) / "environment" / IMAGE_FILE
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return ImageRef(key=str(data["image"]), image_dir=Path(data["image_dir"]),
                        suite=str(data["suite"]), base=str(data["base"]),
                        env={str(k): str(v) for k, v in data.get("env", {}).items()},
                        workdir=str(data.get("workdir", "/app")),
                        notes=tuple(data.get("notes", ())))
    except (ValueError, KeyError, TypeError, RecursionError) as exc:
        # RecursionError: JSON nested deeper than the parser goes
        raise ConfigError(f"{path}: not a valid image reference: "
                          f"{type(exc).__name__}: {str(exc)[:200]}",
                          hint="import the task again with `tether tasks import`") from None


def environment_hash(task_dir: Path) -> str:
    """sha256 of the image key and of every file an attempt and its verifier see."""
    task_dir = Path(task_dir)
    digest = hashlib.sha256()
    for rel in HASHED:
        root = task_dir / rel
        files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
        for f in files:
            digest.update(f.relative_to(task_dir).as_posix().encode() + b"\0")
            digest.update(hashlib.sha256(f.read_bytes()).digest())
    return digest.hexdigest()[:16]


def write_gate_result(task_dir: Path, result: dict[str, Any], ok: bool) -> None:
    """Record a gate result against the environment hash it was measured in."""
    path = Path(task_dir) / "environment" / GATES_FILE
    payload = {"environment_hash": environment_hash(task_dir), "ok": ok, **result}
    path.write_text(json.dumps(payload, indent=2), encoding="utf-8")


def gate_status(task_dir: Path) -> tuple[bool, str]:
    """(passed, why not) of an imported task's gates in its current environment."""
    path = Path(task_dir) / "environment" / GATES_FILE
    if not path.is_file():
        return False, "gates not run (tether tasks check)"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise ValueError("not an object")
    except (ValueError, RecursionError):
        return False, f"{path} is not a JSON object"
    if data.get("environment_hash") != environment_hash(task_dir):
        return False, "gates ran in another environment (image or files changed since)"
    if not data.get("ok"):
        return False, f"gates failed: {data.get('error') or data}"
    return True, ""


def write_imported_task(src: Path, out: Path, ref: ImageRef, verifier_script: str,
                        app_dir: Path) -> Path:
    """Lay out one imported task (see the module doc); returns its dir."""
    dest = Path(out) / src.name
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    shutil.copy2(src / "instruction.md", dest / "instruction.md")
    if (src / "task.toml").is_file():
        shutil.copy2(src / "task.toml", dest / "task.toml")
    else:
        (dest / "task.toml").write_text("", encoding="utf-8")
    if (src / "solution").is_dir():
        shutil.copytree(src / "solution", dest / "solution", symlinks=True)
    shutil.copytree(src / "tests", dest / "tests", symlinks=True)
    (dest / "tests" / "test.sh").write_text(verifier_script, encoding="utf-8")
    env_dir = dest / "environment"
    env_dir.mkdir()
    shutil.copytree(app_dir, env_dir / "files", symlinks=True)
    (env_dir / IMAGE_FILE).write_text(json.dumps(ref.to_json(), indent=2), encoding="utf-8")
    return dest
