"""Worker side of the Blender executor (runs inside the sandbox, stdlib + bpy only).

The host prepends the modules `trace` and `state` (this package's files, as text) and
the site-packages path; this text defines `execute(request)`, called once per program.

The worker process is a template that never runs program code: execute() forks, and the
child resets to the base scene (the .blend reopened, or Blender's factory start-up
scene), runs the program in new globals, captures the evidence (trace, state, render)
and exits. Whatever a program replaces (bpy attributes, handlers, tether's own capture
functions, modules) dies with its child, so no execution sees another's changes; the
template also empties /tmp and the work dir and ends every process a program left
before the next execution. Inside the child, what a program changed that would make its
own evidence untrustworthy (module attributes of bpy & co., registered RNA properties,
handlers, tether's evidence functions and modules, replaced or removed modules) is
compared against identities taken before the program ran and returned as
`contaminated`: the host then discards that execution's evidence. Operators that would
end or wedge a GL-less process (a render of the program's own, EEVEE / Workbench,
quitting) are refused while the program runs.

Outputs have fixed names (RENDER_NAME, SAVE_NAME, chosen by the host too): the reply says
only whether they were written, never where.
"""

import builtins
import importlib
import os
import sys

import bpy

# Loaded up front (after bpy, which bmesh needs) so that the modules a program usually
# imports are shared by every child instead of loaded again in each.
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
# Module namespaces whose bindings the evidence depends on: bpy's, the builtins, and
# tether's own (the worker's globals, the trace and state modules, json for the reply).
FINGERPRINT_MODULES = ("bpy", "bpy.ops", "bpy.types", "bpy.utils", "bpy.props", "bpy.path",
                       "bpy.app", "mathutils", "builtins", "bmesh", "json", "os",
                       "tether_scene_trace", "tether_scene_state")
FINGERPRINT_TYPES = ("ID", "Object", "Scene", "Mesh", "Material", "Light", "Camera", "World",
                     "NodeTree", "Node", "NodeSocket", "Collection", "ViewLayer")
RENDER_NAME = "tether-render.png"  # the host reads these names, never names from a reply
SAVE_NAME = "tether-persist-out.blend"
RESUME_NAME = "tether-persist-in.blend"
WORKDIR = os.getcwd()  # the worker's own directory, where outputs are written


class Unsupported(Exception):
    pass


def _reset(base, empty=False):
    if base:
        bpy.ops.wm.open_mainfile(filepath=base)
    else:  # the factory start-up scene (Cube, Camera, Light), or its empty file
        bpy.ops.wm.read_factory_settings(use_empty=empty)


def _ident(value):
    """Identity of a binding; a function's code, defaults and closure too, since those
    can be swapped while the function object stays the same."""
    if type(value).__name__ == "function":
        return (id(value), id(value.__code__), id(value.__defaults__),
                id(value.__kwdefaults__), id(value.__closure__))
    return id(value)


def _fingerprint(space_of_worker):
    fp = {"worker": {k: _ident(v) for k, v in list(space_of_worker.items())}}
    for name in FINGERPRINT_MODULES:
        mod = sys.modules.get(name)
        space = getattr(mod, "__dict__", None)
        if space is not None:  # (bpy.app, e.g., is a struct sequence: nothing to patch)
            fp[name] = {k: _ident(v) for k, v in list(space.items())}
    for name in FINGERPRINT_TYPES:
        cls = getattr(bpy.types, name)
        props = sorted(p.identifier for p in cls.bl_rna.properties)
        fp["type " + name] = (sorted(vars(cls)), props)
    # Modules replaced or removed (a new import is the program's own business: it dies
    # with the child).
    fp["sys.modules"] = {k: id(v) for k, v in list(sys.modules.items())}
    fp["handlers"] = {h: len(getattr(bpy.app.handlers, h)) for h in dir(bpy.app.handlers)
                      if isinstance(getattr(bpy.app.handlers, h), list)}
    return fp


