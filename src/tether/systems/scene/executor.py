"""Execute scene programs on real Blender (bpy 4.2) in a warm sandboxed worker.

One SceneExecutor keeps one SandboxedWorker (bubblewrap, no network, read-only system)
with bpy imported once; each execute() runs in a process forked from that worker, which
starts afresh from the base scene (the .blend reopened, or Blender's factory start-up
scene: Cube, Camera, Light), runs the program, optionally traced (trace.py), captures the
state (state.py) and optionally renders with Cycles on the CPU (fixed seed, denoiser and
adaptive sampling off) to a PNG. The worker itself never runs program code: between
executions it empties /tmp and the work dir and ends the processes a program left, so
no execution sees another's files, processes or in-memory changes (_child.py).

Failures are results, not exceptions: `raised` and `syntax` (with the line and the
events before it), `unsupported` (the program called a render, a viewport render or a
quit: refused, the worker lives), `render`, `memory` (a MemoryError, or the execution
killed by SIGKILL, the memory limit's signal), `crash` (the execution's process died),
`timeout` / `worker` failures (the worker was killed and is replaced; no trace survives
a dead process), `contaminated` (the program changed what the evidence depends on: bpy
module attributes, registered properties, handlers, tether's own capture functions or
modules; its state and render are dropped and the worker replaced), and `reply` (the
worker's reply failed the schema in reply.py, or an output was not a plain file in the
worker's directory: the program's failure, the worker replaced). The host never reads a
path from a reply: the render and the saved scene have fixed names (RENDER_NAME,
SAVE_NAME) read with reply.read_output.

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
from tether.systems.scene.reply import (
    Died,
    UnsafeOutput,
    parse_died,
    parse_reply,
    read_output,
    write_input,
)

HERE = Path(__file__).parent
SITE_MOUNT = "/opt/tether-site"
BASE_MOUNT = "/opt/tether-base"
BASES_MOUNT = "/opt/tether-bases"  # a directory of bases chosen per execution (task caches)
DEFAULT_MEMORY_MB = 3072  # Blender + Cycles; the worker default of 512 MB cannot import bpy
# Fixed names in the worker's directory (the worker uses the same ones: _child.py); the
# host never reads a name or path from a reply.
RENDER_NAME = "tether-render.png"
SAVE_NAME = "tether-persist-out.blend"  # persistent mode: the scene a program left
RESUME_NAME = "tether-persist-in.blend"  # persistent mode: the scene the next one opens
WORKER_FAILURES = ("timeout", "crash", "memory", "output_limit", "protocol")


#: Named render settings. "paper": the VETR paper's Cycles setting, 512 samples, at 512 x 512
#: (a supplied goal image's resolution wins: goals.View.settings). Not the default: one such
#: render of a bundled task took 648 s on a loaded 2-core machine, where 64 x 64 at 8
#: samples took 0.14 s (docs/scenes/index.md, "Render settings").
RENDER_PRESETS: dict[str, dict[str, int]] = {"paper": {"size": 512, "samples": 512}}


@dataclass(frozen=True)
class RenderSettings:
    """Cycles on the CPU: `size` pixels wide, `height` high (None: square), fixed seed."""

    size: int = 256
    samples: int = 16
    seed: int = 0
    threads: int = 2
    height: int | None = None  # a non-square render (a supplied goal image's shape)

    def key(self) -> dict[str, int]:
        """What identifies the render (a square one keeps the key it had before heights)."""
        return {k: v for k, v in self.__dict__.items() if v is not None}


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
    """The worker's source: trace.py and state.py as modules, then _child.py (one
    execution) and _template.py (the process that forks one child per execution)."""
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
    return head + "\n".join((HERE / f"{name}.py").read_text()
                             for name in ("_child", "_template"))


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
        keep: tuple[str, ...] = (),
    ) -> Execution:
        """Run `source` afresh; `keep` names files the program writes into its working
        directory that the host takes with take() after this call (else removed)."""
        self._count += 1
        request: dict[str, Any] = {
            "source": source, "filename": filename, "trace": trace, "max_events": max_events,
            "base": self.base_inside if base is None else self._inside(base),
            "render": render.__dict__ if render is not None else None,
            "empty": empty,  # no base: the factory's empty file instead of its start-up scene
            "save": self.persistent, "resume": False,
            "keep": [RENDER_NAME, SAVE_NAME, *keep],
            # bwrap gives the worker a private /tmp and PID namespace: only then does the
            # worker empty /tmp and end every other process between executions
            "isolated": isinstance(self.sandbox, BwrapSandbox),
        }  # fmt: skip
        worker = self.worker
        if self.persistent and self._saved is not None:
            write_input(worker.workdir, RESUME_NAME, self._saved.read_bytes())
            request["resume"] = True
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
        if isinstance(reply.value, dict) and "died" in reply.value:
            died, why = parse_died(reply.value)
            if died is None:
                return self._refused(why, duration)
            return self._died(died, duration)
        value, why = parse_reply(reply.value)
        if value is None:
            return self._refused(why, duration)
        try:
            png = read_output(worker.workdir, RENDER_NAME) if value.rendered else None
            saved = (read_output(worker.workdir, SAVE_NAME)
                     if value.saved and self.persistent else None)
        except UnsafeOutput as exc:
            return self._refused(str(exc), duration)
        if value.rendered and png is None:
            return self._refused(f"the render {RENDER_NAME} is missing", duration)
        result = Execution(
            ok=value.ok, error=value.error.model_dump() if value.error else None,
            events=value.events, unresolved=value.unresolved, truncated=value.truncated,
            state=value.state.model_dump() if value.state else None,
            render_png=strip_png_metadata(png) if png is not None else None,
            overrides=value.overrides, contaminated=value.contaminated, duration_s=duration,
        )  # fmt: skip
        if result.error and result.error.get("type") == "MemoryError":
            result.error["kind"] = "memory"
            result.error["message"] = (f"MemoryError: the program reached the worker's memory "
                                       f"limit ({self.limits.memory_mb} MB)")
        if result.contaminated:
            # Its evidence is not used (a program that replaced the capture functions or
            # bpy's could have forged it), and a new process serves the next program.
            result.ok, result.state, result.render_png = False, None, None
            result.events, result.unresolved = [], []
            result.error = {"kind": "contaminated", "type": "", "line": None, "traceback": "",
                            "message": "the program changed the worker's own state: "
                                       + ", ".join(result.contaminated)}
            self._replace()
            result.worker_replaced = True
        elif saved is not None and result.ok:
            self._keep(saved)
            result.persisted = True
        return result

    def take(self, name: str) -> bytes | None:
        """A file the last execution kept (execute(keep=...)), read safely and removed."""
        if self._worker is None:
            return None
        try:
            return read_output(self._worker.workdir, name)
        except UnsafeOutput:
            return None

    def _died(self, died: Died, duration: float) -> Execution:
        """The execution's process ended without a reply: killed (most often at the
        memory limit) or crashed; the template lives on."""
        if died.died == "signal":
            code = died.code
            message = (f"the execution was killed by signal {code}" + (
                f" (the memory limit, {self.limits.memory_mb} MB, is the usual cause)"
                if code == 9 else ""))
            kind = "memory" if code == 9 else "crash"
        else:
            kind, message = "crash", f"the execution ended with status {died.code}"
        error = {"kind": kind, "type": "", "line": None, "message": message, "traceback": ""}
        return Execution(ok=False, error=error, duration_s=duration)

    def _refused(self, why: str, duration: float) -> Execution:
        """A reply or output the host does not accept: the program's failure, and the
        worker that sent it is not trusted with another program."""
        self._replace()
        error = {"kind": "reply", "type": "", "line": None, "traceback": "",
                 "message": f"refused the worker's reply: {why}"}
        return Execution(ok=False, error=error, worker_replaced=True, duration_s=duration)

    def _replace(self) -> None:
        self.replacements += 1
        if self._worker is not None:
            self._worker.close()
        self._worker = None

    def _keep(self, data: bytes) -> None:
        if self._saved_dir is None:
            self._saved_dir = Path(tempfile.mkdtemp(prefix="tether-scene-persist-"))
        self._saved = self._saved_dir / "scene.blend"
        self._saved.write_bytes(data)

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
