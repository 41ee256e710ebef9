"""The whole refiner on the minibpy double (milliseconds): factory scene, shared light data."""

from __future__ import annotations

from tether.systems.scene.executor import RenderSettings
from tether.systems.scene.record import SceneRecord
from tether.systems.scene.refiner import refine
from tether.testing.minibpy.executor import MiniBpyExecutor

R = RenderSettings(size=16, samples=1)
SHARED = ("import bpy\n"
          "lamp2 = bpy.data.objects.new('Lamp2', bpy.data.objects['Light'].data)\n"
          "bpy.context.scene.collection.objects.link(lamp2)\n")


def test_displaced_light_request_recovered_on_minibpy() -> None:
    with MiniBpyExecutor() as ex:
        z0 = SceneRecord(SHARED, ex.execute(SHARED))
        program = SHARED + ("bpy.data.objects['Lamp2'].data.energy = 10.0\n"
                            "bpy.data.objects['Light'].data.energy = 500.0\n")
        got = refine(program, executor=ex, previous=z0, initial=z0, render=R)
    assert got.accepted == "light_recovery_current" and got.executions == 1, got.tried
    assert got.delivered.program.endswith(
        "bpy.data.objects['Lamp2'].data = bpy.data.objects['Lamp2'].data.copy()\n"
        "bpy.data.objects['Lamp2'].data.energy = 10.0\n"
        "bpy.data.objects['Lamp2'].data.color = (1.0, 1.0, 1.0)\n")
    cells = got.delivered.execution.state["cells"]
    assert cells['bpy.data.lights["Light"].energy'] == 500.0
    assert cells['bpy.data.lights["Light.001"].energy'] == 10.0
    assert all(c["ok"] for c in got.checks.values())


def test_displaced_location_recovered_on_minibpy() -> None:
    with MiniBpyExecutor() as ex:
        z0 = SceneRecord("import bpy\n", ex.execute("import bpy\n"))
        program = ("import bpy\ncube = bpy.data.objects['Cube']\n"
                   "cube.location.x = 2\ncube.location.x = 0\n")
        got = refine(program, executor=ex, previous=z0, initial=z0, render=R)
    assert got.accepted == "recovery_current" and got.executions == 1
    assert got.delivered.execution.state["cells"]['bpy.data.objects["Cube"].location'][0] == 2.0


# One node group bound by two modifiers made with `modifiers.new` and written through
# those local aliases: Cube's write is displaced by Twin's on the shared group.
SHARED_GROUP = ("import bpy\ncube = bpy.data.objects['Cube']\n"
                "twin = bpy.data.objects.new('Twin', cube.data)\n"
                "bpy.context.scene.collection.objects.link(twin)\n"
                "tree = bpy.data.node_groups.new('G', 'GeometryNodeTree')\n"
                "tree.nodes.new('GeometryNodeTransform')\n")
ALIASED_EDIT = ("m1 = cube.modifiers.new('GN', 'NODES')\nm1.node_group = tree\n"
                "m1.node_group.nodes['Transform Geometry'].inputs[1].default_value[2] = 1.0\n"
                "m2 = twin.modifiers.new('GN', 'NODES')\nm2.node_group = tree\n"
                "m2.node_group.nodes['Transform Geometry'].inputs[1].default_value[2] = 0.0\n")
TRANSLATION = 'bpy.data.node_groups["{}"].nodes["Transform Geometry"].inputs[1].default_value'


def lifted(state: dict) -> dict[str, float]:
    """Each object's geometry-node translation z, through the group it is bound to."""
    groups = {b["from"][1]: b["to"][1] for b in state["bindings"]
              if b["path"] == 'modifiers["GN"].node_group'}
    return {obj: state["cells"][TRANSLATION.format(g)][2] for obj, g in groups.items()}


def test_shared_group_written_through_modifier_aliases_gets_a_copy_on_minibpy() -> None:
    with MiniBpyExecutor() as ex:
        z0 = SceneRecord(SHARED_GROUP, ex.execute(SHARED_GROUP))
        raw = ex.execute(SHARED_GROUP + ALIASED_EDIT)
        assert [e["via"] for e in raw.events if e["index"] == 2] == [["objects", "Cube"],
                                                                      ["objects", "Twin"]]
        assert lifted(raw.state) == {"Cube": 0.0, "Twin": 0.0}  # the shared write wins
        got = refine(SHARED_GROUP + ALIASED_EDIT, executor=ex, previous=z0, initial=z0,
                     render=R)
    assert got.accepted == "recovery_current" and got.executions == 1
    assert got.checks["bindings"]["rebound"] == [["Cube", 'modifiers["GN"].node_group']]
    assert lifted(got.delivered.execution.state) == {"Cube": 1.0, "Twin": 0.0}
