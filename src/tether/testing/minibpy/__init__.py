"""minibpy: a TEST DOUBLE of Blender's `bpy`, not Blender.

A small in-process fake of the bpy 4.2 subset that tether's scene programs use (objects,
meshes, lights, cameras, materials with Principled BSDF sockets, material slots, shape
keys, geometry-node modifier inputs, `.copy()`, users counts, and the bmesh primitives
and geometry-node groups the suite's base scripts build with), so that refiner logic can
be unit-tested in milliseconds and a patch compiled from either backend's state runs on
both. Values, ranges, clamping, names and errors follow real bpy where programs can see
them (float32 storage, `lens >= 1`, `.001` names, users), and tests compare its traces
and state with real bpy's on the same programs. Its "render" (raster.py) is a crude
numpy drawing that changes when the scene changes; it is not Cycles and never a score.

It holds one scene per process in module globals (`data`, `context`), replaced by
`reset()`: not thread-safe, and not a sandbox (it runs programs in-process).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from tether.testing.minibpy import bmesh, mathutils, types
from tether.testing.minibpy.data import BlendData, Context, factory

data: BlendData
context: Context
app = SimpleNamespace(version=(4, 2, 0), version_string="4.2.0 (minibpy test double)",
                      background=True)


class _Operator:
    def __init__(self, idname: str) -> None:
        self.idname = idname

    def __call__(self, *args: Any, **kw: Any) -> set[str]:
        return call_operator(self.idname, *args, **kw)

    def __getattr__(self, name: str) -> _Operator:
        if name.startswith("_"):
            raise AttributeError(name)
        return _Operator(f"{self.idname}.{name}" if self.idname else name)


def call_operator(idname: str, *args: Any, **kw: Any) -> set[str]:
    """bpy.ops.* on minibpy: only a factory reset; the executor guards the rest."""
    if idname == "wm.read_factory_settings":
        reset(empty=bool(kw.get("use_empty", False)))
        return {"FINISHED"}
    raise RuntimeError(f"minibpy has no operator bpy.ops.{idname} (a test double)")


ops = _Operator("")


def reset(empty: bool = False) -> None:
    """Back to Blender's factory start-up scene (Cube, Camera, Light), or with `empty`
    to its empty file (one scene, nothing else), where the suite's base scripts start."""
    global data, context
    data, context = factory(empty)


reset()

__all__ = ["app", "bmesh", "context", "data", "mathutils", "ops", "reset", "types"]
