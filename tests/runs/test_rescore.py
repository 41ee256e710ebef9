"""`tether rescore`: delivered artifacts scored by another instrument, no model call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tether.cli import main
from tether.runs.store import RunStore

from .conftest import write_config, write_suite


@pytest.fixture
def finished_run(tmp_path: Path) -> Path:
    write_suite(tmp_path / "suite.json", tasks=[("t1", "alpha", "alpha"), ("t2", "beta", "gamma"),
                                                ("down", "model-down", "x")])
    out = tmp_path / "run"
    res = CliRunner().invoke(main, ["run", str(write_config(tmp_path, seeds="[0]")), "--out",
                                    str(out), "--json"])
    assert res.exit_code == 1, res.output  # the model-down trial errored
    return out


def _rescore(*args: str):
    return CliRunner().invoke(main, ["rescore", *args], catch_exceptions=False)


def test_rescore_copies_trials_with_the_new_metric(finished_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "rescored"
    res = _rescore(str(finished_run), "--metric", "scripted_check;delay_s=0.01", "--out",
                   str(out), "--json")
    assert res.exit_code == 0, res.output
    body = json.loads(res.stdout)
    assert body["trials"] == 3 and body["instrument_errors"] == 0
    with RunStore.open(finished_run) as src, RunStore.open(out) as dst:
        before = {r.trial_id: r for r in src.trials()}
        after = {r.trial_id: r for r in dst.trials()}
        assert after.keys() == before.keys()  # same ids: `report --compare` pairs them
        assert dst.meta("rescored_from") == str(finished_run.resolve())
        assert dst.meta("rescore_metric") == "scripted_check;delay_s=0.01"
        assert dst.config() == src.config()
        for tid, rec in after.items():
            old = before[tid]
            assert rec.spec == old.spec and rec.calls == old.calls  # no model call made
            assert rec.extra["rescored_from"]["status"] == old.status
            if old.artifact is None:  # the errored trial stays errored, unscored
                assert rec.status == "error" and rec.metric is None
                continue
            assert dst.artifact_text(rec.artifact) == src.artifact_text(old.artifact)
            assert rec.metric is not None and rec.metric.ok
            assert rec.passed == old.passed
            purposes = [o.purpose for o in rec.observations]
            assert purposes == ["metric:original", "metric"]


def test_rescore_with_a_failing_instrument_records_errors_and_exits_1(
        finished_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "broken"
    res = _rescore(str(finished_run), "--metric", "scripted_check;fail_with=boom", "--out",
                   str(out), "--json")
    assert res.exit_code == 1
    assert json.loads(res.stdout)["instrument_errors"] == 2
    with RunStore.open(out) as dst:
        scored = [r for r in dst.trials() if r.artifact]
        assert all(r.status == "error" and r.error_kind == "instrument" for r in scored)
        assert all(r.passed is None and r.score is None for r in scored)  # never a 0
        assert all("boom" in (r.error_message or "") for r in scored)


def test_rescore_can_flip_verdicts(finished_run: Path, tmp_path: Path) -> None:
    # A stricter "instrument": every artifact fails unless it contains "sample=7".
    out = tmp_path / "strict"
    with RunStore.open(finished_run) as src:
        tasks = src.meta("tasks")
    for t in tasks.values():
        t["data"]["expect"] = "sample=7"
    with RunStore(finished_run) as src:
        src.set_meta("tasks", tasks)
    res = _rescore(str(finished_run), "--metric", "scripted_check", "--out", str(out), "--json")
    assert res.exit_code == 0
    with RunStore.open(out) as dst:
        assert [r.passed for r in dst.trials() if r.artifact] == [False, False]
        flipped = [r for r in dst.trials() if r.extra["rescored_from"]["metric"]
                   and r.extra["rescored_from"]["metric"]["passed"]]
        assert len(flipped) == 1


def test_rescore_errors_are_one_line(finished_run: Path, tmp_path: Path) -> None:
    res = CliRunner().invoke(main, ["rescore", str(tmp_path / "nope"), "--metric",
                                    "scripted_check"])
    assert res.exit_code == 2 and "not a run directory" in res.output
    res = CliRunner().invoke(main, ["rescore", str(finished_run), "--metric", "nope"])
    assert res.exit_code == 2 and "unknown instrument 'nope'" in res.output
    assert "Traceback" not in res.output
    assert not (tmp_path / "run-rescored-nope").exists()
    default = CliRunner().invoke(main, ["rescore", str(finished_run), "--metric",
                                        "scripted_check"])
    assert default.exit_code == 0
    assert (tmp_path / "run-rescored-scripted_check" / "run.sqlite").is_file()
