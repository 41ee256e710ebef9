"""Scene tasks on real Blender: tasks check (3 bundled tasks by default, all when slow),
failing checks, the scene_render instrument, BlenderGym tasks on a real .blend."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("bpy")

from tether.core.artifact import Artifact  # noqa: E402
from tether.instruments.base import InstrumentEnv  # noqa: E402
from tether.systems.scene.check import check_task  # noqa: E402
from tether.systems.scene.scenes import TaskScenes  # noqa: E402
from tether.systems.scene.tasks import bundled_task_dirs, bundled_tasks_dir, load_task  # noqa: E402

# One per kind of shared data (material, light data) and one plain placement.
DEFAULT = ("material_right_red", "lighting_key_left_off", "placement_box_back")


@pytest.fixture(scope="module")
def scenes(tmp_path_factory, bwrap) -> Iterator[TaskScenes]:
    with TaskScenes(tmp_path_factory.mktemp("scene-cache")) as s:
        yield s


@pytest.mark.parametrize("name", DEFAULT)
def test_bundled_task_passes_check(scenes: TaskScenes, name: str) -> None:
    result = check_task(scenes, load_task(bundled_tasks_dir() / name))
    assert result.ok, result.problems
    assert result.details["start_pl_vs_stored"] <= 1e-4
    assert result.details["start_goal_pl"] > 1e-4


@pytest.mark.slow
def test_every_bundled_task_passes_check(scenes: TaskScenes) -> None:
    failed = {t.id: r.problems for t in map(load_task, bundled_task_dirs())
              if not (r := check_task(scenes, t)).ok}
    assert failed == {}


def _copy(name: str, tmp_path: Path) -> Path:
    dst = tmp_path / name
    shutil.copytree(bundled_tasks_dir() / name, dst)
    return dst


def test_check_fails_a_raising_goal_a_wrong_digest_and_a_random_base(scenes, tmp_path) -> None:
    task = _copy("placement_box_back", tmp_path)
    (task / "goal.py").write_text("import bpy\nbpy.data.objects['Nope'].location.x = 1\n")
    problems = check_task(scenes, load_task(task)).problems
    assert any(p.startswith("goal.py: raised at line 2: ") for p in problems), problems

    task = _copy("placement_ball_lift", tmp_path)
    spec = json.loads((task / "task.json").read_text())
    spec["digests"]["goal"] = spec["digests"]["start"]
    (task / "task.json").write_text(json.dumps(spec))
    problems = check_task(scenes, load_task(task)).problems
    assert [p for p in problems if p.startswith("goal: render differs from the stored digest")]

    task = _copy("placement_cone_tip", tmp_path)
    base = (task / "base.py").read_text()
    (task / "base.py").write_text(base + "\nimport random\n"
                                  "bpy.data.objects['Box'].location.y = random.random()\n")
    problems = check_task(scenes, load_task(task), record=True).problems
    assert "base: two builds of base.py differ in state (not deterministic)" in problems


def test_spec_must_match_the_built_base(scenes, tmp_path) -> None:
    task = _copy("material_paint_green", tmp_path)
    spec = json.loads((task / "task.json").read_text())
    spec["scene"]["materials"]["Left"] = "Metal"
    (task / "task.json").write_text(json.dumps(spec))
    problems = check_task(scenes, load_task(task)).problems
    assert problems == ["spec: spec says Left has material Metal, built Paint"]


def test_scene_render_instrument_scores_pl_against_the_goal(scenes) -> None:
    from tether.suites.registry import load_suite
    from tether.systems.scene.instrument import SceneRenderInstrument

    task = next(t for t in load_suite("scene") if t.id == "material_right_red")
    inst = SceneRenderInstrument(scenes=scenes)
    st = load_task(Path(task.data["task_dir"]))
    goal = inst.observe(Artifact(kind="scene", text=st.goal), task, InstrumentEnv())
    assert goal.score == 0.0 and goal.passed and goal.raw["psnr"] == 100.0
    # The natural edit through the shared material paints both cubes: worse than the goal.
    shared = ('import bpy\nm = bpy.data.objects["Right"].active_material\n'
              'm.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = '
              '(0.8, 0.05, 0.05, 1.0)\n')
    near = inst.observe(Artifact(kind="scene", text=shared), task, InstrumentEnv())
    start = inst.observe(Artifact(kind="scene", text=st.start), task, InstrumentEnv())
    assert 0 < near.score and 0 < start.score and not near.passed
    assert near.higher_is_better is False and near.aggregation == "mean_score"
    bad = inst.observe(Artifact(kind="scene", text="raise ValueError('no')\n"), task,
                       InstrumentEnv())
    assert bad.score == 1.0 and bad.passed is False and bad.error is None
    assert bad.defects[0].kind == "execution_raised"


def test_blendergym_task_on_a_real_blend_runs_with_renames_reported(scenes, tmp_path) -> None:
    from tether.systems.scene.blendergym import load_blendergym_task

    src = load_task(bundled_tasks_dir() / "material_orb_gold")
    task = tmp_path / "material3"
    task.mkdir()
    shutil.copyfile(scenes.base(src), task / "blender_file.blend")
    (task / "start.py").write_text(src.start)
    (task / "goal.py").write_text(  # a 3.6-era socket name: reported, and it fails on 4.2
        'import bpy\nm = bpy.data.materials["Metal"]\n'
        'm.node_tree.nodes["Principled BSDF"].inputs["Specular"].default_value = 1.0\n')
    bg = load_blendergym_task(task)
    assert [(n["file"], n["line"], n["new"]) for n in bg.notes] == [
        ("goal.py", 3, "Specular IOR Level")]
    result = check_task(scenes, bg, record=True)
    assert any(p.startswith("goal.py: raised at line 3") for p in result.problems)
    assert result.details["notes"] == bg.notes
    png, _ = scenes.render(bg, bg.start)
    assert png is not None and png[:4] == b"\x89PNG"


def test_check_fails_a_task_that_does_not_run_alike_on_minibpy(scenes, tmp_path) -> None:
    """Object.color exists on bpy, not on the minibpy double: the task would not run the
    same on both, which tasks check reports (for the base, or for a program)."""
    task = _copy("placement_box_back", tmp_path)
    with (task / "base.py").open("a") as f:
        f.write("\nbpy.data.objects['Box'].color = (1.0, 0.0, 0.0, 1.0)\n")
    problems = check_task(scenes, load_task(task), record=True).problems
    assert problems == ["minibpy: base.py does not build (AttributeError: 'Object' object "
                        "has no attribute 'color')"], problems

    task = _copy("placement_ball_lift", tmp_path)
    (task / "start.py").write_text("import bpy\nbpy.data.objects['Ball'].color[0] = 0.5\n")
    problems = check_task(scenes, load_task(task), record=True).problems
    assert [p.split(":")[:3] for p in problems] == [["minibpy", " start.py", " raised at line 2"]]
