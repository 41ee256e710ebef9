"""The whole refiner on the minibpy double (milliseconds): factory scene, shared light data."""

from __future__ import annotations

from tether.scene.executor import RenderSettings
from tether.scene.minibpy.executor import MiniBpyExecutor
from tether.scene.record import SceneRecord
from tether.scene.refine import refine

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
