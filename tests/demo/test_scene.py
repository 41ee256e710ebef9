"""`tether demo`'s scene section on real Blender: the labelled example's displaced write,
its renders and PL, and the section in the report."""

from __future__ import annotations

import io

import pytest

pytest.importorskip("bpy")

from rich.console import Console  # noqa: E402

from tests.report.conftest import make_record  # noqa: E402
from tether.demo.scene import EXAMPLE, run_scene_demo  # noqa: E402
from tether.report.data import build_report  # noqa: E402
from tether.report.html import write_report  # noqa: E402
from tether.runs.store import RunStore  # noqa: E402


def test_scene_demo_shows_the_displaced_write_and_renders(tmp_path, monkeypatch) -> None:
    from tether.sandbox import BwrapSandbox, SandboxUnavailable

    try:
        BwrapSandbox()
    except SandboxUnavailable as exc:
        pytest.skip(f"bwrap unavailable: {exc}")
    monkeypatch.setenv("TETHER_CACHE", str(tmp_path / "cache"))
    out = io.StringIO()
    with RunStore(tmp_path / "run", create=True) as store:
        store.write_config({"suites": ["toy"], "strategies": ["single_shot"]})
        store.commit_trial(make_record(0, "t0", 0, "single_shot", None, passed=True))
        run_scene_demo(Console(file=out, width=200), store)
        row = store.meta("scene_demo")
        html = write_report(build_report(store), store, tmp_path / "report.html").read_text()
    assert "not a model's output" in EXAMPLE and "not a model's output" in row["label"]
    assert row["pl"]["goal"] == 0.0 and row["pl"]["raw"] > 1e-4  # the red was displaced
    assert row["pl"]["start"] > 1e-4
    assert row["accepted"] == "recovery_current"
    assert row["pl"]["delivered"] < 1e-6  # repaired on a local copy: the goal
    assert "refiner: accepted recovery_current" in out.getvalue()
    assert "a displaced write and the refiner" in html
    assert html.count("data:image/png;base64,") == 4
