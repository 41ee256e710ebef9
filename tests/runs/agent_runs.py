"""Small run directories of real trials, for the judge, export and report tests.

`agent_run`: the bash agent (`agent`, N = 1) and turn-level best-of-N (`turn_bon`, N = 2)
on two tasks x two seeds, through the real trial runner with scripted generators and
selectors (test doubles) in ScriptedEnvironments (an in-memory terminal double). Seed 0
of every task passes; under `agent` seed 1 submits the wrong file, under `turn_bon` the
selector picks the right candidate and passes.

`loop_run`: one self-loop trial whose iteration 1 beats its draft (a preference pair).

The metric's defect message carries SECRET: a judge prompt or an export that holds it
leaked the verifier's output.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.strategies.trial_helpers import code_task, program, run as run_code_trial
from tests.systems.terminal.agent.scripted_environment import ScriptedEnvironment
from tether.core.task import Task
from tether.core.trial import TrialSpec
from tether.instruments.base import register_instrument
from tether.runs.store import RunStore
from tether.runs.trial_runner import run_trial
from tether.systems.terminal.agent.actions import FINISH_MARKER
from tether.systems.terminal.agent.strategy import Agent
from tether.systems.terminal.trajectory_bon import TrajectoryBoN
from tether.systems.terminal.turn_bon import TurnBoN
from tether.testing.scripted_check import ScriptedCheckInstrument
from tether.testing.scripted_models import ScriptedModel

SECRET = "VERIFIER-SECRET-7f3a"
SUBMIT = f"Done.\n```bash\necho {FINISH_MARKER}\n```"
TASKS = ("t0", "t1")
SEEDS = (0, 1)


@register_instrument("secret_check")
class SecretCheck(ScriptedCheckInstrument):
    """scripted_check whose failure message holds SECRET (a test double)."""

    name = "secret_check"

    def observe(self, artifact, task, env):  # type: ignore[no-untyped-def]
        obs = super().observe(artifact, task, env)
        for d in obs.defects:
            d.message = f"{SECRET}: {d.message}"
        obs.raw["hidden"] = SECRET
        return obs


def bash(cmd: str) -> str:
    return f"Next.\n```bash\n{cmd}\n```"


def pick(i: int) -> str:
    return json.dumps({"rationale": "best", "selected_index": i})


def _factory(ctx, config, fail_on=None):  # type: ignore[no-untyped-def]
    return ScriptedEnvironment()


def _task(task_id: str) -> Task:
    return Task(id=task_id, suite="scripted", prompt=f"Create done.txt for {task_id}",
                metric="secret_check", artifact_kind="shell",
                data={"expect": "touch done.txt"})


def agent_records(with_trajectory: bool = False) -> list:
    """With `with_trajectory`, a third arm: trajectory_bon (n = 2, the selector picks the
    second attempt, which runs three commands: ls, touch done.txt, the submission)."""
    saved = {cls: cls.__dict__.get("environment_factory")
             for cls in (Agent, TurnBoN, TrajectoryBoN)}
    for cls in saved:
        cls.environment_factory = staticmethod(_factory)  # type: ignore[assignment]
    records = []
    try:
        strategies = ("agent", "turn_bon", "trajectory_bon")[:3 if with_trajectory else 2]
        for strategy in strategies:
            for task_id in TASKS:
                for seed in SEEDS:
                    good = seed == 0 or strategy == "turn_bon"
                    if strategy == "trajectory_bon":
                        gen = [bash("ls"), bash("touch x.txt"), SUBMIT,
                               bash("ls"), bash("touch done.txt"), SUBMIT]
                        sel = [pick(1)]
                    elif strategy == "agent":
                        gen = [bash("ls"), bash("touch done.txt" if good else "touch x.txt"),
                               SUBMIT]
                        sel: list[str] = []
                    else:
                        # two candidates a turn; the selector picks the good one (index 1)
                        gen = [bash("ls"), bash("cat done.txt"), bash("touch x.txt"),
                               bash("touch done.txt"), SUBMIT, SUBMIT]
                        sel = [pick(0), pick(1), pick(0)]
                    params = {"n": 2} if strategy != "agent" else {}
                    spec = TrialSpec(suite="scripted", task_id=task_id, strategy=strategy,
                                     strategy_params=params,
                                     models={"proposer": "gen", "selector": "sel"}, seed=seed)
                    models = {"gen": ScriptedModel(gen, model_id="scripted-gen"),
                              "sel": ScriptedModel(sel, model_id="scripted-sel")}
                    record, arts = run_trial(spec, _task(task_id),
                                             model_factory=models.__getitem__)
                    record = record.model_copy(update={"index": len(records)})
                    records.append((record, arts))
    finally:
        for cls, old in saved.items():
            if old is None:
                del cls.environment_factory
            else:
                cls.environment_factory = old  # type: ignore[assignment]
    return records


def commit(run_dir: Path, pairs: list) -> Path:
    with RunStore(run_dir, create=True) as store:
        store.write_config({"suites": ["scripted"]})
        for record, arts in pairs:
            store.commit_trial(record, arts.values())
    return run_dir


def agent_run(run_dir: Path, with_trajectory: bool = False) -> Path:
    return commit(run_dir, agent_records(with_trajectory))


def loop_run(run_dir: Path) -> Path:
    """A self-loop whose draft scores 0.5 and whose revision passes (score 1)."""
    record, arts = run_code_trial("self_loop", {"max_iterations": 2,
                                                "feedback": "scripted_partial"},
                                  [program("alpha"), program("alpha beta")],
                                  task=code_task())
    return commit(run_dir, [(record, arts)])
