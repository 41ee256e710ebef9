"""`tether tasks import`: the dry-run table, its JSON, and the errors a user can act on
(no image is built here: see tests/systems/terminal/test_image_build.py for a real build)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from tests.systems.terminal.harbor_factory import make_tb2_task
from tether.cli.hub import main


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


PIP_VERIFIER = ("#!/bin/bash\napt-get update && apt-get install -y python3-pip\n"
                "pip install pytest==8.4.1 pytest-json-ctrf==0.3.5\n"
                "pytest --ctrf /logs/verifier/ctrf.json /tests/test_outputs.py -rA\n"
                "if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; "
                "else echo 0 > /logs/verifier/reward.txt; fi\n")


def test_the_three_shapes_a_held_out_sample_refused_now_convert(tmp_path):
    """Synthetic task dirs of the shapes that held-out Terminal-Bench 2 tasks had (the
    real ones cannot be fetched here): a `pip install` verifier, a WORKDIR outside
    /app, a bookworm base whose OpenSSL the task depends on."""
    make_tb2_task(tmp_path, "pip-verifier", test_sh=PIP_VERIFIER)
    make_tb2_task(tmp_path, "workspace", files={},
                  dockerfile="FROM python:3.13-slim-bookworm\nWORKDIR /workspace\n")
    make_tb2_task(tmp_path, "bookworm-openssl", files={},
                  dockerfile="FROM python:3.11-slim-bookworm\nWORKDIR /app\n"
                             "RUN apt-get update && apt-get install -y openssl\n")
    result = run(str(tmp_path), "--dry-run", "--json")
    assert result.exit_code == 0, result.output
    rows = {r["task"]: r for r in json.loads(result.stdout)}
    assert all(r["status"] == "convertible" for r in rows.values()), rows
    assert rows["workspace"]["reason"].endswith(
        "WORKDIR /workspace: the attempt's writable dir is /workspace, not /app")
    # a base that names its release is built from that release: no stand-in to note
    assert rows["bookworm-openssl"]["suite"] == "bookworm"
    assert rows["bookworm-openssl"]["reason"] == ""
