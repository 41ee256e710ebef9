"""minibpy (the test double) against real bpy: the same program text gives the same
trace events, unresolved records and state on both backends."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tether.testing.minibpy.executor import MiniBpyExecutor

# Each program covers one feature; the shared-data ones are what the refiner exists for.
PROGRAMS = {
    "transforms": """
import bpy
cube = bpy.data.objects["Cube"]
cube.location.x = 2.0
cube.location[1] += 1.5
cube.scale = (2, 2, 0.3)
a, (cube.rotation_euler.z, b) = 1, (0.3, 2)
cube.rotation_euler = (0.1, 0.2, 0.3)
loc = cube.location
loc.z = 4
cube.hide_render = True
setattr(cube, "hide_viewport", 1)
""",
    "camera": """
import bpy
cam = bpy.data.objects["Camera"]
cam.data.lens = 0.5
cam.data.sensor_width = 24.5
cam.data.shift_x, cam.data.shift_y = 0.1, -0.2
cam.data.clip_start = 0.0
cam.data.clip_end = 250
cam2 = bpy.data.objects.new("Cam2", bpy.data.cameras.new("Cam2"))
bpy.context.scene.collection.objects.link(cam2)
bpy.context.scene.camera = cam2
cam2.location = (0, -10, 0)
""",
    "lights": """
import bpy
light = bpy.data.lights["Light"]
light.energy = 250.5
light.color = (1.0, 0.5, 0.25)
light.color[2] = -1
light.shadow_soft_size = 0.5
sun = bpy.data.lights.new("Sun", "SUN")
sun.angle = 9.0
sun_obj = bpy.data.objects.new("Sun", sun)
bpy.context.scene.collection.objects.link(sun_obj)
spot = bpy.data.lights.new("Spot", type="SPOT")
spot.spot_size = 0.0
spot.spot_blend = 0.3
""",
    "material": """
import bpy
cube = bpy.data.objects["Cube"]
mat = bpy.data.materials.new("Red")
mat.use_nodes = True
bsdf = mat.node_tree.nodes["Principled BSDF"]
bsdf.inputs["Roughness"].default_value = 0.25
bsdf.inputs["Base Color"].default_value = (0.9, 0.1, 0.1, 1.0)
bsdf.inputs[0].default_value[1] = -0.5
bsdf.inputs["Metallic"].default_value = 3
cube.data.materials.append(mat)
cube.active_material_index = 1
cube.active_material = mat
cube.material_slots[0].material = mat
world = bpy.data.worlds["World"]
world.node_tree.nodes["Background"].inputs["Strength"].default_value = 0.5
""",
    "shared_mesh": """
import bpy
cube = bpy.data.objects["Cube"]
twin = bpy.data.objects.new("Twin", cube.data)
bpy.context.scene.collection.objects.link(twin)
twin.location.x = 3
twin.data = twin.data.copy()
twin.data.materials[0] = None
cube.data.materials.append(None)
""",
    "shared_material": """
import bpy
cube = bpy.data.objects["Cube"]
other = bpy.data.meshes.new("Other")
other.from_pydata([(0, 0, 0), (1, 0, 0), (0, 1, 0)], [], [(0, 1, 2)])
other.materials.append(cube.active_material)
obj = bpy.data.objects.new("Tri", other)
bpy.context.scene.collection.objects.link(obj)
bsdf = obj.active_material.node_tree.nodes["Principled BSDF"]
bsdf.inputs["Base Color"].default_value = (0.1, 0.8, 0.1, 1)
mine = obj.material_slots[0].material.copy()
obj.material_slots[0].material = mine
mine.node_tree.nodes["Principled BSDF"].inputs[0].default_value[0] = 1.0
""",
    "shared_light": """
import bpy
lamp = bpy.data.objects["Light"]
lamp2 = bpy.data.objects.new("Light2", lamp.data)
bpy.context.scene.collection.objects.link(lamp2)
lamp2.location = (-4, 0, 3)
lamp2.data.energy = 50
lamp2.data = lamp2.data.copy()
lamp2.data.energy = 75
lamp2.data.color.g = 0.0
""",
    "shape_keys": """
