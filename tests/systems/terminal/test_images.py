"""Image keys: the content hash of a recipe, shared by tasks with the same recipe, and a
cache hit that needs no build tools at all."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.systems.terminal.harbor_factory import make_tb2_task
from tether.errors import ConfigError
from tether.systems.terminal.convert import classify_task
from tether.systems.terminal.images import Image, ImageBuilder, ImageBuildError, image_spec


def key_of(task_dir: Path) -> str:
    return image_spec(classify_task(task_dir)).key


def test_same_recipe_same_key_across_tasks(tmp_path):
    a = make_tb2_task(tmp_path, "a")
    b = make_tb2_task(tmp_path, "b", solve="echo other > /app/answer.txt\n")
    (b / "instruction.md").write_text("A different prompt.\n")
    assert key_of(a) == key_of(b)  # prompt, solution and tests are not in the image


def test_key_changes_with_what_the_image_holds(tmp_path):
    base = key_of(make_tb2_task(tmp_path, "base"))
    assert key_of(make_tb2_task(tmp_path, "content", files={"data.txt": "other\n"})) != base
    assert key_of(make_tb2_task(tmp_path, "run", dockerfile=(
        "FROM python:3.13-slim-bookworm\nWORKDIR /app\nCOPY data.txt /app/data.txt\n"
        "RUN apt-get update && apt-get install -y jq\n"))) != base
    assert key_of(make_tb2_task(tmp_path, "suite", dockerfile=(
        "FROM python:3.11-slim-bookworm\nWORKDIR /app\nCOPY data.txt /app/data.txt\n"))) != base
    pinned = make_tb2_task(tmp_path, "pins")
    test_sh = pinned / "tests" / "test.sh"
    test_sh.write_text(test_sh.read_text().replace("pytest==8.4.1", "pytest==8.3.0"))
    assert key_of(pinned) != base


def test_a_refused_task_has_no_image_spec(tmp_path):
    task = make_tb2_task(tmp_path, dockerfile="FROM alpine:3.20\n", files={})
    with pytest.raises(ConfigError, match="not convertible"):
        image_spec(classify_task(task))


def test_a_cached_image_is_returned_without_building(tmp_path):
    spec = image_spec(classify_task(make_tb2_task(tmp_path)))
    builder = ImageBuilder(tmp_path / "images", mmdebstrap="/nonexistent/mmdebstrap")
    done = builder.image_dir(spec.key)
    (done / "rootfs").mkdir(parents=True)
    (done / "app").mkdir()
    assert builder.cached(spec) is None  # no image.json yet: an interrupted build
    (done / "image.json").write_text(json.dumps(
        {"key": spec.key, "env": {"A": "1"}, "workdir": "/app"}))
    image = builder.build(spec, tmp_path)
    assert image == Image(spec.key, done, {"A": "1"}, "/app")
    assert image.rootfs == done / "rootfs" and image.app == done / "app"


def test_a_missing_tool_is_a_build_error_not_a_crash(tmp_path):
    spec = image_spec(classify_task(make_tb2_task(tmp_path)))
    builder = ImageBuilder(tmp_path / "images", mmdebstrap=None)
    builder.mmdebstrap = None
    with pytest.raises(ImageBuildError, match="mmdebstrap"):
        builder.build(spec, tmp_path)


def test_a_failed_step_says_why_in_one_line(tmp_path):
    from tether.systems.terminal.build_steps import error_lines as _error_lines

    log = tmp_path / "build.log"
    log.write_text("Reading package lists...\nE: Package 'libgl1-mesa-glx' has no installation "
                   "candidate\nother\n")
    assert _error_lines(log) == ": E: Package 'libgl1-mesa-glx' has no installation candidate"
    log.write_text("all fine\n")
    assert _error_lines(log) == ""
