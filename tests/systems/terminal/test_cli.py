"""`tether tasks check`: gates on crafted good and broken tasks, and on the bundled suite."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from tests.systems.terminal.agent.task_factory import make_task
from tether.systems.terminal.cli import tasks
from tether.systems.terminal.gates import check_task
from tether.systems.terminal.harbor import BUNDLED_TERMINAL, load_harbor_task

RANDOM_REWARD = ('mkdir -p /logs/verifier\n'
                 'python3 -c "import random; print(random.random())" > /logs/verifier/reward.txt\n')


def run_check(*args: str):
    return CliRunner().invoke(tasks, ["check", *args])


def test_a_good_task_passes_every_gate(tmp_path, bwrap):  # noqa: F811
    row = check_task(load_harbor_task(make_task(tmp_path)), sandbox=bwrap)
    assert row.to_json() == {"task": "demo", "oracle_reward": 1.0, "null_reward": 0.0,
                             "deterministic": True, "error": None, "registry_access": False,
                             "registry_requests": []}
    assert row.ok


@pytest.mark.parametrize("kwargs, expect", [
    ({"solve": "exit 3\n"}, {"oracle_reward": 0.0, "null_reward": 0.0}),
    ({"setup": "touch /app/done.txt\n"}, {"oracle_reward": 1.0, "null_reward": 1.0}),
    ({"test": RANDOM_REWARD}, {"deterministic": False}),
    ({"test": "echo forgot the reward\n"}, {"oracle_reward": None, "deterministic": None}),
    ({"solve": None}, {"oracle_reward": None}),
    ({"setup": "exit 1\n"}, {"oracle_reward": None, "null_reward": None}),
])
def test_broken_tasks_fail_a_gate(tmp_path, bwrap, kwargs, expect):  # noqa: F811
    row = check_task(load_harbor_task(make_task(tmp_path, **kwargs)), sandbox=bwrap)
    assert not row.ok
    assert {k: row.to_json()[k] for k in expect} == expect
    if expect.get("oracle_reward", 0.0) is None:
        assert row.error


def test_cli_json_and_exit_codes(tmp_path):
    make_task(tmp_path / "suite", "good")
    make_task(tmp_path / "suite", "lazy", setup="touch /app/done.txt\n")
    result = run_check(str(tmp_path / "suite"), "--json")
    assert result.exit_code == 1, result.output
    rows = json.loads(result.stdout)
    assert [r["task"] for r in rows] == ["good", "lazy"]
    assert rows[0] == {"task": "good", "oracle_reward": 1.0, "null_reward": 0.0,
                       "deterministic": True, "error": None, "registry_access": False,
                       "registry_requests": []}
    assert rows[1]["null_reward"] == 1.0
    good = run_check(str(tmp_path / "suite" / "good"))
    assert good.exit_code == 0, good.output
    assert "1/1 task(s) pass every gate" in good.output


def test_cli_usage_errors_exit_2(tmp_path):
    assert run_check().exit_code == 2
    assert run_check(str(tmp_path / "missing")).exit_code == 2
    (tmp_path / "empty").mkdir()
    result = CliRunner().invoke(_main(), ["tasks", "check", str(tmp_path / "empty")])
    assert result.exit_code == 2
    assert "neither a task dir nor a dir of task dirs" in result.output


def test_one_broken_dir_among_four_every_one_reported(tmp_path):
    """A task dir that cannot be loaded (here: task.toml is not TOML) and a folder with no
    task in it are failing rows of their own; the two good tasks are still checked."""
    good = [make_task(tmp_path, name) for name in ("a", "b")]
    broken = make_task(tmp_path, "c", toml="version = [unclosed\n")
    (tmp_path / "notes").mkdir()
    result = run_check(*map(str, [good[0], broken, tmp_path / "notes", good[1]]), "--json")
    assert result.exit_code == 1, result.output
    rows = json.loads(result.stdout)
    assert [r["task"] for r in rows] == ["a", "c", str(tmp_path / "notes"), "b"]
    assert rows[0]["oracle_reward"] == rows[3]["oracle_reward"] == 1.0
    assert rows[1]["oracle_reward"] is None and "cannot load" in rows[1]["error"]
    assert "task.toml" in rows[1]["error"]
    assert "neither a task dir nor a dir of task dirs" in rows[2]["error"]
    table = run_check(*map(str, [good[0], broken, good[1]]))
    assert "2/3 task(s) pass every gate" in table.output


def _main():
    from tether.cli import main

    return main


@pytest.mark.slow
def test_the_bundled_suite_passes_every_gate():
    """The CI gate on tether's own terminal suite (about 15-30 s, two tasks at a time)."""
    result = run_check(str(BUNDLED_TERMINAL), "--json", "--jobs", "2")
    rows = json.loads(result.stdout)
    assert len(rows) >= 15
    bad = [r for r in rows if not (r["oracle_reward"] == 1.0 and r["null_reward"] == 0.0
                                   and r["deterministic"] is True and r["error"] is None)]
    assert not bad, bad
    assert result.exit_code == 0