import bpy
cube = bpy.data.objects["Cube"]
cube.shape_key_add(name="Basis")
key = cube.shape_key_add(name="Key 1", from_mix=False)
blocks = cube.data.shape_keys.key_blocks
blocks["Key 1"].value = 2.0
key.slider_max = 2.0
blocks["Key 1"].value = 1.5
cube.data.shape_keys.key_blocks["Key 1"].slider_min = -20
""",
    "geometry_nodes": """
import bpy
group = bpy.data.node_groups.new("Grow", "GeometryNodeTree")
group.interface.new_socket(name="Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
size = group.interface.new_socket(name="Size", in_out="INPUT", socket_type="NodeSocketFloat")
count = group.interface.new_socket(name="Count", in_out="INPUT", socket_type="NodeSocketInt")
group.interface.new_socket(name="Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
cube = bpy.data.objects["Cube"]
mod = cube.modifiers.new("GeometryNodes", "NODES")
mod.node_group = group
mod[size.identifier] = 0.3
cube.modifiers["GeometryNodes"]["Socket_2"] = 4
twin = bpy.data.objects.new("Twin", cube.data)
mod2 = twin.modifiers.new("GN", "NODES")
mod2.node_group = group
mod2["Socket_1"] = 7
""",
    "raises": """
import bpy
bpy.data.cameras["Camera"].lens = 35
bpy.data.objects["Cube"]["tag"] = 0.1
bpy.data.objects["Cube"].location = (1, 2)
""",
}


def comparable(r) -> dict:
    error = r.error and {k: r.error[k] for k in ("kind", "type", "line")}
    return {"ok": r.ok, "error": error, "events": r.events, "unresolved": r.unresolved,
            "state": r.state, "truncated": r.truncated}


@pytest.fixture(scope="module")
def mini() -> MiniBpyExecutor:
    return MiniBpyExecutor()


@pytest.fixture(scope="module")
def real() -> Iterator:
    pytest.importorskip("bpy")
    from tether.sandbox import BwrapSandbox, SandboxUnavailable
    from tether.systems.scene.executor import SceneExecutor

    try:
        sandbox = BwrapSandbox()
    except SandboxUnavailable as exc:
        pytest.skip(f"bwrap unavailable: {exc}")
    with SceneExecutor(sandbox=sandbox, timeout_s=60) as executor:
        yield executor


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_same_trace_and_state_as_bpy(name: str, mini: MiniBpyExecutor, real) -> None:
    expected = comparable(real.execute(PROGRAMS[name], filename="p.py"))
    got = comparable(mini.execute(PROGRAMS[name], filename="p.py"))
    assert expected["ok"] == (name != "raises") and expected["events"]
    for part in ("ok", "error", "events", "unresolved", "truncated"):
        assert got[part] == expected[part], part
    for part in ("cells", "bindings", "structure"):
        assert got["state"][part] == expected["state"][part], part


def test_a_different_program_gives_a_different_state(mini: MiniBpyExecutor) -> None:
    a = mini.execute(PROGRAMS["lights"])
    b = mini.execute(PROGRAMS["lights"].replace("250.5", "251"))
    assert a.state != b.state and a.events != b.events


def test_state_holds_shape_keys_modifier_inputs_bounds_and_links(real) -> None:
    """The cells and structure a repair needs, on bpy (and so, by the test above, minibpy)."""
    gn = real.execute(PROGRAMS["geometry_nodes"]).state
    cells = gn["cells"]
    assert cells['bpy.data.objects["Cube"].modifiers["GeometryNodes"]["Socket_2"]'] == 4
    assert cells['bpy.data.objects["Twin"].modifiers["GN"]["Socket_1"]'] == 7.0
    groups = [b for b in gn["bindings"] if b["path"].endswith(".node_group")]
    assert [(b["from"][1], b["to"], b["users"]) for b in groups] == [
        ("Cube", ["node_groups", "Grow"], 2), ("Twin", ["node_groups", "Grow"], 2)]
    assert gn["structure"]["meshes"]["Cube"]["bounds"] == [[-1.0] * 3, [1.0] * 3]
    assert gn["structure"]["links"]["materials"]["Material"] == [
        ["Principled BSDF", "BSDF", "Material Output", "Surface"]]
    keys = real.execute(PROGRAMS["shape_keys"]).state["cells"]
    assert keys['bpy.data.shape_keys["Key"].key_blocks["Key 1"].value'] == 1.5
    plain = real.execute("import bpy").state
    assert not any("modifiers" in c or "shape_keys" in c for c in plain["cells"])
