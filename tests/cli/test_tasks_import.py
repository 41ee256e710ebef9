"""`tether tasks import`: the dry-run table, its JSON, and the errors a user can act on
(no image is built here: see tests/terminal/test_image_build.py for a real build)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from tests.terminal.harbor_factory import make_tb2_task
from tether.cli.main import main


def run(*args: str):
    return CliRunner().invoke(main, ["tasks", "import", *args])


def test_dry_run_lists_every_task_with_its_verdict(tmp_path):
    make_tb2_task(tmp_path, "copy-only")
    make_tb2_task(tmp_path, "curls", dockerfile="FROM ubuntu:24.04\nRUN curl -O http://x/y\n",
                  files={})
    make_tb2_task(tmp_path, "alpine", dockerfile="FROM alpine:3.20\n", files={})
    result = run(str(tmp_path), "--dry-run", "--json")
    assert result.exit_code == 0, result.output
    rows = {r["task"]: r for r in json.loads(result.stdout)}
    assert rows["copy-only"]["status"] == "convertible" and rows["copy-only"]["image"]
    assert rows["curls"]["status"] == "refused"
    assert rows["curls"]["reason"] == "downloads at build time (curl)"
    assert rows["alpine"]["reason"].startswith("base image 'alpine:3.20'")
    table = run(str(tmp_path), "--dry-run")
    assert "1 convertible, 2 refused of 3 task(s)" in table.output


def test_only_selects_tasks_and_out_is_required_without_dry_run(tmp_path):
    make_tb2_task(tmp_path, "a")
    make_tb2_task(tmp_path, "b")
    result = run(str(tmp_path), "--dry-run", "--json", "--only", "b")
    assert [r["task"] for r in json.loads(result.stdout)] == ["b"]
    missing_out = run(str(tmp_path))
    assert missing_out.exit_code == 2 and "--out DIR is required" in missing_out.output
    nothing = run(str(tmp_path), "--dry-run", "--only", "zzz")
    assert nothing.exit_code == 2 and "no task dirs selected" in nothing.output


def test_a_refused_task_is_a_row_not_a_failed_import(tmp_path):
    make_tb2_task(tmp_path / "src", "alpine", dockerfile="FROM alpine:3.20\n", files={})
    result = run(str(tmp_path / "src"), "--out", str(tmp_path / "out"),
                 "--images", str(tmp_path / "images"), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)[0]["status"] == "refused"
    assert not (tmp_path / "out" / "alpine").exists()
