"""The tracer's `via`: the object a store was requested through, never guessed."""

from __future__ import annotations

import pytest

from tether.systems.scene import trace

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
    from tether.testing.minibpy.executor import MiniBpyExecutor

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


# Aliases made by a method call and followed through assignment chains: a modifier from
# `modifiers.new`, its node group reached through it, the alias passed on by name.
SHARED_GROUP = """import bpy
cube = bpy.data.objects['Cube']
twin = bpy.data.objects.new('Twin', cube.data)
bpy.context.scene.collection.objects.link(twin)
tree = bpy.data.node_groups.new('G', 'GeometryNodeTree')
tree.nodes.new('GeometryNodeTransform')
"""
ALIASES = """m1 = cube.modifiers.new('GN', 'NODES')
m1.node_group = tree
m1.node_group.nodes['Transform Geometry'].inputs[1].default_value[2] = 1.0
m2 = twin.modifiers.new('GN', 'NODES')
m2.node_group = tree
same = m2
group = same.node_group
def lift(mod, z):
    mod.node_group.nodes['Transform Geometry'].inputs[1].default_value[2] = z
lift(m2, 0.0)
ld = bpy.data.objects['Light'].data
ld.energy = 20.0
tree.nodes['Transform Geometry'].inputs[1].default_value[0] = 0.5
"""
ALIAS_EXPECTED = [
    (8, 'modifiers["GN"].node_group', None, ["objects", "Cube"]),
    (9, 'nodes["Transform Geometry"].inputs[1].default_value', 2, ["objects", "Cube"]),
    (11, 'modifiers["GN"].node_group', None, ["objects", "Twin"]),
    (15, 'nodes["Transform Geometry"].inputs[1].default_value', 2, ["objects", "Twin"]),
    (18, "energy", None, ["objects", "Light"]),
    # the shared group by its own name: reached through Twin, Cube and bpy.data: ambiguous
    (19, 'nodes["Transform Geometry"].inputs[1].default_value', 0, None),
]


def _aliases(events: list[dict]) -> list[tuple]:
    return [(e["line"], e["path"], e["index"], e["via"]) for e in events]


def test_via_follows_method_call_aliases_on_real_bpy() -> None:
    bpy = pytest.importorskip("bpy")
    bpy.ops.wm.read_factory_settings(use_empty=False)
    tracer = trace.Tracer()
    exec(trace.compile_traced(SHARED_GROUP + ALIASES, "p.py"),
         {"__name__": "__main__", trace.TRACER_NAME: tracer})
    assert _aliases(tracer.events[-6:]) == ALIAS_EXPECTED and tracer.unresolved == []
    constraint = ("import bpy\nc = bpy.data.objects['Cube'].constraints.new('COPY_LOCATION')\n"
                  "c.influence = 0.5\n")
    bpy.ops.wm.read_factory_settings(use_empty=False)
    tracer = trace.Tracer()
    exec(trace.compile_traced(constraint, "c.py"), {"__name__": "__main__",
                                                    trace.TRACER_NAME: tracer})
    assert _aliases(tracer.events) == [(3, 'constraints["Copy Location"].influence', None,
                                        ["objects", "Cube"])]


def test_via_follows_method_call_aliases_on_minibpy_the_same() -> None:
    from tether.testing.minibpy.executor import MiniBpyExecutor

    with MiniBpyExecutor() as mini:
        result = mini.execute(SHARED_GROUP + ALIASES)
    assert result.ok, result.error
    assert _aliases(result.events[-6:]) == ALIAS_EXPECTED and result.unresolved == []
