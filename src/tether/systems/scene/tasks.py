"""Scene tasks in the BlenderGym layout: one directory per task.

tether's own layout (the bundled suite, `data/tasks/<id>/`):
- `base.py`: a bpy script that builds the base scene from an empty file, deterministically;
  the `.blend` is generated on first use into the cache (scenes.py), never committed;
- `start.py`, `goal.py`: programs run on the base scene (the generator edits start.py to
  reach goal.py's render);
- `description.md`: the edit in words (what a generator is told);
- `task.json`: a plain JSON spec: `family`, `render` (size, samples, seed), `camera`,
  `shared` (which shared data block the natural edit hits, or null), `scene` (objects ->
  [type, data], materials, shape keys, modifiers, node groups: the scene base.py must
  build on bpy and on the minibpy test double, which runs base.py itself: the spec is the
  contract both builds are held to, by `tether scene tasks check` and
  MiniBpyExecutor.for_task) and `digests` of the start and goal renders (digest() below).

BlenderGym's layout (a `.blend` instead of base.py, renders shipped under `renders/`) is
read by blendergym.py into the same SceneTask. A task is the paper's (B, p0, r0, y*): the
goal may be a program (goal.py, rendered here) or only an image (`renders/goal/render1.png`,
one per camera view: `render2.png` for Camera2), and the start image r0 is the shipped
`renders/start/render<i>.png` when there is one, else start.py's cached render.

The family is task.json's `family`; without one, the folder name's prefix when the name
is letters followed by a number, as BlenderGym names its tasks (`placement12` is family
`placement`, `blendshape40` is `blendshape`); else `custom`. It groups the report's means
and its Eq. 9 column; nothing else depends on it. `SceneTask.family_from` says which rule
gave it (`tether scene tasks check` prints both).
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from tether.errors import ConfigError
from tether.systems.scene.executor import RenderSettings
from tether.systems.scene.metrics import load_rgb
from tether.systems.scene.opencv import opencv

#: the bundled suite's families (a user's task may name any family, default DEFAULT_FAMILY)
FAMILIES = ("placement", "lighting", "material", "blendshape", "geometry")
DEFAULT_FAMILY = "custom"
LAYOUT = ("base.py", "start.py", "goal.py", "description.md", "task.json")
_FAMILY = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_NUMBERED = re.compile(r"([A-Za-z]{1,63})[0-9]+")  # BlenderGym's task names: placement12
THUMB = 8  # digest thumbnails are THUMB x THUMB, average-pooled
RENDER_TOLERANCE_PL = 1e-4  # stored renders may differ this much (CPUs differ)


@dataclass(frozen=True)
class SceneTask:
    """One task directory, read (nothing built or rendered yet)."""

    dir: Path
    id: str
    family: str
    description: str
    start: str
    goal: str | None  # the goal program, or None when the goal is given as images only
    spec: dict[str, Any]
    base_source: str | None = None  # tether layout: the script that builds the base
    base_blend: Path | None = None  # BlenderGym layout: the shipped .blend
    notes: list[dict[str, Any]] = field(default_factory=list)  # e.g. 3.6 socket names
    #: supplied images per view number (1 = Camera1 or scene.camera, 2 = Camera2, ...)
    goal_images: dict[int, Path] = field(default_factory=dict)
    start_images: dict[int, Path] = field(default_factory=dict)
    #: where the family came from: "task.json", "folder name" or "default"
    family_from: str = "task.json"

    @property
    def level(self) -> str | None:
        """task.json's `level` (BlenderBench's difficulty, e.g. 1, 2, 3), None when absent;
        the report's per-level rows and its Eq. 5 improvement read it."""
        found = self.spec.get("level")
        return None if found is None or isinstance(found, bool) else str(found)

    @property
    def render(self) -> RenderSettings:
        r = self.spec.get("render", {})
        return RenderSettings(size=int(r.get("size", 64)), samples=int(r.get("samples", 8)),
                              seed=int(r.get("seed", 0)))

    @cached_property
    def base_key(self) -> str:
        """sha256 of what the base is made from: the script's text, or the .blend's bytes."""
        if self.base_source is not None:
            return hashlib.sha256(self.base_source.encode()).hexdigest()
        assert self.base_blend is not None
        return hashlib.sha256(self.base_blend.read_bytes()).hexdigest()


def bundled_tasks_dir() -> Path:
    return Path(str(resources.files("tether.systems.scene") / "data" / "tasks"))


def bundled_task_dirs() -> list[Path]:
    return sorted(p for p in bundled_tasks_dir().iterdir() if (p / "task.json").is_file())


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None


