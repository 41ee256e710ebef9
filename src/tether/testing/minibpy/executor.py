"""MiniBpyExecutor: scene programs on the minibpy TEST DOUBLE, in-process, same results.

Mirrors tether.systems.scene.executor.SceneExecutor (same `Execution`, same error kinds, same
JSON-shaped events and state) so refiner logic can be tested in milliseconds with the same
program text. Every execute() starts afresh from the factory scene or from the base
script's scene (a scene-building program run untraced on minibpy, as a task's base scene
is built on bpy; run once, then a pickled copy of its scene is loaded per execution, as
the Blender worker reloads a saved .blend). `import bpy` / `bmesh` / `mathutils` inside a
program give minibpy's modules (nothing else is touched: sys.modules keeps the real bpy
if one is loaded).

Not a sandbox: programs run in this process with no deadline, so only programs the test
author controls belong here; model-written code runs on SceneExecutor. What a program
changes in minibpy's modules or classes is undone after it and reported as
`contaminated`, as the Blender worker reports it: the execution fails (error kind
`contaminated`) and its state is not captured.
"""

from __future__ import annotations

import builtins
import json
import pickle
import time
from typing import Any

from tether.errors import ConfigError
from tether.systems.scene import (
    TRACER_NAME,
    Execution,
    RenderSettings,
    SceneTask,
    Tracer,
    capture,
    compile_traced,
    program_error,
    run_program,
    spec_problems,
)
from tether.testing import minibpy
from tether.testing.minibpy import raster

BLOCKED_OPS = {  # as the Blender worker refuses them (systems/scene/_child.py)
    "render.render": "renders are made by the executor (Cycles, fixed settings)",
    "render.opengl": "viewport renders need GL, which the sandbox does not have",
    "wm.quit_blender": "quitting would end the worker",
}


class Unsupported(Exception):
    pass


def _modules() -> dict[str, Any]:
    return {"bpy": minibpy, "mathutils": minibpy.mathutils, "bpy.types": minibpy.types,
            "bmesh": minibpy.bmesh}


def _import(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (),
            level: int = 0) -> Any:
    """__import__ for programs: bpy, bmesh and mathutils are minibpy's, the rest as usual."""
    mods = _modules()
    if level == 0 and (name in mods or name.startswith("bpy.")):
        if name not in mods:
            raise ImportError(f"minibpy (a test double) has no module {name}")
        return mods[name] if fromlist or "." not in name else mods["bpy"]
    return builtins.__import__(name, globals, locals, fromlist, level)


def _snapshot(targets: list[Any]) -> list[dict[str, Any]]:
    return [dict(vars(t)) for t in targets]


def _restore(targets: list[Any], before: list[dict[str, Any]]) -> list[str]:
    """Undo what a program changed in minibpy's modules and classes; what was changed."""
    changed = []
    for i, (target, old) in enumerate(zip(targets, before, strict=True)):
        now = dict(vars(target))
        if i == 0:  # the scene itself (replaced by reset()) is not contamination
            for k in ("data", "context"):
                now.pop(k, None)
                old.pop(k, None)
        # copy.copy() caches __slotnames__ on a class the first time: not the program's.
        keys = sorted(k for k in set(old) | set(now) if old.get(k, _restore) is not
                      now.get(k, _restore) and k != "__slotnames__")
        if keys:
            changed.append(getattr(target, "__name__", repr(target)))
        for k in keys:
            if k in old:
                setattr(target, k, old[k])
            else:
                delattr(target, k)
    return changed


