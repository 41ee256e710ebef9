"""The patch dialect: deterministic text, copy-and-rebind for shared data, and patches
that run on both backends (minibpy always; real bpy when installed)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tether.systems.scene.patch import (
    CellWrite,
    compile_patch,
    diff_writes,
    format_value,
    parse_cell,
)
from tether.testing.minibpy.executor import MiniBpyExecutor

LIGHT = 'bpy.data.lights["Light"].energy'
CUBE = 'bpy.data.objects["Cube"].location'
BASE = 'bpy.data.materials["Material"].node_tree.nodes["Principled BSDF"].inputs[0].default_value'
# Two objects share the light data, and two share the mesh (so its material slot too).
SHARED = """import bpy
lamp2 = bpy.data.objects.new("Lamp2", bpy.data.objects["Light"].data)
bpy.context.scene.collection.objects.link(lamp2)
twin = bpy.data.objects.new("Twin", bpy.data.objects["Cube"].data)
bpy.context.scene.collection.objects.link(twin)
"""
TARGET = """import bpy
bpy.data.objects["Cube"].location = (1.5, -2.25, 0.3)
bpy.data.lights["Light"].energy = 123.4
bpy.data.cameras["Camera"].lens = 0.5
bpy.data.materials["Material"].node_tree.nodes["Principled BSDF"].inputs[0].default_value = (
    0.9, 0.1, 0.1, 1)
