"""Worker side of the Blender executor (runs inside the sandbox, stdlib + bpy only).

The host prepends the modules `trace` and `state` (this package's files, as text) and
the site-packages path; this text defines `execute(request)`, called once per program.
Every execution starts from the base scene (the .blend reopened, or Blender's factory
start-up scene) and runs the program in new globals. What a reload cannot undo
(module attributes of bpy & co., registered RNA properties, handlers, new modules) is
fingerprinted before and after: a difference is returned as `contaminated` and the host
replaces the worker. Operators that would end or wedge a GL-less process (a render of
the program's own, EEVEE / Workbench, quitting) are refused while the program runs.
"""

import builtins
import importlib
import os
import sys
import traceback

import bpy

# Loaded up front (after bpy, which bmesh needs) so that a program importing them does
# not count as loading a new module.
for _name in ("bmesh", "mathutils", "colorsys", "math", "random", "numpy"):
    try:
        importlib.import_module(_name)
    except ImportError:
        pass

BLOCKED_OPS = {
    "render.render": "renders are made by the executor (Cycles, fixed settings)",
    "render.opengl": "viewport renders need GL, which the sandbox does not have",
    "render.view_show": "there is no window",
    "render.play_rendered_anim": "there is no window",
    "wm.quit_blender": "quitting would end the worker",
    "wm.window_close": "there is no window",
}
FINGERPRINT_MODULES = ("bpy", "bpy.ops", "bpy.types", "bpy.utils", "bpy.props", "bpy.path",
                       "bpy.app", "mathutils", "builtins", "bmesh")
FINGERPRINT_TYPES = ("ID", "Object", "Scene", "Mesh", "Material", "Light", "Camera", "World",
                     "NodeTree", "Node", "NodeSocket", "Collection", "ViewLayer")
TEXT_TAIL = 4000


class Unsupported(Exception):
    pass


def _reset(base, empty=False):
    if base:
        bpy.ops.wm.open_mainfile(filepath=base)
    else:  # the factory start-up scene (Cube, Camera, Light), or its empty file
        bpy.ops.wm.read_factory_settings(use_empty=empty)


def _fingerprint():
    fp = {}
    for name in FINGERPRINT_MODULES:
        mod = sys.modules.get(name)
        space = getattr(mod, "__dict__", None)
        if space is not None:  # (bpy.app, e.g., is a struct sequence: nothing to patch)
            fp[name] = {k: id(v) for k, v in list(space.items())}
    for name in FINGERPRINT_TYPES:
        cls = getattr(bpy.types, name)
        props = sorted(p.identifier for p in cls.bl_rna.properties)
        fp["type " + name] = (sorted(vars(cls)), props)
    fp["sys.modules"] = sorted(sys.modules)
    fp["handlers"] = {h: len(getattr(bpy.app.handlers, h)) for h in dir(bpy.app.handlers)
                      if isinstance(getattr(bpy.app.handlers, h), list)}
    return fp


def _changes(before, after):
    return sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))


def _error(kind, exc, filename):
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == filename]
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return {
        "kind": kind,
        "type": type(exc).__qualname__,
        "message": str(exc)[-TEXT_TAIL:],
        "line": frames[-1].lineno if frames else getattr(exc, "lineno", None),
        "traceback": text[-TEXT_TAIL:],
    }