class MiniBpyExecutor:
    """execute(source) on minibpy, afresh each time; the interface of SceneExecutor."""

    def __init__(self, base_script: str | None = None, *, empty: bool = False,
                 persistent: bool = False) -> None:
        """`base_script` builds the base scene before every program, from the factory
        start-up scene, or with `empty` from the factory's empty file (as a task's
        base.py runs on bpy). `persistent`: as SceneExecutor's, the scene of each
        successful, uncontaminated execution (before its render) is the next one's base
        until forget()."""
        self.base_script = base_script
        self.empty = empty
        self.persistent = persistent
        self.replacements = 0
        self._saved: bytes | None = None  # persistent mode: the last kept scene, pickled
        # The built base, pickled: each execution loads a fresh copy of it instead of
        # running the base script again (about 10x faster on the suite's bases; the same
        # scene, tested against rebuilding). None: not built yet; b"": not picklable.
        self._base: bytes | None = None

    @classmethod
    def for_task(cls, task: SceneTask) -> MiniBpyExecutor:
        """An executor whose programs run on the task's base scene: its base.py run on
        minibpy from the empty file. task.json's `scene` spec is what this double must
        build: a base that builds differently (or not at all) is a ConfigError here, not
        a silently different scene. BlenderGym tasks (a shipped .blend) cannot run here."""
        if task.base_source is None:
            raise ConfigError(f"{task.dir}: the minibpy test double builds bases from base.py; "
                              "this task ships a .blend",
                              hint="use --backend bpy for BlenderGym-layout tasks")
        ex = cls(task.base_source, empty=True)
        try:
            built = ex.execute("", trace=False, filename="base.py")
        except Exception as exc:  # noqa: BLE001 - any failure of the base is the finding
            raise ConfigError(f"{task.dir / 'base.py'}: does not build on minibpy "
                              f"({type(exc).__name__}: {exc})",
                              hint="minibpy mimics only what the bundled base scripts use"
                              ) from None
        problems = spec_problems(task.spec, built.state or {})
        if problems:
            raise ConfigError(f"{task.dir}: minibpy built a scene that is not task.json's "
                              f"spec: {'; '.join(problems)}")
        return ex

    def forget(self) -> None:
        """Persistent mode: drop the kept scene, so the next execution starts afresh."""
        self._saved = None

    def _fresh(self) -> None:
        if self.persistent and self._saved is not None:
            minibpy.data, minibpy.context = pickle.loads(self._saved)
            return
        if self._base:
            minibpy.data, minibpy.context = pickle.loads(self._base)
            return
        minibpy.reset(empty=self.empty)
        if self.base_script is not None:
            env = {"__name__": "__main__", "__builtins__": self._builtins()}
            exec(compile(self.base_script, "<base scene>", "exec"), env)
            try:
                self._base = pickle.dumps((minibpy.data, minibpy.context))
            except (pickle.PicklingError, TypeError, AttributeError):
                self._base = b""  # e.g. a base that stores a function: rebuilt every time

    @staticmethod
    def _builtins() -> dict[str, Any]:
        return {**vars(builtins), "__import__": _import}

    def execute(
        self,
        source: str,
        *,
        trace: bool = True,
        max_events: int = 10_000,
        render: RenderSettings | None = None,
        filename: str = "program.py",
        timeout_s: float | None = None,  # accepted for the interface; no deadline here
    ) -> Execution:
        start = time.monotonic()
        self._fresh()
        targets = [minibpy, minibpy.mathutils, minibpy.types,
                   *(getattr(minibpy.types, n) for n in minibpy.types.__all__)]
        before = _snapshot(targets)
        tracer = Tracer(max_events, bpy=minibpy)
        env: dict[str, Any] = {"__name__": "__main__", "__builtins__": self._builtins(),
                               "__file__": filename}
        out: dict[str, Any] = {"ok": True, "error": None, "overrides": [], "blocked": []}
        code = None
        try:
            if trace:
                env[TRACER_NAME] = tracer
                code = compile_traced(source, filename)
            else:
                code = compile(source, filename, "exec")
        except SyntaxError as exc:
            out.update(ok=False, error=program_error("syntax", exc, filename))
        real_call = minibpy.call_operator

        def guarded(idname: str, *args: Any, **kw: Any) -> Any:
            if idname in BLOCKED_OPS:
                out["blocked"].append(idname)
                raise Unsupported(f"bpy.ops.{idname} is not supported here: "
                                  f"{BLOCKED_OPS[idname]}")
            return real_call(idname, *args, **kw)

        if code is not None:
            minibpy.call_operator = guarded
            try:
                error = run_program(code, env, filename)
            finally:
                minibpy.call_operator = real_call
                before[0]["call_operator"] = real_call
            if error is not None:
                out.update(ok=False, error=error)
            if out["blocked"]:  # refused even when the program caught the exception
                error = out["error"] or {}
                idname = out["blocked"][0]
                out.update(ok=False, error={
                    "kind": "unsupported", "type": error.get("type", "Unsupported"),
                    "line": error.get("line"), "traceback": error.get("traceback", ""),
                    "message": f"bpy.ops.{idname}: {BLOCKED_OPS[idname]}",
                })  # fmt: skip
        contaminated = _restore(targets, before)
        captured = None
        if contaminated:  # as on the Blender worker: its evidence is not used
            out["ok"] = False
            out["error"] = {"kind": "contaminated", "type": "", "line": None, "traceback": "",
                            "message": "the program changed the worker's own state: "
                                       + ", ".join(contaminated)}
        else:
            try:
                captured = capture(minibpy)
            except Exception:
                captured = None
        kept = None
        if self.persistent and out["ok"] and not contaminated:
            try:  # before the render, as the Blender worker saves before rendering
                kept = pickle.dumps((minibpy.data, minibpy.context))
            except (pickle.PicklingError, TypeError, AttributeError):
                kept = None  # a scene holding a function: not kept (persisted False)
        png = None
        if out["ok"] and render is not None:
            scene = minibpy.context.scene
            if scene.camera is None:
                out.update(ok=False, error={"kind": "render", "type": "", "line": None,
                                            "message": "the scene has no camera",
                                            "traceback": ""})
            else:
                if scene.render.engine != "CYCLES":  # recorded as the Blender worker does
                    out["overrides"].append({"path": "scene.render.engine",
                                             "from": scene.render.engine, "to": "CYCLES"})
                    scene.render.engine = "CYCLES"
                png = raster.render_png(minibpy, render.size)
        # Through JSON, as the worker's reply comes: the same types on both backends.
        payload = json.loads(json.dumps({
            "error": out["error"], "events": tracer.events, "unresolved": tracer.unresolved,
            "state": captured, "overrides": out["overrides"],
        }))  # fmt: skip
        if contaminated:
            self.replacements += 1
            payload["events"], payload["unresolved"] = [], []
        if kept is not None and out["ok"]:
            self._saved = kept
        return Execution(
            ok=out["ok"], error=payload["error"], events=payload["events"],
            unresolved=payload["unresolved"], truncated=tracer.truncated,
            state=payload["state"], render_png=png, overrides=payload["overrides"],
            contaminated=contaminated, worker_replaced=bool(contaminated),
            duration_s=time.monotonic() - start, persisted=kept is not None and out["ok"],
        )  # fmt: skip

    def close(self) -> None:
        pass

    def __enter__(self) -> MiniBpyExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