"""


def test_values_are_formatted_reproducibly() -> None:
    assert format_value(0.30000001192092896) == "0.3"  # a C float's shortest text
    assert format_value(1.0) == "1.0" and format_value(7) == "7" and format_value(True) == "True"
    assert format_value([0.800000011920929, 1e20]) == "(0.8, 1e+20)"
    assert format_value({"id": ["materials", "M"]}) == "bpy.data.materials['M']"
    with pytest.raises(ValueError):
        format_value(float("nan"))
    assert parse_cell(BASE)[:2] == ("materials", "Material")
    with pytest.raises(ValueError):
        parse_cell("objects.Cube.location")


def test_output_is_sorted_whatever_the_input_order() -> None:
    writes = [CellWrite(LIGHT, 500.0), CellWrite(CUBE, 2.0, index=0), CellWrite(CUBE, [1, 2, 3])]
    text = compile_patch(writes)
    assert text == compile_patch(list(reversed(writes)))
    assert text == ("import bpy\n"
                    "bpy.data.lights['Light'].energy = 500.0\n"
                    "bpy.data.objects['Cube'].location = (1, 2, 3)\n"
                    "bpy.data.objects['Cube'].location[0] = 2.0\n")
    with pytest.raises(ValueError):
        compile_patch([CellWrite(LIGHT, 1.0), CellWrite(LIGHT, 2.0)])


def test_shared_data_is_copied_and_rebound_for_one_object_only() -> None:
    ex = MiniBpyExecutor()
    state = ex.execute(SHARED).state
    writes = [CellWrite(LIGHT, 75.0, only_for="Lamp2"),
              CellWrite(BASE, 1.0, index=0, only_for="Twin"),
              CellWrite(CUBE, 2.0, index=2)]
    text = compile_patch(writes, state)
    assert text == (
        "import bpy\n"
        "bpy.data.objects['Cube'].location[2] = 2.0\n"
        "bpy.data.objects['Lamp2'].data = bpy.data.objects['Lamp2'].data.copy()\n"
        "bpy.data.objects['Lamp2'].data.energy = 75.0\n"
        "bpy.data.objects['Twin'].data = bpy.data.objects['Twin'].data.copy()\n"
        "bpy.data.objects['Twin'].material_slots[0].material = "
        "bpy.data.objects['Twin'].material_slots[0].material.copy()\n"
        "bpy.data.objects['Twin'].material_slots[0].material.node_tree.nodes"
        "[\"Principled BSDF\"].inputs[0].default_value[0] = 1.0\n")
    after = ex.execute(SHARED + text)
    assert after.ok, after.error
    cells = after.state["cells"]
    assert cells[LIGHT] == 1000.0 and cells['bpy.data.lights["Light.001"].energy'] == 75.0
    assert cells[BASE][0] == pytest.approx(0.8)  # the Cube keeps its material
    copy = BASE.replace('"Material"', '"Material.001"')
    assert cells[copy][0] == 1.0
    # without a shared block the write goes by name; an unknown binding is refused
    assert "copy()" not in compile_patch([CellWrite(LIGHT, 5.0, only_for="Light")],
                                         ex.execute("x = 1").state)
    with pytest.raises(ValueError):
        compile_patch([CellWrite(LIGHT, 5.0, only_for="Cube")], state)
    with pytest.raises(ValueError):
        compile_patch([CellWrite(LIGHT, 5.0, only_for="Lamp2")])


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


def test_patch_is_byte_identical_from_both_backends_and_runs_on_both(real) -> None:
    mini = MiniBpyExecutor()
    patches, targets = [], []
    for ex in (mini, real):
        base = ex.execute("x = 1").state
        target = ex.execute(TARGET).state
        writes = diff_writes(base, target)
        assert len(writes) == 4 and diff_writes(base, base) == []
        patches.append(compile_patch(writes))
        targets.append(target)
    assert patches[0] == patches[1]
    assert "lens = 1.0" in patches[0]  # the clamped value the state holds
    for ex, target in zip((mini, real), targets, strict=True):
        after = ex.execute(patches[0])
        assert after.ok and after.state["cells"] == target["cells"]


def test_copy_and_rebind_runs_the_same_on_both_backends(real) -> None:
    states = []
    for ex in (MiniBpyExecutor(), real):
        state = ex.execute(SHARED).state
        text = compile_patch([CellWrite(LIGHT, 75.0, only_for="Lamp2"),
                              CellWrite(BASE, 1.0, index=0, only_for="Twin")], state)
        after = ex.execute(SHARED + text)
        assert after.ok, after.error
        states.append(after.state)
    assert states[0] == states[1]
    assert states[0]["cells"][LIGHT] == 1000.0


# A shape key and a geometry-node modifier input: cells a repair writes like any other.
KEYED = """import bpy
cube = bpy.data.objects["Cube"]
cube.shape_key_add(name="Basis")
cube.shape_key_add(name="Lift", from_mix=False)
group = bpy.data.node_groups.new("Grow", "GeometryNodeTree")
group.interface.new_socket(name="Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
group.interface.new_socket(name="Size", in_out="INPUT", socket_type="NodeSocketFloat")
cube.modifiers.new("GN", "NODES").node_group = group
"""
KEYED_GOAL = """
cube.data.shape_keys.key_blocks["Lift"].value = 0.7
cube.modifiers["GN"]["Socket_1"] = 2.5
"""


def test_shape_key_values_and_modifier_inputs_are_patched_on_both_backends(real) -> None:
    patches, targets = [], []
    for ex in (MiniBpyExecutor(), real):
        base = ex.execute(KEYED).state
        target = ex.execute(KEYED + KEYED_GOAL).state
        writes = diff_writes(base, target)
        assert [w.cell for w in writes] == [
            'bpy.data.objects["Cube"].modifiers["GN"]["Socket_1"]',
            'bpy.data.shape_keys["Key"].key_blocks["Lift"].value',
        ]
        patches.append(compile_patch(writes))
        targets.append(target)
    assert patches[0] == patches[1]
    assert "modifiers[\"GN\"][\"Socket_1\"] = 2.5" in patches[0]
    for ex, target in zip((MiniBpyExecutor(), real), targets, strict=True):
        after = ex.execute(KEYED + patches[0])
        assert after.ok, after.error
        assert after.state["cells"] == target["cells"]


def test_a_shape_key_of_a_shared_mesh_is_written_on_a_mesh_copy() -> None:
    ex = MiniBpyExecutor()
    shared = KEYED.split("group =")[0] + (
        "twin = bpy.data.objects.new('Twin', cube.data)\n"
        "bpy.context.scene.collection.objects.link(twin)\n")
    state = ex.execute(shared).state
    key = 'bpy.data.shape_keys["Key"].key_blocks["Lift"].value'
    text = compile_patch([CellWrite(key, 0.7, only_for="Twin")], state)
    assert text == ("import bpy\n"
                    "bpy.data.objects['Twin'].data = bpy.data.objects['Twin'].data.copy()\n"
                    "bpy.data.objects['Twin'].data.shape_keys.key_blocks[\"Lift\"].value = 0.7\n")
    after = ex.execute(shared + text)
    assert after.ok, after.error
    cells = after.state["cells"]
    assert cells[key] == 0.0 and cells[key.replace('"Key"', '"Key.001"')] == pytest.approx(0.7)
    unshared = ex.execute(KEYED).state  # one user: written by name
    assert compile_patch([CellWrite(key, 0.7, only_for="Cube")], unshared) == (
        f"import bpy\nbpy.data.shape_keys['Key'].{key.split('].', 1)[1]} = 0.7\n")
