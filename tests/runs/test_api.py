"""`tether.run`: an experiment from a dict (or a file) in Python, its arms and paired counts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import tether
from tether.errors import ConfigError
from tether.runs import RunStore

from .conftest import SCRIPTED, write_config, write_suite

GOOD = "```python\ndef is_even(n):\n    return n % 2 == 0\n```"
BAD = "```python\ndef is_even(n):\n    return n % 2 == 1\n```"

#: the user's script: only `import tether`, a dict, the arms printed
SCRIPT = f"""
import json
import tether

GOOD, BAD = {GOOD!r}, {BAD!r}
outcome = tether.run({{
    "name": "two-arms", "suites": ["code"], "tasks": ["is_even"],
    "strategies": ["single_shot", {{"name": "self_loop", "params": {{"max_iterations": 1}}}}],
    # a test double: each trial's model answers BAD, then GOOD
    "models": {{"proposer": "scripted:" + json.dumps([BAD, GOOD])}},
    "run": {{"concurrency": 1, "sandbox": "subprocess"}},
}}, out="two-arms")
for arm in outcome.arms:
    print(arm.label, arm.pass_rate, arm.passed, arm.judged, arm.cost_usd)
print(outcome.paired("single_shot", "self_loop"))
"""


def test_a_script_with_only_import_tether_runs_two_arms_from_a_dict(tmp_path: Path) -> None:
    (tmp_path / "script.py").write_text(SCRIPT)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "script.py"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    # the draft fails the hidden checks; the loop's revision after their feedback passes
    assert lines[:2] == ["single_shot 0.0 0 1 None", "self_loop 1.0 1 1 None"]
    assert lines[2] == ("self_loop vs single_shot: 1 improved, 0 regressed of 1 pairs "
                        "(sign test p = 1)")
    # a run directory like any other, and no config file written beside it
    assert sorted(p.name for p in tmp_path.iterdir()) == ["script.py", "two-arms"]
    with RunStore.open(tmp_path / "two-arms") as store:
        assert len(store.trials()) == 2 and store.config()["name"] == "two-arms"


def test_arms_carry_an_interval_tokens_and_unknown_cost(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    write_suite(tmp_path / "suite.json")  # t1 and t3 pass, t2 fails
    monkeypatch.chdir(tmp_path)
    outcome = tether.run({"suites": ["tether:suite.json"], "strategies": "single_shot",
                          "models": SCRIPTED, "seeds": 2,
                          "run": {"sandbox": "subprocess"}}, out=tmp_path / "run")
    (arm,) = outcome.arms
    assert (arm.label, arm.trials, arm.judged, arm.passed) == ("single_shot", 6, 6, 4)
    assert arm.pass_rate == pytest.approx(4 / 6)
    # 4 of 6 by Wilson at 95%: tether.stats.wilson_interval pins the formula
    assert arm.interval == pytest.approx((0.3000, 0.9032), abs=1e-4)
    assert arm.output_tokens == sum(r.tokens("output") for r in outcome.records) > 0
    assert arm.cost_usd is None  # a scripted model has no price: unknown, never $0
    assert outcome.planned == 6 and outcome.errored == 0 and not outcome.interrupted
    assert json.loads(json.dumps(outcome.to_dict()))["arms"][0]["passed"] == 4
    # the relative suite path was anchored: the stored config runs from anywhere
    with RunStore.open(tmp_path / "run") as store:
        (suite,) = store.config()["suites"]
    assert suite == f"tether:{tmp_path / 'suite.json'}"


def test_a_priced_model_gives_the_arm_a_cost(tmp_path: Path) -> None:
    write_suite(tmp_path / "suite.json")
    config = write_config(tmp_path, models=SCRIPTED + ";price_in=1000;price_out=2000")
    outcome = tether.run(config, out=tmp_path / "run")  # a config file works the same
    (arm,) = outcome.arms
    assert arm.cost_usd == pytest.approx(
        (arm.input_tokens * 1000 + arm.output_tokens * 2000) / 1e6)


def test_a_bad_dict_is_a_config_error_before_anything_is_written(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as err:
        tether.run({"suites": ["code"], "strategies": [{"name": "single_shot",
                                                         "params": {"max_token": 5}}],
                    "models": SCRIPTED}, out=tmp_path / "run")
    assert str(err.value).startswith("experiment: strategies[0]")
    assert "max_tokens" in (err.value.hint or "")
    with pytest.raises(ConfigError, match="expected a dict"):
        tether.run([1, 2], out=tmp_path / "run")  # type: ignore[arg-type]
    assert not (tmp_path / "run").exists()


def test_paired_counts_only_pairs_both_arms_judged_and_names_a_missing_arm(
        tmp_path: Path) -> None:
    write_suite(tmp_path / "suite.json")
    config = write_config(tmp_path, seeds="[0]", strategies=(
        '[[strategies]]\nname = "single_shot"\n\n'
        '[[strategies]]\nname = "single_shot"\nlabel = "again"\n'))
    outcome = tether.run(config, out=tmp_path / "run")
    same = outcome.paired("single_shot", "again")
    assert (same.pairs, same.improved, same.regressed, same.p) == (3, 0, 0, 1.0)
    with pytest.raises(KeyError, match="'again'"):
        outcome.paired("single_shot", "agian")


def test_resume_finishes_a_run_and_refuses_another_experiment(tmp_path: Path) -> None:
    write_suite(tmp_path / "suite.json")
    config = write_config(tmp_path)
    stop = threading.Event()
    stopped = tether.run(config, out=tmp_path / "run", stop=stop,
                         on_trial=lambda record: stop.set())  # stop after the first trial
    assert stopped.interrupted and len(stopped.records) < stopped.planned == 6
    done = tether.run(config, out=tmp_path / "run", resume=True)
    assert not done.interrupted and len(done.records) == 6 and done.arms[0].passed == 4
    other = write_config(tmp_path, seeds="[0]", name="other.toml")
    with pytest.raises(ConfigError, match="is not the experiment"):
        tether.run(other, out=tmp_path / "run", resume=True)
    # the refusal let go of the run directory: the right experiment resumes it at once
    assert len(tether.run(config, out=tmp_path / "run", resume=True).records) == 6
    with pytest.raises(ConfigError, match="needs out=RUN_DIR"):
        tether.run(config, resume=True)
