"""Tracer and state capture in-process on real Blender (bpy 4.2)."""

from __future__ import annotations

import pytest

bpy = pytest.importorskip("bpy")

from tether.systems.scene import state, trace  # noqa: E402

PROGRAM = """
import bpy
cam = bpy.data.objects["Camera"]
cam.data.lens = 0.5
cube = bpy.data.objects["Cube"]
cube.location.x = 2.0
cube.location[1] += 1.5
cube.scale = (2, 2, 2)
a, (cube.rotation_euler.z, b) = 1, (0.3, 2)
mat = bpy.data.materials.new("Red")
mat.use_nodes = True
bsdf = mat.node_tree.nodes["Principled BSDF"]
bsdf.inputs["Roughness"].default_value = 0.25
bsdf.inputs[0].default_value[0] = 0.9
cube.data.materials.append(mat)
cube.active_material = mat
setattr(bpy.data.lights["Light"], "energy", 500)
loc = cube.location
loc.z = 4
"""


def fresh() -> None:
    bpy.ops.wm.read_factory_settings(use_empty=False)


def execute(source: str, traced: bool) -> tuple[dict, trace.Tracer]:
    fresh()
    tracer = trace.Tracer()
    env = {"__name__": "__main__", trace.TRACER_NAME: tracer}
    code = trace.compile_traced(source, "p.py") if traced else compile(source, "p.py", "exec")
    exec(code, env)
    return state.capture(bpy), tracer


def test_owners_paths_indices_and_readbacks() -> None:
    _, tracer = execute(PROGRAM, traced=True)
    got = {(tuple(e["owner"]), e["path"], e["index"]): e for e in tracer.events}
    lens = got[(("cameras", "Camera"), "lens", None)]
    assert (lens["value"], lens["readback"]) == (0.5, 1.0)  # clamped, seen by the readback
    assert got[(("objects", "Cube"), "location", 0)]["readback"] == 2.0
    assert got[(("objects", "Cube"), "location", 1)]["kind"] == "aug"
    assert got[(("objects", "Cube"), "scale", None)]["readback"] == [2.0, 2.0, 2.0]
    assert (("objects", "Cube"), "rotation_euler", 2) in got
    socket = 'node_tree.nodes["Principled BSDF"].inputs[2].default_value'
    assert got[(("materials", "Red"), socket, None)]["readback"] == 0.25
    base = 'node_tree.nodes["Principled BSDF"].inputs[0].default_value'
    assert (("materials", "Red"), base, 0) in got
    assert got[(("objects", "Cube"), "active_material", None)]["kind"] == "binding"
    assert got[(("lights", "Light"), "energy", None)]["kind"] == "setattr"
    assert len(tracer.events) == 10
    # the alias of a vector has no statement-local owner: unresolved, with its line
    assert [(u["line"], u["target"]) for u in tracer.unresolved] == [(19, ".z")]


def test_traced_and_untraced_runs_end_in_identical_state() -> None:
    untraced, _ = execute(PROGRAM, traced=False)
    traced, _ = execute(PROGRAM, traced=True)
    assert traced == untraced
    assert untraced["cells"]['bpy.data.cameras["Camera"].lens'] == 1.0
    different, _ = execute(PROGRAM.replace("0.25", "0.75"), traced=True)
    assert different != untraced  # the comparison can fail


def test_state_capture_cells_bindings_structure() -> None:
    fresh()
    bpy.data.objects["Cube"].location.x = 1.5
    shared = bpy.data.objects["Cube"].copy()  # a linked duplicate shares the mesh
    bpy.context.scene.collection.objects.link(shared)
    s = state.capture(bpy)
    assert s["cells"]['bpy.data.objects["Cube"].location'][0] == 1.5
    assert s["cells"]['bpy.data.lights["Light"].energy'] == 1000.0
    mesh_bindings = [b for b in s["bindings"] if b["to"] == ["meshes", "Cube"]]
    assert len(mesh_bindings) == 2 and all(b["users"] == 2 for b in mesh_bindings)
    assert s["structure"]["meshes"]["Cube"] == {"vertices": 8, "faces": 6, "users": 2,
                                                "bounds": [[-1.0] * 3, [1.0] * 3]}
    assert set(s["structure"]["objects"]) == {"Camera", "Cube", "Cube.001", "Light"}