def _render(settings, out):
    scene = bpy.context.scene
    if scene.camera is None:
        out.update(ok=False, error={"kind": "render", "type": "", "line": None,
                                    "message": "the scene has no camera", "traceback": ""})
        return
    if scene.render.engine != "CYCLES":
        out["overrides"].append({"path": "scene.render.engine", "from": scene.render.engine,
                                 "to": "CYCLES"})
        scene.render.engine = "CYCLES"
    cycles = scene.cycles
    cycles.device = "CPU"
    cycles.samples = settings["samples"]
    cycles.seed = settings["seed"]
    cycles.use_denoising = False
    cycles.use_adaptive_sampling = False
    r = scene.render
    r.resolution_x = r.resolution_y = settings["size"]
    r.resolution_percentage = 100
    r.threads_mode = "FIXED"
    r.threads = settings["threads"]
    r.image_settings.file_format = "PNG"
    r.image_settings.color_mode = "RGB"
    r.image_settings.color_depth = "8"
    # No date / render-time text chunks: two renders of one program are byte-identical.
    for prop in r.bl_rna.properties:
        if prop.identifier.startswith("use_stamp"):
            setattr(r, prop.identifier, False)
    r.filepath = os.path.join(os.getcwd(), settings["name"])
    bpy.ops.render.render(write_still=True)
    out["render"] = settings["name"]


def execute(request):
    filename = request["filename"]
    base = request.get("base")
    if request.get("resume"):  # persistent mode: the scene the last program left, saved
        base = os.path.abspath(request["resume"])
    _reset(base, request.get("empty", False))
    before = _fingerprint()
    tracer = trace.Tracer(request["max_events"])  # noqa: F821 (prepended by the host)
    env = {"__name__": "__main__", "__builtins__": builtins, "__file__": filename}
    out = {"ok": True, "error": None, "overrides": [], "render": None, "blocked": []}
    try:
        if request["trace"]:
            env[trace.TRACER_NAME] = tracer  # noqa: F821
            code = trace.compile_traced(request["source"], filename)  # noqa: F821
        else:
            code = compile(request["source"], filename, "exec")
    except SyntaxError as exc:
        out.update(ok=False, error=_error("syntax", exc, filename))
        code = None
    ops = sys.modules["bpy.ops"]
    real_call = ops._op_call

    def guarded(idname, *args):
        if idname in BLOCKED_OPS:
            out["blocked"].append(idname)
            raise Unsupported(f"bpy.ops.{idname} is not supported here: {BLOCKED_OPS[idname]}")
        return real_call(idname, *args)

    if code is not None:
        ops._op_call = guarded
        try:
            exec(code, env)
        except SystemExit as exc:
            out.update(ok=False, error=_error("unsupported", exc, filename))
            out["error"]["message"] = "the program tried to quit (SystemExit)"
        except BaseException as exc:
            out.update(ok=False, error=_error("raised", exc, filename))
        finally:
            patched = ops._op_call is not guarded
            ops._op_call = real_call
        if out["blocked"]:  # refused even when the program caught the exception
            error = out["error"] or {}
            out.update(ok=False, error={
                "kind": "unsupported", "type": error.get("type", "Unsupported"),
                "line": error.get("line"), "traceback": error.get("traceback", ""),
                "message": f"bpy.ops.{out['blocked'][0]}: {BLOCKED_OPS[out['blocked'][0]]}",
            })  # fmt: skip
    else:
        patched = False
    out["events"], out["unresolved"] = tracer.events, tracer.unresolved
    out["truncated"] = tracer.truncated
    try:
        out["state"] = state.capture(bpy)  # noqa: F821
    except Exception as exc:
        out["state"] = None
        out["state_error"] = f"{type(exc).__name__}: {exc}"
    if out["ok"] and request.get("save"):
        # Persistent mode: saved before the render, whose settings are not the program's.
        try:
            bpy.ops.wm.save_as_mainfile(filepath=os.path.abspath(request["save"]), copy=True,
                                        compress=False)
            out["saved"] = request["save"]
        except Exception as exc:
            out["save_error"] = f"{type(exc).__name__}: {exc}"
    if out["ok"] and request.get("render"):
        try:
            _render(request["render"], out)
        except Exception as exc:
            out.update(ok=False, error=_error("render", exc, filename))
    changed = _changes(before, _fingerprint())
    out["contaminated"] = changed + (["bpy.ops._op_call"] if patched else [])
    return out