def load_task(directory: Path) -> SceneTask:
    """A task directory in tether's layout; ConfigError naming what is missing or wrong."""
    directory = Path(directory)
    if not directory.is_dir():
        raise ConfigError(f"no task directory at {directory}")
    missing = [name for name in LAYOUT if not (directory / name).is_file()]
    if missing:
        raise ConfigError(f"{directory}: not a scene task directory, missing {', '.join(missing)}",
                          hint="a task has base.py, start.py, goal.py, description.md, task.json")
    try:
        spec = json.loads(_read(directory / "task.json"))
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{directory / 'task.json'}: invalid JSON at line {exc.lineno}: "
                          f"{exc.msg}") from None
    family, family_from = family_of(spec, directory / "task.json", directory.name)
    return SceneTask(
        dir=directory, id=str(spec.get("id", directory.name)), family=family,
        family_from=family_from,
        description=_read(directory / "description.md").strip(),
        start=_read(directory / "start.py"), goal=_read(directory / "goal.py"),
        spec=spec, base_source=_read(directory / "base.py"),
    )  # fmt: skip


def family_of(spec: dict[str, Any], where: Path, folder: str) -> tuple[str, str]:
    """(family, where it came from): task.json's `family`, else the folder name's prefix
    (`placement12` -> placement), else `custom`. A family is a short name (letters,
    digits, _.-)."""
    if "family" not in spec:
        numbered = _NUMBERED.fullmatch(folder)
        if numbered:
            return numbered.group(1), "folder name"
        return DEFAULT_FAMILY, "default"
    family = spec["family"]
    if not isinstance(family, str) or not _FAMILY.fullmatch(family):
        raise ConfigError(f"{where}: family {family!r} is not a short name",
                          hint="letters, digits, '_', '.', '-' (e.g. \"placement\"), "
                               f"or leave it out for {DEFAULT_FAMILY!r}")
    return family, "task.json"


def shipped_images(directory: Path, which: str) -> dict[int, Path]:
    """`renders/<which>/render<i>.png` by view number i (BlenderGym's names)."""
    out = {}
    for p in sorted((Path(directory) / "renders" / which).glob("render*.png")):
        number = p.stem.removeprefix("render")
        if number.isdigit() and int(number) >= 1 and p.is_file():
            out[int(number)] = p
    return out


def folder_hash(directory: Path) -> str:
    """sha256 of a folder's content: every file's relative path and bytes, in path order
    (names a folder's check results kept outside it: the same content, the same key)."""
    h = hashlib.sha256()
    root = Path(directory)
    for p in sorted(q for q in root.rglob("*") if q.is_file()):
        h.update(f"{p.relative_to(root).as_posix()}\0{p.stat().st_size}\0".encode())
        with p.open("rb") as f:
            for chunk in iter(functools.partial(f.read, 1 << 20), b""):
                h.update(chunk)
        h.update(b"\0")
    return h.hexdigest()


# --- render digests --------------------------------------------------------------------


def png_rgb(png: bytes) -> np.ndarray:
    """PNG bytes as float64 RGB in [0, 1], read as metrics.load_rgb reads a file."""
    cv2 = opencv()
    raw = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_UNCHANGED)
    if raw is None:
        raise ConfigError("not a PNG image")
    if raw.ndim == 2:
        raw = np.repeat(raw[:, :, None], 3, axis=2)
    return load_rgb(cv2.cvtColor(np.ascontiguousarray(raw[:, :, :3]), cv2.COLOR_BGR2RGB))


def thumbnail(rgb: np.ndarray, n: int = THUMB) -> np.ndarray:
    """Average-pooled n x n RGB (the image's sides must be multiples of n)."""
    h, w, _ = rgb.shape
    if h % n or w % n:
        raise ConfigError(f"renders of {w}x{h} cannot be pooled to {n}x{n}",
                          hint=f"use a render size that is a multiple of {n}")
    return rgb.reshape(n, h // n, n, w // n, 3).mean(axis=(1, 3))


def digest(png: bytes) -> dict[str, Any]:
    """What task.json stores of a render: the PNG's sha256 and an 8x8 pooled thumbnail.

    The full render is not committed (the issue: renders are cached, not committed); the
    thumbnail lets another CPU's render match within the tolerance (render_matches).
    """
    thumb = thumbnail(png_rgb(png))
    return {"sha256": hashlib.sha256(png).hexdigest(),
            "thumb": [round(float(v), 5) for v in thumb.ravel()]}


def render_matches(png: bytes, stored: dict[str, Any]) -> tuple[bool, float]:
    """(match, PL of the pooled thumbnails). Equal bytes match; otherwise the thumbnails'
    RGB MSE must be <= RENDER_TOLERANCE_PL. Pooling averages per-pixel sampling noise
    away, so it is a lower bound of the full images' PL: it tolerates another CPU's noise
    and still catches a scene change that moves a region's colour."""
    if hashlib.sha256(png).hexdigest() == stored.get("sha256"):
        return True, 0.0
    ours = thumbnail(png_rgb(png)).ravel()
    theirs = np.asarray(stored.get("thumb", []), dtype=np.float64)
    if theirs.shape != ours.shape:
        return False, float("inf")
    pl = float(np.mean((ours - theirs) ** 2))
    return pl <= RENDER_TOLERANCE_PL, pl