def _changes(before, after):
    changed = [k for k in before if k != "sys.modules" and before[k] != after.get(k)]
    mods_before, mods_after = before["sys.modules"], after.get("sys.modules", {})
    if any(mods_after.get(k) != v for k, v in mods_before.items()):
        changed.append("sys.modules")
    return sorted(changed)


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
    r.resolution_x = settings["size"]
    r.resolution_y = settings.get("height") or settings["size"]
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
    r.filepath = os.path.join(WORKDIR, RENDER_NAME)
    bpy.ops.render.render(write_still=True)
    out["rendered"] = True


def _run(request):
    """One execution, in the forked child: reset, program, evidence."""
    # Everything the evidence needs is bound here, before the program runs: the
    # program may rebind module globals, not this frame's locals.
    filename, want_render, want_save = request["filename"], request["render"], request["save"]
    fingerprint, changes, capture = _fingerprint, _changes, state.capture  # noqa: F821
    space = globals()
    base = request.get("base")
    if request.get("resume"):  # persistent mode: the scene the last program left, saved
        base = os.path.join(WORKDIR, RESUME_NAME)
    _reset(base, request.get("empty", False))
    before = fingerprint(space)
    tracer = trace.Tracer(request["max_events"])  # noqa: F821 (prepended by the host)
    env = {"__name__": "__main__", "__builtins__": builtins, "__file__": filename}
    out = {"ok": True, "error": None, "overrides": [], "rendered": False, "saved": False,
           "blocked": []}
    try:
        if request["trace"]:
            env[trace.TRACER_NAME] = tracer  # noqa: F821
            code = trace.compile_traced(request["source"], filename)  # noqa: F821
        else:
            code = compile(request["source"], filename, "exec")
    except SyntaxError as exc:
        out.update(ok=False, error=trace.program_error("syntax", exc, filename))  # noqa: F821
        code = None
    ops = sys.modules["bpy.ops"]
    real_call = ops._op_call
    blocked = out["blocked"]

    def guarded(idname, *args):
        if idname in BLOCKED_OPS:
            blocked.append(idname)
            raise Unsupported(f"bpy.ops.{idname} is not supported here: {BLOCKED_OPS[idname]}")
        return real_call(idname, *args)

    patched = False
    if code is not None:
        ops._op_call = guarded
        # exec runs in this frame, not in trace.run_program: the frame just above a
        # program's own is _run's, the one the hostile-program tests reach for
        try:
            exec(code, env)
        except SystemExit as exc:
            out.update(ok=False, error=trace.program_error("unsupported", exc, filename))  # noqa: F821
            out["error"]["message"] = "the program tried to quit (SystemExit)"
        except BaseException as exc:
            out.update(ok=False, error=trace.program_error("raised", exc, filename))  # noqa: F821
        finally:
            patched = ops._op_call is not guarded
            ops._op_call = real_call
        if blocked:  # refused even when the program caught the exception
            error = out["error"] or {}
            out.update(ok=False, error={
                "kind": "unsupported", "type": error.get("type", "Unsupported"),
                "line": error.get("line"), "traceback": error.get("traceback", ""),
                "message": f"bpy.ops.{blocked[0]}: {BLOCKED_OPS[blocked[0]]}",
            })  # fmt: skip
    out["blocked"] = list(blocked)
    # Checked before any evidence is taken: a contaminated execution's evidence is not
    # used, and a capture function the program replaced is not called.
    contaminated = changes(before, fingerprint(space)) + (["bpy.ops._op_call"] if patched else [])
    out["contaminated"] = contaminated
    out["events"], out["unresolved"] = tracer.events, tracer.unresolved
    out["truncated"] = tracer.truncated
    out["state"] = None
    if contaminated:
        return out
    try:
        out["state"] = capture(bpy)
    except Exception as exc:
        out["state_error"] = f"{type(exc).__name__}: {exc}"
    if out["ok"] and want_save:
        # Persistent mode: saved before the render, whose settings are not the program's.
        try:
            bpy.ops.wm.save_as_mainfile(filepath=os.path.join(WORKDIR, SAVE_NAME), copy=True,
                                        compress=False)
            out["saved"] = True
        except Exception as exc:
            out["save_error"] = f"{type(exc).__name__}: {exc}"
    if out["ok"] and want_render:
        try:
            _render(want_render, out)
        except Exception as exc:
            out.update(ok=False, error=trace.program_error("render", exc, filename))  # noqa: F821
    return out
