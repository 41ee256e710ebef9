"""`tether scene render` and `tether scene tasks check`: files, exit codes 0 / 1 / 2, --json."""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

pytest.importorskip("bpy")

from tether.cli.hub import main  # noqa: E402
from tether.systems.scene.tasks import bundled_tasks_dir  # noqa: E402


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TETHER_CACHE", str(tmp_path / "cache"))


def test_render_on_a_task_and_on_the_factory_scene(tmp_path) -> None:
    from tether.systems.scene.metrics import load_rgb

    task = bundled_tasks_dir() / "placement_box_tall"
    out = tmp_path / "goal.png"
    r = CliRunner().invoke(main, ["scene", "render", str(task / "goal.py"), "--task", str(task),
                                  "--out", str(out), "--size", "32", "--samples", "4"])
    assert r.exit_code == 0, r.output
    assert load_rgb(out).shape == (32, 32, 3)
    prog = tmp_path / "p.py"
    prog.write_text("import bpy\nbpy.data.objects['Cube'].location.x = 1\n")
    factory = tmp_path / "factory.png"
    r = CliRunner().invoke(main, ["scene", "render", str(prog), "--out", str(factory),
                                  "--size", "16", "--samples", "2"])
    assert r.exit_code == 0 and "override: scene.render.engine" in r.output  # factory EEVEE
    prog.write_text("raise ValueError('x')\n")
    r = CliRunner().invoke(main, ["scene", "render", str(prog), "--out", str(factory)])
    assert r.exit_code == 1
    r = CliRunner().invoke(main, ["scene", "render", str(prog), "--task", str(tmp_path),
                                  "--out", str(factory)])
    assert r.exit_code == 2  # not a task directory


def test_tasks_check_exit_codes_and_json(tmp_path) -> None:
    good = bundled_tasks_dir() / "blendshape_twin_only"
    r = CliRunner().invoke(main, ["scene", "tasks", "check", str(good)])
    assert r.exit_code == 0 and "1/1 tasks pass" in r.output, r.output
    assert "family blendshape_twin_only: blendshape (from task.json)" in r.output
    bad = tmp_path / "tasks" / "broken"
    shutil.copytree(good, bad)
    (bad / "start.py").write_text("import bpy\nbpy.data.objects['Gone'].hide_render = True\n")
    r = CliRunner().invoke(main, ["scene", "tasks", "check", str(tmp_path / "tasks"), "--json"])
    assert r.exit_code == 1
    [row] = json.loads(r.output)
    assert row["task"] == "blendshape_twin_only" and not row["ok"]
    assert (row["family"], row["family_from"]) == ("blendshape", "task.json")
    assert row["problems"][0].startswith("start.py: raised at line 2")
    r = CliRunner().invoke(main, ["scene", "tasks", "check", str(bad)])
    assert r.exit_code == 1 and r.output.startswith("FAIL blendshape_twin_only: start.py")
    assert CliRunner().invoke(main, ["scene", "tasks", "check"]).exit_code == 2


def test_trace_on_a_task_shows_the_shared_light_write() -> None:
    task = bundled_tasks_dir() / "lighting_key_left_off"
    r = CliRunner().invoke(main, ["scene", "trace", str(task / "start.py"), "--task", str(task),
                                  "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    # The write through KeyL lands on the light data Key, which KeyR uses too (users 2).
    assert [(e["owner"], e["path"]) for e in out["events"]] == [(["lights", "Key"], "energy")]
    users = {b["from"][1]: b["users"] for b in out["state"]["bindings"] if b["path"] == "data"}
    assert users["KeyL"] == users["KeyR"] == 2


def test_tasks_check_reports_a_blender_36_socket_name_and_never_fixes_it(tmp_path) -> None:
    """A BlenderGym task whose goal.py indexes a 3.6-era socket: a note per line, and the
    program runs as written (it fails on 4.2), so the task fails the check."""
    from tether.systems.scene.scenes import TaskScenes
    from tether.systems.scene.tasks import load_task

    src = load_task(bundled_tasks_dir() / "material_orb_gold")
    task = tmp_path / "material3"
    task.mkdir()
    with TaskScenes(tmp_path / "build") as scenes:
        shutil.copyfile(scenes.base(src), task / "blender_file.blend")
    (task / "start.py").write_text(src.start)
    goal = ('import bpy\nbsdf = bpy.data.materials["Metal"].node_tree.nodes["Principled BSDF"]\n'
            'bsdf.inputs["Specular"].default_value = 0.9\n')
    (task / "goal.py").write_text(goal)
    r = CliRunner().invoke(main, ["scene", "tasks", "check", str(task)])
    assert r.exit_code == 1, r.output
    lines = r.output.splitlines()
    assert lines[0].startswith("FAIL material3: ") and \
        "goal.py: raised at line 3: 'bpy_prop_collection[key]: key \"Specular\" not found'" \
        in lines[0], lines
    assert "note material3: goal.py:3: socket 'Specular' is 'Specular IOR Level' in " \
           "Blender 4.x" in lines
    assert (task / "goal.py").read_text() == goal  # reported, not rewritten
    (task / "goal.py").write_text(src.goal)  # 4.x names only: no note, and it passes
    r = CliRunner().invoke(main, ["scene", "tasks", "check", str(task), "--record"])
    assert r.exit_code == 0 and "note " not in r.output, r.output
