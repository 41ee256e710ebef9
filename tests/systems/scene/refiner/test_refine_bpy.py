"""The refiner on real Blender (bpy 4.2) with bundled suite tasks, tiny renders.

One warm executor serves every task of the module (TaskScenes' base_dir). Each test
asserts the accepted alternative, the delivered program, the executions used and the
contract's values.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("bpy")

from tether.systems.scene.executor import RenderSettings  # noqa: E402
from tether.systems.scene.record import Refinement, SceneRecord  # noqa: E402
from tether.systems.scene.refiner import MAX_EXTRA_EXECUTIONS, refine  # noqa: E402
from tether.systems.scene.refiner.candidate import Candidate, Endpoint  # noqa: E402
from tether.systems.scene.scenes import TaskScenes  # noqa: E402
from tether.systems.scene.tasks import bundled_tasks_dir, load_task  # noqa: E402

R = RenderSettings(size=64, samples=4)
BASE_COLOR = 'node_tree.nodes["Principled BSDF"].inputs[0].default_value'


@pytest.fixture(scope="module")
def scenes(tmp_path_factory, bwrap) -> Iterator[TaskScenes]:
    with TaskScenes(tmp_path_factory.mktemp("scene-cache")) as s:
        yield s


def run(scenes: TaskScenes, task: str, program: str, previous: str | None = None,
        **kw) -> tuple[Refinement, SceneRecord]:
    t = load_task(bundled_tasks_dir() / task)
    base = scenes.staged(t)
    z0 = SceneRecord(t.start, scenes.executor.execute(t.start, base=base))
    prev = z0 if previous is None else SceneRecord(
        previous, scenes.executor.execute(previous, base=base, render=R))
    got = refine(program, executor=scenes.executor, previous=prev, initial=z0, render=R,
                 base=base, **kw)
    return got, prev


def outcomes(got: Refinement) -> dict[str, str]:
    return {t["alternative"]: t["outcome"] for t in got.tried}


def tail(got: Refinement) -> str:
    assert got.delivered is not None
    return got.delivered.program.split("# tether refine: ")[1]


def test_shared_material_displacement_recovered_by_a_local_copy(scenes: TaskScenes) -> None:
    program = (
        "import bpy\n"
        "right = bpy.data.objects['Right']\n"
        f"right.active_material.{BASE_COLOR} = (0.8, 0.05, 0.05, 1.0)\n"
        "left = bpy.data.objects['Left']\n"
        f"left.active_material.{BASE_COLOR} = (0.1, 0.2, 0.8, 1.0)\n"
    )  # one shared material: Left's write repaints Right blue too
    got, _ = run(scenes, "material_right_red", program)
    assert got.accepted == "recovery_current" and got.executions == 1
    slot = "bpy.data.objects['Right'].material_slots[0].material"
    assert tail(got) == (f"recovery_current\nimport bpy\n{slot} = {slot}.copy()\n"
                         f"{slot}.{BASE_COLOR} = (0.8, 0.05, 0.05, 1.0)\n")
    (end,) = got.checks["endpoints"]["values"]
    assert end["cell"] == f'bpy.data.materials["Paint.001"].{BASE_COLOR}' and end["ok"]
    assert end["observed"][:3] == pytest.approx([0.8, 0.05, 0.05])
    cells = got.delivered.execution.state["cells"]
    assert cells[f'bpy.data.materials["Paint"].{BASE_COLOR}'][:3] == pytest.approx(
        [0.1, 0.2, 0.8])  # Left keeps the shared material, blue
    assert got.checks["scope"]["copies"] == [[["materials", "Paint.001"],
                                              ["materials", "Paint"]]]
    assert all(c["ok"] for c in got.checks.values()) and got.delivered.rendered


def test_shared_light_data_recovered(scenes: TaskScenes) -> None:
    program = ("import bpy\n"
               "bpy.data.objects['KeyL'].data.energy = 0.0\n"
               "bpy.data.objects['KeyR'].data.energy = 200.0\n")  # one data block: both 200
    got, _ = run(scenes, "lighting_key_left_off", program)
    assert got.accepted == "light_recovery_current" and got.executions == 1
    assert outcomes(got)["recovery_current"] == "unavailable"
    obj = "bpy.data.objects['KeyL']"
    assert tail(got) == (f"light_recovery_current\nimport bpy\n{obj}.data = {obj}.data.copy()\n"
                         f"{obj}.data.energy = 0.0\n{obj}.data.color = (1.0, 1.0, 1.0)\n")
    values = {(v["cell"], v["owner"]): v["observed"] for v in got.checks["endpoints"]["values"]}
    assert values[('bpy.data.lights["Key.001"].energy', "KeyL")] == 0.0
    cells = got.delivered.execution.state["cells"]
    assert cells['bpy.data.lights["Key"].energy'] == 200.0  # KeyR keeps the shared data
    assert got.checks["bindings"]["rebound"] == [["KeyL", "data"]]


def test_projection_when_the_raw_program_also_moved_a_protected_object(
        scenes: TaskScenes) -> None:
    program = ("import bpy\n"
               "fill = bpy.data.objects['Fill']\n"
               "fill.data.energy = 200.0\n"
               "fill.data.color = (1.0, 0.5, 0.5)\n"
               "bpy.data.objects['Camera'].location.z = 5.0\n")
    got, prev = run(scenes, "lighting_fill_energy", program,  # previous: start, Fill 100
                    projection_scope="paper")
    skipped = next(t for t in got.tried if t["alternative"] == "projection_full")
    assert skipped["outcome"].startswith("skipped: endpoints match")
    assert not skipped["checks"]["frames"]["ok"]
    assert skipped["checks"]["frames"]["first"][0]["cell"] == 'bpy.data.objects["Camera"].location'
    assert got.accepted == "projection_half" and got.executions == 1
    assert got.delivered.program.startswith(prev.program.rstrip())  # into the previous program
    assert tail(got) == ("projection_half\nimport bpy\nbpy.data.lights['Fill'].energy = 150.0\n"
                         "bpy.data.lights['Fill'].color = (1.0, 0.6666667, 0.6666667)\n")
    (end,) = got.checks["endpoints"]["values"]
    assert end["required"] == [150.0, 100.0, 100.0]  # phi(S-) + (phi(St) - phi(S-)) / 2
    assert end["observed"] == pytest.approx([150.0, 100.0, 100.0], rel=1e-6)
    assert got.checks["frames"]["ok"] and got.checks["preservation"]["changed"] == 0


def test_the_seeds_schematic_skip_is_not_executed(scenes: TaskScenes) -> None:
    previous = "import bpy\nbpy.data.objects['Fill'].data.energy = 1.0\n"
    program = ("import bpy\nbpy.data.objects['Fill'].data.energy = 2.0\n"
               "bpy.data.objects['Statue'].location.x = 5.0\n")  # Statue at x = 0 before
    got, _ = run(scenes, "lighting_fill_energy", program, previous=previous,
                 projection_scope="paper")
    full = next(t for t in got.tried if t["alternative"] == "projection_full")
    assert full["outcome"] == "skipped: endpoints match but the raw record fails the contract"
    assert full["checks"]["endpoints"]["ok"] and not full["checks"]["preservation"]["ok"]
    assert full["checks"]["frames"]["first"] == [{
        "cell": 'bpy.data.objects["Statue"].location', "reference": [0.0, 0.0, 1.0],
        "observed": [5.0, 0.0, 1.0]}]
    # only the half-effect candidate ran: energy 1.5 with the Statue kept at x = 0
    assert got.accepted == "projection_half" and got.executions == 1
    assert tail(got).endswith("bpy.data.lights['Fill'].energy = 1.5\n"
                              "bpy.data.lights['Fill'].color = (1.0, 1.0, 1.0)\n")
    assert got.delivered.execution.state["cells"][
        'bpy.data.objects["Statue"].location'] == [0.0, 0.0, 1.0]


def test_the_execution_cap_then_raw_fallback(scenes: TaskScenes) -> None:
    def failing(name):  # candidates that each need an execution and fail it
        def build(raw, z0, prev):
            return Candidate(name, raw.program + "raise RuntimeError('no')\n", raw,
                             [Endpoint(("objects", "Ball"), "location", 9.0, 0)])
        return build

    program = "import bpy\nbpy.data.objects['Ball'].location.z += 0.5\n"
    got, _ = run(scenes, "placement_ball_lift", program,
                 alternatives=[(f"alt{i}", failing(f"alt{i}")) for i in range(8)])
    assert got.executions == MAX_EXTRA_EXECUTIONS == 6
    assert [t["outcome"] for t in got.tried] == ["rejected"] * 6 + [
        "not executed: the execution cap is reached"]
    assert got.tried[0]["checks"]["executed"] == {"ok": False, "error": "raised"}
    assert got.accepted == "raw" and got.delivered is got.raw and got.raw.rendered
    assert got.delivered.program == program


def test_raw_fallback_when_no_alternative_applies(scenes: TaskScenes) -> None:
    program = "import bpy\nbpy.data.objects['Ball'].location.z += 0.5\n"
    got, _ = run(scenes, "placement_ball_lift", program)
    assert got.accepted == "raw" and got.executions == 0 and got.delivered is got.raw
    assert set(outcomes(got).values()) == {"unavailable"} and got.checks == {}


def test_previous_record_reused_on_a_failing_program(scenes: TaskScenes) -> None:
    previous = "import bpy\nbpy.data.objects['Ball'].location.z += 0.25\n"
    got, prev = run(scenes, "placement_ball_lift", "import bpy\nbpy.data.objects['Nope'].x = 1\n",
                    previous=previous)
    assert not got.raw.execution.ok and got.raw.execution.error["kind"] == "raised"
    assert got.accepted == "previous" and got.executions == 0
    assert got.delivered is prev  # its own program and render, never the failed one's
    assert got.delivered.program == previous and got.delivered.rendered


def test_shared_shape_key_displacement_recovered_on_a_mesh_copy(scenes: TaskScenes) -> None:
    program = ("import bpy\n"
               "twin = bpy.data.objects['Twin']\n"
               "twin.data.shape_keys.key_blocks['Stretch'].value = 1.0\n"
               "face = bpy.data.objects['Face']\n"
               "face.data.shape_keys.key_blocks['Stretch'].value = 0.0\n")  # one mesh, one key
    got, _ = run(scenes, "blendshape_twin_only", program)
    assert got.accepted == "recovery_current" and got.executions == 1
    obj = "bpy.data.objects['Twin']"
    assert tail(got) == (f"recovery_current\nimport bpy\n{obj}.data = {obj}.data.copy()\n"
                         f"{obj}.data.shape_keys.key_blocks[\"Stretch\"].value = 1.0\n")
    (end,) = got.checks["endpoints"]["values"]
    assert end["observed"] == 1.0 and end["cell"].startswith('bpy.data.shape_keys["Key.001"]')
    cells = got.delivered.execution.state["cells"]
    assert cells['bpy.data.shape_keys["Key"].key_blocks["Stretch"].value'] == 0.0  # Face
    assert sorted(got.checks["bindings"]["rebound"]) == [["Twin", "data"],
                                                         ["Twin", "data.shape_keys"]]


def test_shared_node_group_displacement_recovered_on_a_group_copy(scenes: TaskScenes) -> None:
    rotation = 'nodes["Transform Geometry"].inputs["Rotation"].default_value'
    program = (
        "import math\nimport bpy\n"
        "b = bpy.data.objects['TowerB'].modifiers['Shape']\n"
        f"b.node_group.{rotation} = (0.0, 0.0, math.pi / 4)\n"
        "a = bpy.data.objects['TowerA'].modifiers['Shape']\n"
        f"a.node_group.{rotation} = (0.0, 0.0, 0.0)\n"
    )  # one group drives both towers: TowerA's write untwists TowerB too
    got, _ = run(scenes, "geometry_twist_b_only", program)
    assert got.accepted == "recovery_current" and got.executions == 1
    group = "bpy.data.objects['TowerB'].modifiers[\"Shape\"].node_group"
    assert tail(got) == (
        f"recovery_current\nimport bpy\n{group} = {group}.copy()\n"
        f'{group}.nodes["Transform Geometry"].inputs[2].default_value = (0.0, 0.0, 0.7853982)\n')
    assert got.checks["scope"]["copies"] == [[["node_groups", "Stack.001"],
                                              ["node_groups", "Stack"]]]
    assert got.checks["bindings"]["rebound"] == [["TowerB", 'modifiers["Shape"].node_group']]
    cells = got.delivered.execution.state["cells"]
    shared = 'bpy.data.node_groups["Stack"].nodes["Transform Geometry"].inputs[2].default_value'
    assert cells[shared] == pytest.approx([0.0, 0.0, 0.0])  # TowerA keeps the shared group
    assert all(c["ok"] for c in got.checks.values()) and got.delivered.rendered


def test_shared_group_written_through_modifier_aliases_gets_a_copy(scenes: TaskScenes) -> None:
    """The minibpy case of the same name, on Blender, from the factory scene."""
    from tests.systems.scene.refiner.test_refine_minibpy import ALIASED_EDIT, SHARED_GROUP, lifted

    ex = scenes.executor
    z0 = SceneRecord(SHARED_GROUP, ex.execute(SHARED_GROUP))
    raw = ex.execute(SHARED_GROUP + ALIASED_EDIT)
    assert [e["via"] for e in raw.events if e["index"] == 2] == [["objects", "Cube"],
                                                                  ["objects", "Twin"]]
    assert lifted(raw.state) == {"Cube": 0.0, "Twin": 0.0}
    got = refine(SHARED_GROUP + ALIASED_EDIT, executor=ex, previous=z0, initial=z0, render=R)
    assert got.accepted == "recovery_current" and got.executions == 1
    assert got.checks["bindings"]["rebound"] == [["Cube", 'modifiers["GN"].node_group']]
    assert lifted(got.delivered.execution.state) == {"Cube": 1.0, "Twin": 0.0}
    assert all(c["ok"] for c in got.checks.values()) and got.delivered.rendered


def test_a_correct_submission_is_delivered_as_it_is_by_default(scenes: TaskScenes) -> None:
    """The issue's programs: the paper's scope projects half the light change into the
    initial program (dropping the cube's edits); the default keeps the submission."""
    from tests.systems.scene.refiner.programs import DISPLACED, GOAL, INITIAL

    ex = scenes.executor
    z0 = SceneRecord(INITIAL, ex.execute(INITIAL))
    goal = ex.execute(GOAL, render=R)
    kept = refine(GOAL, executor=ex, previous=z0, initial=z0, render=R)
    assert kept.accepted == "raw" and kept.delivered.program == GOAL and kept.executions == 0
    assert outcomes(kept)["projection_half"].startswith(
        "not eligible (keep_other_writes): the submission also changes "
        'bpy.data.objects["Cube"].location, bpy.data.objects["Cube"].rotation_euler')
    paper = refine(GOAL, executor=ex, previous=z0, initial=z0, render=R,
                   projection_scope="paper")
    assert paper.accepted == "projection_half" and paper.executions == 1
    assert paper.delivered.program.startswith(INITIAL.rstrip())  # the cube edits are gone
    cells = paper.delivered.execution.state["cells"]
    assert cells['bpy.data.lights["Light"].energy'] == 750.0
    assert cells['bpy.data.objects["Cube"].location'] == [0.0, 0.0, 0.0]
    assert paper.delivered.execution.render_png != goal.render_png
    for scope in ("keep_other_writes", "paper"):  # a displaced write is repaired under both
        fixed = refine(DISPLACED, executor=ex, previous=z0, initial=z0, render=R,
                       projection_scope=scope)
        assert fixed.accepted == "recovery_current" and fixed.projection_scope == scope
        assert tail(fixed) == ("recovery_current\nimport bpy\n"
                               "bpy.data.objects['Cube'].location[0] = 1.5\n")
        assert fixed.delivered.execution.state["cells"] == goal.state["cells"]
