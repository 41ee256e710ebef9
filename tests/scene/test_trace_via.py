"""The tracer's `via`: the object a store was requested through, never guessed."""

from __future__ import annotations

import pytest

from tether.scene import trace

PROGRAM = """
import bpy
obj = bpy.data.objects["Cube"]
mat = bpy.data.materials.new("M")
mat.use_nodes = True
obj.active_material = mat
bsdf = obj.active_material.node_tree.nodes["Principled BSDF"]
bsdf.inputs[0].default_value = (1, 0, 0, 1)
bpy.data.objects["Light"].data.energy = 5
d = bpy.data.lights["Light"]
d.energy = 7
obj.location.x = 3
def f(x):
    x.energy = 9
f(bpy.data.objects["Light"].data)
for o in bpy.data.objects:
    o.hide_render = False
"""

EXPECTED = [
    (5, "use_nodes", None),  # a new material, requested through no object
    (6, "active_material", ["objects", "Cube"]),
    (8, 'node_tree.nodes["Principled BSDF"].inputs[0].default_value', ["objects", "Cube"]),
    (9, "energy", ["objects", "Light"]),  # through the chain
    (11, "energy", None),  # the data block by name: no object requested it
    (12, "location", ["objects", "Cube"]),
    (14, "energy", None),  # a helper's parameter: unknown, not guessed
    (17, "hide_render", ["objects", "Camera"]),
    (17, "hide_render", ["objects", "Cube"]),
    (17, "hide_render", ["objects", "Light"]),
]


def _via(events: list[dict]) -> list[tuple]:
    return [(e["line"], e["path"], e["via"]) for e in events]


def test_via_on_real_bpy() -> None:
    bpy = pytest.importorskip("bpy")
    bpy.ops.wm.read_factory_settings(use_empty=False)
    tracer = trace.Tracer()
    exec(trace.compile_traced(PROGRAM, "p.py"), {"__name__": "__main__",
                                                 trace.TRACER_NAME: tracer})
    assert _via(tracer.events) == EXPECTED
    assert tracer.unresolved == []


def test_via_on_minibpy_is_the_same() -> None:
    from tether.scene.minibpy.executor import MiniBpyExecutor

    with MiniBpyExecutor() as mini:
        result = mini.execute(PROGRAM)
    assert result.ok, result.error
    assert _via(result.events) == EXPECTED


def test_an_alias_of_a_plain_value_has_no_via() -> None:
    tracer = trace.Tracer(bpy=None)
    tracer._bpy = None
    env = {"__name__": "__main__", trace.TRACER_NAME: tracer}
    exec(trace.compile_traced("class A: pass\na = A()\nb = a.__class__\nb.x = 1\n"), env)
    assert env["A"].x == 1  # the store still happened
    assert tracer.events == [] and tracer.unresolved[0]["line"] == 4
