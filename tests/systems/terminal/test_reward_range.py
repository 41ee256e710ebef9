"""A verifier reward outside [0, 1] is the verifier's error (`bad_reward`), never a score."""

from __future__ import annotations

import pytest

from tests.systems.terminal.agent.task_factory import make_task
from tether.core.artifact import Artifact
from tether.instruments.base import InstrumentEnv, build_instrument, observe_safely
from tether.systems.terminal.environment import TerminalEnvironment
from tether.systems.terminal.harbor import load_harbor_task


@pytest.mark.parametrize("write, says", [
    ("echo 5 > /logs/verifier/reward.txt", "reward 5 is outside [0, 1]"),
    ("echo -1 > /logs/verifier/reward.txt", "reward -1 is outside [0, 1]"),
    ("echo 1e308 > /logs/verifier/reward.txt", "reward 1e+308 is outside [0, 1]"),
    ("echo '{\"reward\": 7}' > /logs/verifier/reward.json", "reward 7 is outside [0, 1]"),
])
def test_an_out_of_range_reward_is_an_error_never_a_score(tmp_path, bwrap, write, says):
    task = load_harbor_task(make_task(tmp_path, test=f"mkdir -p /logs/verifier; {write}\n"))
    with TerminalEnvironment.for_task(task, sandbox=bwrap) as env:
        result = env.verify()
        obs = observe_safely(build_instrument(task.metric),
                             Artifact(kind="shell", text="", meta={"app_dir": str(env.app_dir)}),
                             task, InstrumentEnv())
    assert result.reward is None and result.error_kind == "bad_reward"
    assert says in (result.error or "")
    assert obs.score is None and obs.passed is None and says in (obs.error or "")


@pytest.mark.parametrize("value", ["0", "1", "0.25"])
def test_rewards_in_range_are_scores(tmp_path, bwrap, value):
    test = f"mkdir -p /logs/verifier; echo {value} > /logs/verifier/reward.txt\n"
    task = load_harbor_task(make_task(tmp_path, test=test))
    with TerminalEnvironment.for_task(task, sandbox=bwrap) as env:
        assert env.verify().reward == float(value)
