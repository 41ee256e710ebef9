"""Execute scene programs on real Blender (bpy 4.2) in a warm sandboxed worker.

One SceneExecutor keeps one SandboxedWorker (bubblewrap, no network, read-only system)
with bpy imported once; each execute() starts afresh from the base scene (the .blend
reopened, or Blender's factory start-up scene: Cube, Camera, Light), runs the program,
optionally traced (trace.py), captures the state (state.py) and optionally renders with
Cycles on the CPU (fixed seed, denoiser and adaptive sampling off) to a PNG.

Failures are results, not exceptions: `raised` and `syntax` (with the line and the
events before it), `unsupported` (the program called a render, a viewport render or a
quit: refused, the worker lives), `render`, and `timeout` / `crash` / `memory` (the
worker was killed and is replaced; no trace survives a dead process). A program that
changed what reloading cannot undo (see _child.py: bpy module attributes, registered
properties, handlers, new modules) is reported as `contaminated` and the worker is
replaced before the next execution.

The sandbox runs the system /usr/bin/python3 (3.11 on Debian 12, the bpy wheel's
version) with the host's site-packages bound read-only: the venv's own interpreter lives
under /root, which the unprivileged sandbox user cannot reach.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tether.errors import ConfigError
from tether.sandbox import BwrapSandbox, Sandbox, SandboxedWorker, WorkerLimits

HERE = Path(__file__).parent
SITE_MOUNT = "/opt/tether-site"
BASE_MOUNT = "/opt/tether-base"
BASES_MOUNT = "/opt/tether-bases"  # a directory of bases chosen per execution (task caches)
DEFAULT_MEMORY_MB = 3072  # Blender + Cycles; the worker default of 512 MB cannot import bpy
SAVE_NAME = "tether-persist-out.blend"  # in the worker's directory (persistent mode)
RESUME_NAME = "tether-persist-in.blend"
WORKER_FAILURES = ("timeout", "crash", "memory", "output_limit", "protocol")


@dataclass(frozen=True)
class RenderSettings:
    size: int = 256
    samples: int = 16
    seed: int = 0
    threads: int = 2


@dataclass
class Execution:
    """One execution: ok, or why not (error["kind"]), with what was observed before."""

    ok: bool
    error: dict[str, Any] | None = None
    events: list[dict[str, Any]] = field(default_factory=list)
    unresolved: list[dict[str, Any]] = field(default_factory=list)
    truncated: bool = False
    state: dict[str, Any] | None = None
    render_png: bytes | None = None  # the Cycles render, PNG bytes
    overrides: list[dict[str, Any]] = field(default_factory=list)
    contaminated: list[str] = field(default_factory=list)
    worker_replaced: bool = False
    duration_s: float = 0.0
    persisted: bool = False  # persistent mode: this program's scene is the next one's base

    def to_json(self) -> dict[str, Any]:
        return {
            "events": self.events, "unresolved": self.unresolved, "truncated": self.truncated,
            "state": self.state, "ok": self.ok, "error": self.error,
            "overrides": self.overrides, "contaminated": self.contaminated,
            "worker_replaced": self.worker_replaced, "persisted": self.persisted,
            "render_bytes": len(self.render_png) if self.render_png else None,
        }  # fmt: skip


def bpy_site_packages() -> Path:
    """The site-packages holding bpy (found without importing it)."""
    spec = importlib.util.find_spec("bpy")
    if spec is None or spec.origin is None:
        raise ConfigError(
            "scene programs need bpy (Blender as a Python module), which is not installed",
            hint="pip install 'tether[blender]' (Python 3.11), or run scripts/setup.sh",
        )
    return Path(spec.origin).resolve().parent.parent


def worker_program(site: str) -> str:
    """The worker's source: trace.py and state.py as modules, then _child.py."""
    sources = {name: (HERE / f"{name}.py").read_text() for name in ("trace", "state")}
    head = (
        "import sys, types\n"
        f"sys.path.insert(0, {site!r})\n"
        f"_SOURCES = {json.dumps(sources)}\n"
        "def _module(name):\n"
        "    mod = types.ModuleType('tether_scene_' + name)\n"
        "    sys.modules[mod.__name__] = mod\n"
        "    exec(compile(_SOURCES[name], 'tether_scene/' + name + '.py', 'exec'), mod.__dict__)\n"
        "    return mod\n"
        "trace = _module('trace')\n"
        "state = _module('state')\n"
    )
    return head + (HERE / "_child.py").read_text()


METADATA_CHUNKS = (b"tEXt", b"zTXt", b"iTXt", b"tIME", b"eXIf")


def strip_png_metadata(png: bytes) -> bytes:
    """The PNG without text / time / EXIF chunks: Cycles writes render times as text
    (`cycles.ViewLayer.render_time`) even with stamps off, which would make two renders
    of one scene differ in bytes while their pixels are equal."""
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        return png
    out, i = [png[:8]], 8
    while i + 8 <= len(png):
        n = int.from_bytes(png[i:i + 4], "big")
        end = i + 12 + n
        if png[i + 4:i + 8] not in METADATA_CHUNKS:
            out.append(png[i:end])
        i = end
    return b"".join(out)


