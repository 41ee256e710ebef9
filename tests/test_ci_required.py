"""Under CI=true, a skip because bwrap, bpy or Chromium is missing fails the suite (CI
installs them: such a skip is a broken install); other skips, and every skip outside CI,
stay skips. Checked on a small inner test session that loads tests/ci_required.py."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
INNER = '''
import pytest

def test_bwrap_missing():
    pytest.skip("bwrap sandbox unavailable here: bwrap not found")

@pytest.mark.skipif(True, reason="chromium not installed")
def test_chromium_missing():
    pass

def test_bpy_missing():
    pytest.importorskip("bpy_that_is_not_installed_here", reason="could not import 'bpy'")

def test_reference_data_missing():
    pytest.skip("reference data not found (present in CI)")

def test_runs():
    pass
'''
MODULE_SKIP = 'import pytest\npytest.importorskip("bpy_absent", reason="bpy not installed")\n' \
              "def test_x():\n    pass\n"


def inner(tmp_path: Path, ci: str | None, files: dict[str, str]) -> subprocess.CompletedProcess:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci is not None:
        env["CI"] = ci
    env["PYTHONPATH"] = str(REPO)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "tests.ci_required", "-rA", str(tmp_path)],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)


def test_in_ci_a_missing_tool_fails_and_other_skips_stay_skips(tmp_path):
    res = inner(tmp_path, "true", {"test_inner.py": INNER})
    assert res.returncode == 1, res.stdout[-3000:]
    lines = res.stdout.splitlines()
    failed = [ln for ln in lines if ln.startswith(("FAILED", "ERROR"))]
    assert len(failed) == 3, res.stdout[-3000:]
    for name in ("test_bwrap_missing", "test_chromium_missing", "test_bpy_missing"):
        assert any(name in ln and "broken install" in ln for ln in failed), name
    assert any("SKIPPED" in ln and "reference data" in ln for ln in lines)
    assert any("PASSED" in ln and "test_runs" in ln for ln in lines)


def test_in_ci_a_module_skipped_for_bpy_fails_at_collection(tmp_path):
    res = inner(tmp_path, "true", {"test_module.py": MODULE_SKIP})
    assert res.returncode != 0 and "broken install" in res.stdout, res.stdout[-3000:]


@pytest.mark.parametrize("ci", [None, "false"])
def test_outside_ci_they_are_skips(tmp_path, ci):
    res = inner(tmp_path, ci, {"test_inner.py": INNER, "test_module.py": MODULE_SKIP})
    assert res.returncode == 0, res.stdout[-3000:]
    assert "broken install" not in res.stdout
    assert "1 passed, 5 skipped" in res.stdout


def test_ci_run_exports_ci_true():
    script = (REPO / ".ci" / "run").read_text()
    assert "export CI=true" in script
    assert script.index("export CI=true") < script.index("\nmake test")
