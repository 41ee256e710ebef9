"""`tether scene trace --backend minibpy`: the test double behind the same CLI (no bpy needed),
and the same JSON as `--backend bpy` when bpy is installed."""

from __future__ import annotations

import importlib.util
import json

import pytest
from click.testing import CliRunner

from tether.cli.hub import main
from tether.systems.scene.tasks import bundled_tasks_dir

PROGRAM = "import bpy\nbpy.data.cameras['Camera'].lens = 0.5\nraise ValueError('x')\n"


def trace(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["scene", "trace", *args])
    return result.exit_code, result.output


def test_minibpy_backend_json_and_exit_codes(tmp_path) -> None:
    prog = tmp_path / "p.py"
    prog.write_text(PROGRAM)
    code, output = trace(str(prog), "--backend", "minibpy", "--json")
    assert code == 1, output
    out = json.loads(output)
    assert out["ok"] is False and out["error"]["line"] == 3
    [event] = out["events"]
    assert (event["owner"], event["path"], event["readback"]) == (["cameras", "Camera"],
                                                                  "lens", 1.0)
    assert set(out["state"]["structure"]["objects"]) == {"Camera", "Cube", "Light"}
    prog.write_text("x = 1\n")
    assert trace(str(prog), "--backend", "minibpy")[0] == 0
    # The double has no .blend loader: refused as bad input.
    assert trace(str(prog), "--backend", "minibpy", "--base", str(tmp_path / "b.blend"))[0] == 2
    assert trace(str(prog), "--backend", "blender")[0] == 2


GOAL = bundled_tasks_dir() / "material_right_red" / "goal.py"


def test_minibpy_backend_runs_a_bundled_task_on_its_base(tmp_path) -> None:
    task = bundled_tasks_dir() / "material_right_red"
    code, output = trace(str(GOAL), "--backend", "minibpy", "--task", str(task), "--json")
    assert code == 0, output
    out = json.loads(output)
    assert [(e["owner"], e["path"], e["kind"]) for e in out["events"]] == [
        (["objects", "Right"], "active_material", "binding"),
        (["materials", "Paint.001"],
         'node_tree.nodes["Principled BSDF"].inputs[0].default_value', "assign")]
    assert set(out["state"]["structure"]["objects"]) == {"Camera", "Floor", "Sun", "Left",
                                                         "Right", "Orb"}
    gym = tmp_path / "material2"  # a BlenderGym-layout task ships a .blend: refused
    gym.mkdir()
    for name in ("blender_file.blend", "start.py", "goal.py"):
        (gym / name).write_text("")
    assert trace(str(GOAL), "--backend", "minibpy", "--task", str(gym))[0] == 2


@pytest.mark.skipif(importlib.util.find_spec("bpy") is None, reason="bpy not installed")
def test_minibpy_and_bpy_backends_print_the_same_trace(tmp_path) -> None:
    prog = tmp_path / "p.py"
    prog.write_text(PROGRAM)
    outs = [json.loads(trace(str(prog), "--backend", b, "--json")[1]) for b in ("minibpy", "bpy")]
    for part in ("events", "unresolved", "state", "ok"):
        assert outs[0][part] == outs[1][part], part


@pytest.mark.skipif(importlib.util.find_spec("bpy") is None, reason="bpy not installed")
def test_minibpy_and_bpy_backends_trace_a_task_alike(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("TETHER_CACHE", str(tmp_path / "cache"))
    task = str(bundled_tasks_dir() / "material_right_red")
    outs = [json.loads(trace(str(GOAL), "--backend", b, "--task", task, "--json")[1])
            for b in ("minibpy", "bpy")]
    for part in ("events", "unresolved", "ok"):
        assert outs[0][part] == outs[1][part], part
    # No UV-sphere bounds in the compared parts: equal, not only within float32 tolerance.
    assert outs[0]["state"]["cells"] == outs[1]["state"]["cells"]
    assert outs[0]["state"]["bindings"] == outs[1]["state"]["bindings"]
