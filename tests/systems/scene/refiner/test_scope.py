"""keep_other_writes: what a submission changed outside the light channel a projection
covers, on plain-dict records (states.py: lights Key (shared by KeyL, KeyR) and Fill)."""

from __future__ import annotations

import copy
from dataclasses import replace

from tether.systems.scene.record import SceneRecord
from tether.systems.scene.refiner import projection, scope

from .states import event, record

FILL_E, FILL_C = 'bpy.data.lights["Fill"].energy', 'bpy.data.lights["Fill"].color'
LEFT = 'bpy.data.objects["Left"].location'


def test_a_light_only_edit_changes_nothing_else() -> None:
    prev = record()
    raw = record(cells={FILL_E: 50.0, FILL_C: [1.0, 0.5, 0.5]})
    owners = projection.in_scope(raw, prev)
    assert owners == ["Fill"] and scope.other_writes(raw, prev, owners) == []


def test_cells_outside_the_channel_are_other_writes() -> None:
    prev = record()
    raw = record(cells={FILL_E: 50.0, LEFT: [0.0, 0.0, 0.0],
                        'bpy.data.lights["Key"].size': 2.0})  # Key's size: not the channel
    found = scope.other_writes(raw, prev, projection.in_scope(raw, prev))
    assert found == ['bpy.data.lights["Key"].size', LEFT]
    # the same energy change through an owner out of scope is another write too
    assert scope.other_writes(raw, prev, []) == [FILL_E, 'bpy.data.lights["Key"].size', LEFT]


def test_bindings_structure_and_new_blocks_are_other_writes() -> None:
    prev = record()
    state = copy.deepcopy(prev.execution.state)
    state["bindings"][0]["to"] = ["meshes", "CubeR"]  # Left now uses Right's mesh
    state["structure"]["meshes"]["CubeL"]["vertices"] = 24
    state["cells"]['bpy.data.materials["Paint.001"].roughness'] = 0.5  # a new block's cell
    raw = record(state=state)
    assert scope.other_writes(raw, prev, []) == [
        'bpy.data.materials["Paint.001"].roughness', "the binding Left.data",
        "the mesh CubeL"]
    state = copy.deepcopy(prev.execution.state)
    state["structure"]["meshes"]["CubeL"]["users"] = 3  # users change with copies: not shape
    assert scope.other_writes(record(state=state), prev, []) == []


def test_uncaptured_writes_must_end_where_the_previous_program_left_them() -> None:
    engine = event(["scenes", "Scene"], "render.engine", "CYCLES")
    prev = record(events=[engine])
    same = record(events=[event(["scenes", "Scene"], "render.engine", "EEVEE"), engine])
    assert scope.other_writes(same, prev, []) == []  # the last value is the previous one
    other = record(events=[event(["scenes", "Scene"], "render.resolution_x", 99, index=None)])
    assert scope.other_writes(other, prev, []) == [
        'bpy.data.scenes["Scene"].render.resolution_x']
    captured = record(events=[event(["objects", "Left"], "location", 1.0, index=0)])
    assert scope.other_writes(captured, prev, []) == []  # a captured cell: compared as a cell


def test_unknown_effects_are_other_writes() -> None:
    prev = record()
    raw = record()
    truncated = SceneRecord(raw.program, replace(raw.execution, truncated=True))
    assert scope.other_writes(truncated, prev, []) == [
        "the submission's trace is truncated (its writes are not all known)"]
    unresolved = [{"target": "v.x", "reason": "alias", "line": 3}]
    vague = SceneRecord(raw.program, replace(raw.execution, unresolved=unresolved))
    assert scope.other_writes(vague, prev, []) == ["an unattributed write to v.x (alias)"]
    both = SceneRecord(prev.program, replace(prev.execution, unresolved=unresolved))
    assert scope.other_writes(vague, both, []) == []  # the previous program has it too
    assert scope.other_writes(record(ok=False), prev, []) == ["a state was not observed"]


def test_describe_lists_five_then_counts() -> None:
    assert scope.describe(["a", "b"]) == "a, b"
    assert scope.describe([str(i) for i in range(8)]) == "0, 1, 2, 3, 4 and 3 more"
