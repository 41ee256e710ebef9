"""The Harbor task-dir loader: Tasks from dirs, clear errors, the bundled terminal suite."""

from __future__ import annotations

import pytest

from tests.systems.terminal.agent.task_factory import make_task
from tether.errors import ConfigError
from tether.suites import load_suite
from tether.systems.terminal.harbor import (
    BUNDLED_TERMINAL,
    expand_task_dirs,
    load_harbor_dir,
    load_harbor_task,
    load_terminal_suite,
)
from tether.systems.terminal.spec import TerminalSpec

FULL_TOML = """version = "1.0"
[metadata]
difficulty = "easy"
tags = ["x"]
[verifier]
timeout_sec = 33.0
env = { MODE = "strict", LEVEL = 2 }
[agent]
timeout_sec = 77
[solution]
env = { HINT = "yes" }
[environment]
build_timeout_sec = 12.5
memory = "2G"
storage_mb = 2048
"""


def test_a_task_dir_becomes_a_task(tmp_path):
    d = make_task(tmp_path, "fix-it", toml=FULL_TOML, instruction="  Do the thing.  ")
    task = load_harbor_task(d, suite="mine")
    assert (task.id, task.suite, task.prompt) == ("fix-it", "mine", "Do the thing.")
    assert (task.artifact_kind, task.metric) == ("shell", "terminal_verifier")
    assert task.data["metadata"] == {"difficulty": "easy", "tags": ["x"]}
    assert task.data["has_solution"] is True
    spec = TerminalSpec.from_task(task)
    assert spec.task_dir == d.resolve()
    assert (spec.agent_timeout_s, spec.verifier_timeout_s, spec.setup_timeout_s) == (77, 33, 12.5)
    assert spec.memory_mb == 2048 and spec.disk_mb == 2048  # Harbor's storage_mb
    assert spec.verifier_env == {"MODE": "strict", "LEVEL": "2"}
    assert spec.solution_env == {"HINT": "yes"}


def test_defaults_when_task_toml_is_minimal(tmp_path):
    task = load_harbor_task(make_task(tmp_path, toml='version = "1.0"\n', solve=None))
    spec = TerminalSpec.from_task(task)
    assert spec.agent_timeout_s > 0 and spec.verifier_timeout_s > 0 and spec.memory_mb >= 512
    assert task.data["has_solution"] is False


@pytest.mark.parametrize("toml, message", [
    ("[agent]\ntimeout_sec = 'soon'\n", r"task.toml: key \[agent\].timeout_sec: expected a "
                                        r"positive number.*'soon'"),
    ("[verifier]\ntimeout_sec = -1\n", r"\[verifier\].timeout_sec.*-1"),
    ("[environment]\nmemory = 'lots'\n", r"\[environment\].memory: expected a size"),
    ("[verifier]\nenv = 'x'\n", r"\[verifier\].env: expected a table"),
    ("agent = 3\n", r"\[agent\] must be a table"),
    ("[agent\n", r"task.toml: not valid TOML"),
])
def test_bad_task_toml_names_file_key_and_expectation(tmp_path, toml, message):
    d = make_task(tmp_path, toml=toml)
    with pytest.raises(ConfigError, match=message):
        load_harbor_task(d)


def test_missing_pieces_are_named(tmp_path):
    d = make_task(tmp_path)
    (d / "tests" / "test.sh").unlink()
    with pytest.raises(ConfigError, match=r"tests/test.sh: missing"):
        load_harbor_task(d)
    (d / "instruction.md").write_text("  \n")
    with pytest.raises(ConfigError, match=r"instruction.md: empty"):
        load_harbor_task(d)
    (d / "instruction.md").unlink()
    with pytest.raises(ConfigError, match=r"instruction.md: missing"):
        load_harbor_task(d)
    with pytest.raises(ConfigError, match="not found"):
        load_harbor_task(tmp_path / "nope")


def test_missing_task_toml(tmp_path):
    d = make_task(tmp_path)
    (d / "task.toml").unlink()
    with pytest.raises(ConfigError, match=r"task.toml: missing") as info:
        load_harbor_task(d)
    assert "instruction.md" in (info.value.hint or "")


def test_container_environments_are_refused_clearly(tmp_path):
    image = make_task(tmp_path, "img", setup=None,
                      toml='[environment]\ndocker_image = "org/name:tag"\n')
    with pytest.raises(ConfigError, match="unsupported environment: needs a container "
                                          "runtime.*org/name:tag"):
        load_harbor_task(image)
    docker = make_task(tmp_path, "dockerfile", setup=None)
    (docker / "environment" / "Dockerfile").write_text("FROM ubuntu\n")
    with pytest.raises(ConfigError, match=r"needs a container runtime \(environment/Dockerfile"):
        load_harbor_task(docker)
    # a setup.sh describes the environment without a container: accepted
    (docker / "environment" / "setup.sh").write_text("true\n")
    assert load_harbor_task(docker).id == "dockerfile"


def test_dirs_of_task_dirs_are_expanded(tmp_path):
    for name in ("b", "a"):
        make_task(tmp_path / "suite", name)
    (tmp_path / "suite" / "notes").mkdir()
    assert [p.name for p in expand_task_dirs([tmp_path / "suite"])] == ["a", "b"]
    tasks = load_harbor_dir(tmp_path / "suite")
    assert [(t.id, t.suite) for t in tasks] == [("a", "suite"), ("b", "suite")]
    with pytest.raises(ConfigError, match="neither a task dir nor a dir of task dirs"):
        expand_task_dirs([tmp_path / "suite" / "notes"])


def test_the_bundled_terminal_suite():
    tasks = load_terminal_suite()
    assert len(tasks) >= 15
    assert all(t.suite == "terminal" and t.metric == "terminal_verifier" for t in tasks)
    for t in tasks:
        d = BUNDLED_TERMINAL / t.id
        assert (d / "environment" / "setup.sh").is_file(), t.id
        assert (d / "solution" / "solve.sh").is_file(), t.id
        assert "reward.txt" in (d / "tests" / "test.sh").read_text(), t.id
    easy = [t.id for t in tasks if t.data["metadata"].get("difficulty") == "easy"]
    assert {"hello-file", "count-lines", "make-executable"} <= set(easy)
    assert [t.id for t in load_suite("terminal")] == [t.id for t in tasks]


def test_generator_copies_shared_by_setup_and_verifier_are_identical():
    # setup.sh and the hidden verifier rebuild the same data from these scripts
    for env_copy in BUNDLED_TERMINAL.glob("*/environment/gen_*.py"):
        test_copy = env_copy.parents[1] / "tests" / env_copy.name
        assert test_copy.read_text() == env_copy.read_text(), env_copy


def test_the_harbor_format_through_load_suite(tmp_path):
    d = make_task(tmp_path / "suite", "only")
    make_task(tmp_path / "suite", "other")
    assert [t.key for t in load_suite(f"harbor:{tmp_path / 'suite'}")] == ["suite/only",
                                                                            "suite/other"]
    assert [t.key for t in load_suite(f"harbor:{d}")] == ["suite/only"]
    # the registry hands format loaders a file: a task's task.toml names its dir
    assert [t.id for t in load_suite(f"harbor:{d / 'task.toml'}")] == ["only"]
    assert [t.id for t in load_harbor_dir(d / "instruction.md")] == ["only"]
