"""A compile whose student endpoint stops taking connections stops with that error at
once (never scoring items the student was not asked as infra errors), and `--resume`
once the server is back ends where a compile never stopped ends: the same result, the
same report, each item scored once. `tether harness apply` stops the same way."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tests.systems.compile.compiler.conftest import TEACHER_SPEC
from tests.systems.compile.compiler.test_crash_resume import _committed, _report
from tether.cli.hub import main
from tether.models import EndpointUnreachable
from tether.systems.compile import SCHEMA
from tether.testing.scripted_teacher import student as scripted_student

STUDENT = "scripted:tests.systems.compile.compiler.test_unreachable_student:flaky_student"
ARGS = ["--setting", "toy", "--teacher", TEACHER_SPEC, "--student", STUDENT,
        "--probe", "6", "--validation", "6", "--test", "8", "--rounds", "2",
        "--comparators", "h0,oneshot", "--json"]
#: calls the endpoint still answers before it goes down (None: it never does)
_LEFT: dict[str, int | None] = {"calls": None}
_LOCK = threading.Lock()
#: how it is down: no connection at all (refused), or reached but timing out
_DOWN: dict[str, Any] = {"refused": True,
                         "message": "flaky-student: cannot reach http://127.0.0.1:1/v1"}


def flaky_student(messages: list[dict[str, Any]], info: Any) -> str:
    """TEST DOUBLE: the scripted student behind an endpoint that goes down after
    `_LEFT["calls"]` answers."""
    with _LOCK:
        left = _LEFT["calls"]
        if left is not None:
            if left <= 0:
                raise EndpointUnreachable(_DOWN["message"], no_connection=_DOWN["refused"])
            _LEFT["calls"] = left - 1
    return str(scripted_student(messages, info))


@pytest.fixture()
def endpoint_down_after():
    def down_after(calls: int | None) -> None:
        _LEFT["calls"] = calls
    yield down_after
    _LEFT["calls"] = None
    _DOWN.update(refused=True, message="flaky-student: cannot reach http://127.0.0.1:1/v1")


def _cli(*args: str):
    return CliRunner().invoke(main, list(args))


def test_a_compile_stops_when_its_student_is_unreachable_and_resumes_exactly(
        tmp_path: Path, endpoint_down_after) -> None:
    reference = tmp_path / "reference"
    ran = _cli("compile", *ARGS, "--out", str(reference))
    assert ran.exit_code == 0, ran.output
    ref_result, ref_trials = json.loads(ran.stdout), _committed(reference)

    out = tmp_path / "stopped"
    endpoint_down_after(10)
    stopped = _cli("compile", *ARGS, "--out", str(out))
    assert stopped.exit_code == 2, stopped.output
    assert "error: the student endpoint could not be reached: " in stopped.output
    assert f"tether compile --resume {out}" in stopped.output
    committed = _committed(out)
    # the items answered before it went down, in the reference's order, none after
    assert 0 < len(committed) < len(ref_trials) and committed == ref_trials[:len(committed)]
    statuses = [json.loads(line)["extra"]["item_outcome"]["status"]
                for line in (out / "trials.jsonl").read_text().splitlines()]
    assert "infra_error" not in statuses

    again = _cli("compile", "--resume", str(out))  # still down: stops again, adds nothing
    assert again.exit_code == 2 and _committed(out) == committed

    endpoint_down_after(None)
    resumed = _cli("compile", "--resume", str(out), "--json")
    assert resumed.exit_code == 0, resumed.output
    assert json.loads(resumed.stdout) == ref_result
    assert _report(out) == _report(reference)
    assert sorted(_committed(out)) == sorted(ref_trials)


def test_harness_apply_stops_the_same_way(tmp_path: Path, endpoint_down_after) -> None:
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps({"id": f"r{i}", "question": f"What is {i} plus 1?",
                                        "answer": str(i + 1)}) + "\n" for i in range(6)))
    harness = tmp_path / "h.json"
    harness.write_text(json.dumps({"schema": SCHEMA, "setting": "toy",
                                   "prompts": {"answer": "Answer briefly: {question}"}}))
    out = tmp_path / "applied"
    endpoint_down_after(3)
    stopped = _cli("harness", "apply", str(harness), "--data", str(data),
                   "--student", STUDENT, "--out", str(out))
    assert stopped.exit_code == 2, stopped.output
    assert f"tether harness apply --resume {out}" in stopped.output
    endpoint_down_after(None)
    resumed = _cli("harness", "apply", "--resume", str(out), "--json")
    assert resumed.exit_code == 0, resumed.output
    assert json.loads(resumed.stdout)["answered"] == 6


def test_a_timeout_stays_one_items_infra_error(tmp_path: Path, endpoint_down_after) -> None:
    # the server is there but too slow: each item it times out on is an infra error (a
    # resume would meet the same slowness), and the compile goes on to its end
    _DOWN.update(refused=False, message="flaky-student: timed out talking to the server")
    endpoint_down_after(10)
    out = tmp_path / "slow"
    ran = _cli("compile", *ARGS, "--out", str(out))
    assert ran.exit_code == 0, ran.output
    statuses = [json.loads(line)["extra"]["item_outcome"]["status"]
                for line in (out / "trials.jsonl").read_text().splitlines()]
    assert statuses.count("infra_error") > 0 and "could not be reached" not in ran.output
