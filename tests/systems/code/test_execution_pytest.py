"""pytest-format checks: per-test outcomes and messages, run by pytest in the sandbox."""

from __future__ import annotations

import pytest

from tether.core.artifact import Artifact
from tether.core.task import Task
from tether.instruments.base import InstrumentEnv, build_instrument
from tether.sandbox import SandboxUnavailable, get_sandbox

TESTS = {
    "test_add.py": (
        "from solution import add\n\n"
        "def test_small():\n    assert add(1, 2) == 3\n\n"
        "def test_big():\n    assert add(20, 1) == 21\n"
    ),
}


@pytest.fixture(scope="module")
def env() -> InstrumentEnv:
    try:
        get_sandbox("bwrap")
    except SandboxUnavailable as exc:
        pytest.skip(f"bwrap unavailable: {exc}")
    return InstrumentEnv(sandbox="bwrap")


def observe(program: str, env: InstrumentEnv):
    task = Task(id="t", suite="test", prompt="p", metric="execution",
                data={"checks": TESTS, "check_format": "pytest", "timeout_s": 20})
    return build_instrument("execution").observe(Artifact(kind="program", text=program),
                                                 task, env)


def test_failing_test_has_its_message(env):
    obs = observe("def add(a, b):\n    return a + b if a < 10 else a - b\n", env)
    assert obs.passed is False and obs.score == 0.5
    (d,) = obs.defects
    assert d.kind == "failed_test" and "test_big" in d.message
    assert "assert 19 == 21" in d.message and d.location.startswith("test_add.py:")
    assert {t["nodeid"].split("::")[1]: t["outcome"] for t in obs.raw["tests"]} == {
        "test_small": "passed", "test_big": "failed"}


def test_correct_solution_passes(env):
    obs = observe("def add(a, b):\n    return a + b\n", env)
    assert obs.passed is True and obs.score == 1.0 and obs.raw["proof"] is True


def test_import_error_is_a_collection_error(env):
    obs = observe("import no_such_module_xyz\n", env)
    assert obs.passed is False and obs.defects[0].kind == "collect_error"


def test_os_exit_during_import_has_no_proof(env):
    obs = observe("import os\nos._exit(0)\n", env)
    assert obs.passed is False and obs.raw["outcome"] == "no_proof"
