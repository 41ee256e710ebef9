"""Task scenes on one warm executor: bases built on first use and cached, cached renders.

The cache is `$TETHER_CACHE/scene` (else `~/.cache/tether/systems/scene`):
- `bases/<sha256>.blend`: a task's base scene, keyed by the sha256 of base.py's text (or
  of a BlenderGym task's shipped .blend, copied in so that one bound directory serves
  every base). base.py runs in the sandboxed worker like any program, from Blender's
  empty factory file, and the worker saves the result into its work directory.
- `renders/<sha256>.png`: a program's render on a base, keyed by (base key, program
  text, render settings, bpy version).
- `views/<base sha256>.json`: the cameras a task renders (see views()), and
  `bases/<sha256>.blend` of each camera's view base: the task's base with
  `scene.camera` set to that camera, saved once, so every execution of that view (the
  refiner's included) renders through it without the program being changed.

One SceneExecutor runs every task, so a suite pays bpy's start-up once. Its bound base
directory is a staging directory under the system temp dir, into which bases are copied
on first use: the sandbox user cannot reach a cache under /root, and the sandbox binds
an unreachable directory as a copy made at start, which would not see bases built later.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

from tether.errors import ConfigError
from tether.systems.scene.executor import Execution, RenderSettings, SceneExecutor
from tether.systems.scene.tasks import SceneTask

SAVE_NAME = "tether-base.blend"
#: BlenderGym's cameras: a base holding them is rendered and scored once per view
CAMERAS = ("Camera1", "Camera2")
# Appended to base.py: the worker's work directory is the only place it may write.
SAVE_SUFFIX = (
    "\n\nimport os as _tether_os\n"
    f"bpy.ops.wm.save_as_mainfile(filepath=_tether_os.path.join(_tether_os.getcwd(), "
    f"{SAVE_NAME!r}))\n"
)


def default_cache_dir() -> Path:
    """$TETHER_CACHE/scene when set, else ~/.cache/tether/systems/scene."""
    root = os.environ.get("TETHER_CACHE")
    return (Path(root) if root else Path.home() / ".cache" / "tether") / "scene"


def _atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


class TaskScenes:
    """Build, run and render scene tasks with one warm executor and a cache."""

    def __init__(self, cache_dir: Path | None = None, *, timeout_s: float = 120.0) -> None:
        self.root = Path(cache_dir) if cache_dir is not None else default_cache_dir()
        self.bases = self.root / "bases"
        self.renders = self.root / "renders"
        self.bases.mkdir(parents=True, exist_ok=True)
        self.renders.mkdir(parents=True, exist_ok=True)
        self.stage = Path(tempfile.mkdtemp(prefix="tether-scene-bases-"))
        self.stage.chmod(0o755)  # world-traversable: bound live into the sandbox
        self.executor = SceneExecutor(base_dir=self.stage, timeout_s=timeout_s)
        self.built = 0  # bases built by this instance (not found in the cache)
        self.rendered = 0  # renders made by this instance (not found in the cache)

    # --- bases -------------------------------------------------------------------------

    def build_base(self, task: SceneTask) -> tuple[bytes, Execution]:
        """Run base.py afresh (empty factory file) and return the saved .blend's bytes."""
        if task.base_source is None:
            raise ConfigError(f"{task.dir}: task has no base.py to build")
        result = self.executor.execute(task.base_source + SAVE_SUFFIX, trace=False,
                                       filename="base.py", empty=True, keep=(SAVE_NAME,))
        data = self.executor.take(SAVE_NAME)
        if not result.ok or data is None:
            error = result.error or {"kind": "missing", "message": "no .blend was saved"}
            raise ConfigError(f"{task.dir / 'base.py'}: the base scene did not build "
                              f"({error['kind']}: {error.get('message', '')})".strip())
        return data, result

    def base(self, task: SceneTask, camera: str | None = None) -> Path:
        """The task's base .blend in the cache, built (or copied) on first use; with a
        camera, the view base that renders through it."""
        if camera is not None:
            return self._view_base(task, camera)
        path = self.bases / f"{task.base_key}.blend"
        if not path.is_file():
            if task.base_blend is not None:
                shutil.copyfile(task.base_blend, path)
            else:
                data, _ = self.build_base(task)
                _atomic_write(path, data)
                self.built += 1
        return path

    def views(self, task: SceneTask) -> list[str | None]:
        """The cameras the task is rendered through: those of CAMERAS its base holds
        (BlenderGym's convention: each view is rendered and scored, the scores averaged),
        else [None], the base's own `scene.camera`. Found once per base and cached."""
        path = self.root / "views" / f"{task.base_key}.json"
        if path.is_file():
            return list(json.loads(path.read_text()))
        result = self.executor.execute("", base=self.staged(task), trace=False)
        if not result.ok:
            error = result.error or {}
            raise ConfigError(f"{task.dir}: the base scene does not open ({error.get('kind')}: "
                              f"{error.get('message', '')})")
        objects = ((result.state or {}).get("structure") or {}).get("objects") or {}
        found: list[str | None] = [c for c in CAMERAS
                                   if (objects.get(c) or {}).get("type") == "CAMERA"]
        views = found or [None]
        path.parent.mkdir(parents=True, exist_ok=True)
        _atomic_write(path, json.dumps(views).encode())
        return views

    def _view_base(self, task: SceneTask, camera: str) -> Path:
        key = hashlib.sha256(f"{task.base_key}\0camera\0{camera}".encode()).hexdigest()
        path = self.bases / f"{key}.blend"
        if path.is_file():
            return path
        program = (f"import bpy\nbpy.context.scene.camera = bpy.data.objects[{camera!r}]\n"
                   + SAVE_SUFFIX)
        result = self.executor.execute(program, base=self.staged(task), trace=False,
                                       filename="view.py", keep=(SAVE_NAME,))
        data = self.executor.take(SAVE_NAME)
        if not result.ok or data is None:
            error = result.error or {"kind": "missing", "message": "no .blend was saved"}
            raise ConfigError(f"{task.dir}: the view through {camera} did not save "
                              f"({error['kind']}: {error.get('message', '')})")
        _atomic_write(path, data)
        return path

    # --- programs ----------------------------------------------------------------------

    def run(self, task: SceneTask, source: str, *, render: RenderSettings | None = None,
            trace: bool = True, filename: str = "program.py",
            camera: str | None = None) -> Execution:
        """Execute a program afresh on the task's base (uncached), through `camera`'s view."""
        return self.executor.execute(source, base=self.staged(task, camera), render=render,
                                     trace=trace, filename=filename)

    def staged(self, task: SceneTask, camera: str | None = None) -> Path:
        """The task's base (or a camera's view base) copied into the executor's bound
        staging directory."""
        cached = self.base(task, camera)
        path = self.stage / cached.name
        if not path.is_file():
            shutil.copyfile(cached, path)
            path.chmod(0o644)
        return path

    def render_key(self, task: SceneTask, source: str, settings: RenderSettings,
                   camera: str | None = None) -> str:
        parts: list[object] = [task.base_key, source, settings.key(), _bpy_version()]
        if camera is not None:
            parts.append(camera)
        return hashlib.sha256(json.dumps(parts).encode()).hexdigest()

    def render(self, task: SceneTask, source: str, settings: RenderSettings | None = None,
               *, cached: bool = True,
               camera: str | None = None) -> tuple[bytes | None, Execution | None]:
        """(PNG, execution) of a program on the task's base (through `camera`'s view); a
        cache hit has no execution.

        A failed execution returns (None, execution) and is never cached; so is a
        contaminated one (failed too: executor.py), and each execution runs in its own
        process (_child.py), so no render is made in a worker an earlier program changed.
        """
        settings = settings or task.render
        path = self.renders / f"{self.render_key(task, source, settings, camera)}.png"
        if cached and path.is_file():
            return path.read_bytes(), None
        result = self.run(task, source, render=settings, trace=False, camera=camera)
        if not result.ok or result.contaminated or result.render_png is None:
            return None, result
        _atomic_write(path, result.render_png)
        self.rendered += 1
        return result.render_png, result

    def close(self) -> None:
        self.executor.close()
        shutil.rmtree(self.stage, ignore_errors=True)

    def __enter__(self) -> TaskScenes:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _bpy_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("bpy")
    except PackageNotFoundError:
        return "none"
