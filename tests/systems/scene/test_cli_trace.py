"""`tether scene trace`: JSON shape and exit codes 0 / 1 / 2, on the factory scene and a base."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

pytest.importorskip("bpy")

from tether.cli.hub import main  # noqa: E402


def test_trace_json_and_exit_codes(tmp_path) -> None:
    prog = tmp_path / "p.py"
    prog.write_text("import bpy\nbpy.data.cameras['Camera'].lens = 0.5\nraise ValueError('x')\n")
    result = CliRunner().invoke(main, ["scene", "trace", str(prog), "--json"])
    assert result.exit_code == 1, result.output
    out = json.loads(result.output)
    assert set(out) >= {"events", "unresolved", "state", "ok", "error"}
    assert out["ok"] is False and out["error"]["line"] == 3
    [event] = out["events"]
    assert (event["owner"], event["path"]) == (["cameras", "Camera"], "lens")
    assert event["readback"] == 1.0
    prog.write_text("x = 1\n")
    assert CliRunner().invoke(main, ["scene", "trace", str(prog)]).exit_code == 0
    missing = CliRunner().invoke(main, ["scene", "trace", str(tmp_path / "nope.py")])
    assert missing.exit_code == 2


def test_trace_on_a_base_blend(tmp_path) -> None:
    base = tmp_path / "base.blend"
    # A separate process builds the base so this test's own bpy state stays untouched.
    subprocess.run([sys.executable, "-c",
                    "import bpy\nbpy.data.objects['Cube'].name = 'Box'\n"
                    f"bpy.ops.wm.save_as_mainfile(filepath={str(base)!r})\n"],
                   check=True, capture_output=True)
    prog = tmp_path / "p.py"
    prog.write_text("import bpy\nbpy.data.objects['Box'].location.z = 2\n")
    result = CliRunner().invoke(main, ["scene", "trace", str(prog), "--base", str(base), "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["events"][0]["owner"] == ["objects", "Box"]
    assert "Cube" not in out["state"]["structure"]["objects"]
