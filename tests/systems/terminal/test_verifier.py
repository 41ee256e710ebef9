"""terminal_verifier: the hidden tests over an artifact's final /app, errors never a score."""

from __future__ import annotations

import warnings

from tests.systems.terminal.agent.task_factory import make_task
from tether.core.artifact import Artifact
from tether.instruments.base import InstrumentEnv, build_instrument, observe_safely
from tether.systems.terminal.environment import TerminalEnvironment
from tether.systems.terminal.harbor import load_harbor_task


def _artifact(app_dir) -> Artifact:
    return Artifact(kind="shell", text="touch done.txt\n", meta={"app_dir": str(app_dir)})


def test_reward_becomes_score_and_passed(tmp_path, bwrap):  # noqa: F811
    task = load_harbor_task(make_task(tmp_path))
    inst = build_instrument(task.metric)
    assert inst.name == "terminal_verifier" and inst.grounded
    with TerminalEnvironment.for_task(task, sandbox=bwrap) as env:
        failing = observe_safely(inst, _artifact(env.app_dir), task, InstrumentEnv())
        env.execute("touch done.txt")
        passing = observe_safely(inst, _artifact(env.app_dir), task, InstrumentEnv())
    assert (failing.score, failing.passed, failing.error) == (0.0, False, None)
    assert failing.defects and failing.defects[0].kind == "verifier_failed"
    assert (passing.score, passing.passed, passing.error, passing.defects) == (1.0, True, None, [])


def test_missing_reward_and_missing_app_are_errors(tmp_path, bwrap):  # noqa: F811
    task = load_harbor_task(make_task(tmp_path, test="echo no reward\n"))
    inst = build_instrument("terminal_verifier")
    with TerminalEnvironment.for_task(task, sandbox=bwrap) as env:
        obs = observe_safely(inst, _artifact(env.app_dir), task, InstrumentEnv())
    assert obs.error and obs.score is None and obs.passed is None
    assert obs.raw["error_kind"] == "no_reward"
    gone = observe_safely(inst, _artifact(tmp_path / "nowhere"), task, InstrumentEnv())
    assert gone.error and "no final /app" in gone.error and gone.score is None


def test_the_unsafe_backend_is_an_error_not_a_score(tmp_path):
    task = load_harbor_task(make_task(tmp_path))
    app = tmp_path / "app"
    app.mkdir()
    (app / "done.txt").write_text("")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the unsafe backend warns that it is unsafe
        obs = observe_safely(build_instrument("terminal_verifier"), _artifact(app), task,
                             InstrumentEnv(sandbox="subprocess"))
    assert obs.error and obs.score is None
