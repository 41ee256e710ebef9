"""COPY stays in the build context: globbed, through every symlink, at classification
and again at build time."""

from __future__ import annotations

import os

import pytest

from tests.systems.terminal.harbor_factory import make_tb2_task
from tether.systems.terminal.context import ContextEscape, copy_sources
from tether.systems.terminal.convert import classify_task


def dockerfile(copy: str) -> str:
    return f"FROM python:3.13-slim-trixie\nWORKDIR /app\n{copy}\n"


@pytest.fixture
def host_secret(tmp_path):
    secret = tmp_path / "host" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("root-only\n")
    return secret


def test_a_globbed_copy_of_a_link_to_a_host_file_is_refused(tmp_path, host_secret):
    task = make_tb2_task(tmp_path, dockerfile=dockerfile("COPY lea* /app/"), files={})
    (task / "environment" / "leak").symlink_to(host_secret)
    c = classify_task(task)
    assert not c.convertible
    # a link out of the task dir is refused before anything of the task is read
    assert [r.kind for r in c.refusals] == ["outside_task_dir"]
    assert "environment/leak is a link that leaves the task dir" in c.reason()
    with pytest.raises(ContextEscape):  # the build checks again, whatever classify said
        copy_sources(task / "environment", "lea*")


def test_a_globbed_copy_of_a_link_to_a_host_dir_is_refused(tmp_path, host_secret):
    task = make_tb2_task(tmp_path, dockerfile=dockerfile("COPY dlin? /app/stolen/"), files={})
    (task / "environment" / "dlink").symlink_to(host_secret.parent, target_is_directory=True)
    c = classify_task(task)
    assert [r.kind for r in c.refusals] == ["outside_task_dir"], c.reason()
    # a path *through* the linked dir escapes just the same
    with pytest.raises(ContextEscape):
        copy_sources(task / "environment", "dlink/secret.txt")


def test_a_link_inside_a_copied_dir_that_points_out_is_refused(tmp_path, host_secret):
    task = make_tb2_task(tmp_path, dockerfile=dockerfile("COPY src /app/src"),
                         files={"src/ok.py": "x = 1\n"})
    (task / "environment" / "src" / "sneaky").symlink_to(host_secret)
    c = classify_task(task)
    assert "environment/src/sneaky is a link that leaves the task dir" in c.reason()
    with pytest.raises(ContextEscape, match="the link src/sneaky points outside"):
        copy_sources(task / "environment", "src")


def test_a_link_inside_the_task_dir_but_outside_the_context_is_refused(tmp_path):
    # it stays in the task dir (the task-link check lets it be) but leaves environment/
    task = make_tb2_task(tmp_path, dockerfile=dockerfile("COPY answers /app/"), files={})
    (task / "environment" / "answers").symlink_to("../solution/solve.sh")
    c = classify_task(task)
    assert [r.kind for r in c.refusals] == ["outside_context"], c.reason()
    assert "answers resolves outside the build context" in c.reason()


def test_links_that_stay_inside_the_context_are_fine(tmp_path):
    task = make_tb2_task(tmp_path, dockerfile=dockerfile("COPY alias* src /app/"),
                         files={"data.txt": "data\n", "src/a.py": "a = 1\n"})
    env = task / "environment"
    (env / "alias.txt").symlink_to("data.txt")
    (env / "src" / "b.py").symlink_to("a.py")
    c = classify_task(task)
    assert c.convertible, c.reason()
    [alias] = copy_sources(env, "alias*")
    assert alias.name == "alias.txt" and alias.real == (env / "data.txt").resolve()
    assert os.path.islink(env / "src" / "b.py")