class SceneExecutor:
    """Warm sandboxed Blender: execute(source) afresh from one base scene, many times."""

    def __init__(
        self,
        base: Path | None = None,
        *,
        sandbox: Sandbox | None = None,
        memory_mb: int = DEFAULT_MEMORY_MB,
        timeout_s: float = 60.0,
        python: str = "/usr/bin/python3",
        base_dir: Path | None = None,
        persistent: bool = False,
    ) -> None:
        site = bpy_site_packages()
        # Persistent mode (the paper's scene-origin ablation, VIGA's convention): after a
        # successful, uncontaminated execution the scene is saved (before any render) and
        # the next execution opens it instead of its base. A failed program leaves the
        # saved scene as it was. The file lives on the host, so it survives a replaced
        # worker; forget() goes back to starting afresh.
        self.persistent = persistent
        self._saved: Path | None = None
        self._saved_dir: Path | None = None
        binds = {str(site): SITE_MOUNT}
        self.base_inside: str | None = None
        if base is not None:
            base = Path(base).resolve()
            if base.suffix != ".blend" or not base.is_file():
                raise ConfigError(f"the base scene must be an existing .blend file, not {base}")
            binds[str(base.parent)] = BASE_MOUNT
            self.base_inside = f"{BASE_MOUNT}/{base.name}"
        # `base_dir`: a directory (a task cache) bound read-only, so that one warm worker
        # serves many bases: execute(..., base=<a .blend under it>).
        self.base_dir = Path(base_dir).resolve() if base_dir is not None else None
        if self.base_dir is not None:
            binds[str(self.base_dir)] = BASES_MOUNT
        self.sandbox = sandbox or BwrapSandbox()
        self.limits = WorkerLimits(
            memory_mb=memory_mb, max_procs=256, max_file_mb=256, call_timeout_s=timeout_s,
            start_timeout_s=120.0,
        )  # fmt: skip
        self.python = python
        self.binds = binds
        self.program = worker_program(SITE_MOUNT)
        self._worker: SandboxedWorker | None = None
        self.replacements = 0  # workers replaced after a contaminating program
        self._count = 0

    @property
    def worker(self) -> SandboxedWorker:
        if self._worker is None:
            self._worker = SandboxedWorker(
                self.sandbox, self.program, limits=self.limits, state="persistent",
                python=self.python, ro_binds=self.binds, filename="tether_scene_worker.py",
            )  # fmt: skip
        return self._worker

    def execute(
        self,
        source: str,
        *,
        trace: bool = True,
        max_events: int = 10_000,
        render: RenderSettings | None = None,
        filename: str = "program.py",
        timeout_s: float | None = None,
        base: Path | None = None,
        empty: bool = False,
    ) -> Execution:
        self._count += 1
        request: dict[str, Any] = {
            "source": source, "filename": filename, "trace": trace, "max_events": max_events,
            "base": self.base_inside if base is None else self._inside(base), "render": None,
            "empty": empty,  # no base: the factory's empty file instead of its start-up scene
        }  # fmt: skip
        name = f"render-{self._count}.png"
        if render is not None:
            request["render"] = {**render.__dict__, "name": name}
        worker = self.worker
        if self.persistent:
            request["save"] = SAVE_NAME
            if self._saved is not None:
                shutil.copyfile(self._saved, worker.workdir / RESUME_NAME)
                request["resume"] = RESUME_NAME
        start = time.monotonic()
        reply = worker.call("execute", request, timeout_s=timeout_s)
        duration = time.monotonic() - start
        if not reply.ok:
            if reply.kind == "load":
                raise ConfigError(
                    f"the Blender worker did not start: {reply.error_type}: {reply.message}",
                    hint=f"bpy must import under {self.python} (a Python 3.11 for bpy 4.2)",
                )
            replaced = reply.kind in WORKER_FAILURES
            kind = reply.kind if replaced else "worker"
            error = {"kind": kind, "type": reply.error_type, "line": None,
                     "message": reply.message, "traceback": reply.traceback}
            return Execution(ok=False, error=error, worker_replaced=replaced, duration_s=duration)
        value = reply.value
        png = None
        if value.get("render"):
            path = worker.workdir / value["render"]
            png = strip_png_metadata(path.read_bytes())
            path.unlink()
        result = Execution(
            ok=value["ok"], error=value["error"], events=value["events"],
            unresolved=value["unresolved"], truncated=value["truncated"],
            state=value["state"], render_png=png, overrides=value["overrides"],
            contaminated=value["contaminated"], duration_s=duration,
        )  # fmt: skip
        if value.get("saved"):
            saved = worker.workdir / value["saved"]
            if result.ok and not result.contaminated:
                self._keep(saved)
                result.persisted = True
            else:
                saved.unlink(missing_ok=True)
        if result.contaminated:
            # The next program must not see what this one changed: a new process.
            self.replacements += 1
            worker.close()
            self._worker = None
            result.worker_replaced = True
        return result

    def _keep(self, saved: Path) -> None:
        if self._saved_dir is None:
            self._saved_dir = Path(tempfile.mkdtemp(prefix="tether-scene-persist-"))
        self._saved = self._saved_dir / "scene.blend"
        shutil.move(saved, self._saved)

    def forget(self) -> None:
        """Persistent mode: drop the saved scene, so the next execution starts afresh."""
        if self._saved_dir is not None:
            shutil.rmtree(self._saved_dir, ignore_errors=True)
        self._saved = self._saved_dir = None

    def _inside(self, base: Path) -> str:
        """Where a base under `base_dir` is seen inside the sandbox."""
        base = Path(base).resolve()
        if self.base_dir is None or not base.is_relative_to(self.base_dir):
            raise ConfigError(f"{base} is not under the executor's base_dir {self.base_dir}")
        return f"{BASES_MOUNT}/{base.relative_to(self.base_dir).as_posix()}"

    def close(self) -> None:
        self.forget()
        if self._worker is not None:
            self._worker.close()
        self._worker = None

    def __enter__(self) -> SceneExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
