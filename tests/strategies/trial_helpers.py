"""Running whole trials of a strategy against a scripted model (a test double)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tests.strategies.scripted_instruments  # noqa: F401 - registers the test instruments
from tether.core.artifact import Artifact
from tether.core.budget import BudgetSpec
from tether.core.task import Task
from tether.core.trial import TrialRecord, TrialSpec
from tether.instruments.base import InstrumentEnv
from tether.runs import run_trial
from tether.testing.scripted_models import CallInfo, ScriptedModel


def program(body: str) -> str:
    """A reply holding `body` as the one fenced Python block."""
    return f"Here it is.\n```python\n{body}\n```"


def code_task(expect_all: tuple[str, ...] = ("alpha", "beta"), *, metric: str = "scripted_partial",
              **data: Any) -> Task:
    return Task(id="t1", suite="scripted", prompt="Write f() returning the right words.",
                metric=metric, data={"expect_all": list(expect_all), **data})


class RoleScript:
    """Answers each role from its own queue, in order; fails loudly when one runs dry."""

    def __init__(self, **by_role: list[str] | Callable[[list[dict], CallInfo], str]) -> None:
        self.by_role = {role: (list(v) if isinstance(v, list) else v)
                        for role, v in by_role.items()}

    def __call__(self, messages: list[dict], info: CallInfo) -> str:
        answers = self.by_role[info.role]
        if callable(answers):
            return answers(messages, info)
        if not answers:
            raise AssertionError(f"unexpected extra {info.role} call")
        return answers.pop(0)


def run(strategy: str, params: dict[str, Any], script: Any, *, task: Task | None = None,
        budget: BudgetSpec | None = None, seed: int = 0,
        roles: tuple[str, ...] = ("proposer",),
        model: Any = None) -> tuple[TrialRecord, dict[str, Artifact]]:
    """One trial through the real trial runner, every role served by one scripted model."""
    model = model or ScriptedModel(script, model_id="scripted-test")
    spec = TrialSpec(suite="scripted", task_id="t1", strategy=strategy, strategy_params=params,
                     models={role: "scripted:test" for role in roles},
                     budget=budget or BudgetSpec(), seed=seed)
    return run_trial(spec, task or code_task(), model_factory=lambda _spec: model,
                     env=InstrumentEnv(sandbox="subprocess"))


def calls(record: TrialRecord, role: str) -> list:
    return [c for c in record.calls if c.role == role]


def charged(record: TrialRecord) -> int:
    return sum(c.usage.output_tokens + c.usage.reasoning_tokens for c in record.calls)


def delivered(record: TrialRecord, artifacts: dict[str, Artifact]) -> str | None:
    return artifacts[record.artifact].text if record.artifact else None
