"""Plain-dict records for the refiner's unit tests (no Blender): two cubes sharing the
material Paint, two area lights sharing the light data Key, a point light Fill."""

from __future__ import annotations

import copy
import io
from typing import Any

from tether.systems.scene.executor import Execution
from tether.systems.scene.record import SceneRecord

SOCKET = 'node_tree.nodes["BSDF"].inputs[0].default_value'
BLUE, RED = [0.1, 0.2, 0.8, 1.0], [0.8, 0.05, 0.05, 1.0]


def png() -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (4, 4)).save(out, format="PNG")
    return out.getvalue()


def base_state() -> dict[str, Any]:
    cells = {
        'bpy.data.objects["Left"].location': [-1.0, 0.0, 0.0],
        'bpy.data.objects["Right"].location': [1.0, 0.0, 0.0],
        'bpy.data.objects["KeyL"].location': [-3.0, 0.0, 3.0],
        'bpy.data.objects["KeyR"].location': [3.0, 0.0, 3.0],
        'bpy.data.objects["Fill"].location': [0.0, -3.0, 1.0],
        f'bpy.data.materials["Paint"].{SOCKET}': list(BLUE),
        'bpy.data.lights["Key"].energy': 200.0,
        'bpy.data.lights["Key"].color': [1.0, 1.0, 1.0],
        'bpy.data.lights["Key"].size': 1.0,
        'bpy.data.lights["Fill"].energy': 100.0,
        'bpy.data.lights["Fill"].color': [1.0, 1.0, 1.0],
    }
    bindings = [
        {"from": ["objects", "Left"], "path": "data", "to": ["meshes", "CubeL"], "users": 1},
        {"from": ["objects", "Left"], "path": "material_slots[0].material",
         "to": ["materials", "Paint"], "users": 2},
        {"from": ["objects", "Right"], "path": "data", "to": ["meshes", "CubeR"], "users": 1},
        {"from": ["objects", "Right"], "path": "material_slots[0].material",
         "to": ["materials", "Paint"], "users": 2},
        {"from": ["objects", "KeyL"], "path": "data", "to": ["lights", "Key"], "users": 2},
        {"from": ["objects", "KeyR"], "path": "data", "to": ["lights", "Key"], "users": 2},
        {"from": ["objects", "Fill"], "path": "data", "to": ["lights", "Fill"], "users": 1},
    ]
    objects = {n: {"type": t, "parent": None, "modifiers": []} for n, t in (
        ("Left", "MESH"), ("Right", "MESH"), ("KeyL", "LIGHT"), ("KeyR", "LIGHT"),
        ("Fill", "LIGHT"))}
    meshes = {m: {"vertices": 8, "faces": 6, "users": 1, "bounds": [[-1] * 3, [1] * 3]}
              for m in ("CubeL", "CubeR")}
    links = {"materials": {"Paint": [["BSDF", "BSDF", "Out", "Surface"]]}}
    return {"cells": dict(sorted(cells.items())), "bindings": bindings,
            "structure": {"objects": objects, "meshes": meshes, "links": links}}


def event(owner: list[str], path: str, value: Any, via: str | None = None,
          index: int | None = None, kind: str = "assign", line: int = 1) -> dict[str, Any]:
    return {"owner": owner, "path": path, "index": index, "value": value, "readback": value,
            "line": line, "kind": kind, "via": None if via is None else ["objects", via]}


def record(program: str = "import bpy\n", events: list | None = None,
           cells: dict | None = None, state: dict | None = None, ok: bool = True,
           rendered: bool = True) -> SceneRecord:
    s = copy.deepcopy(state) if state is not None else base_state()
    s["cells"].update(cells or {})
    ex = Execution(ok=ok, events=events or [], state=s if ok else None,
                   render_png=png() if rendered and ok else None)
    return SceneRecord(program, ex)
