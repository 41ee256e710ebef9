"""`harness_answer`: the metric of a harness-setting task (systems/compile/tasks.py).

It applies the task's setting's metric to the answer artifact (its text is the answer):
`metric.answer_observation`, the same observation a compile makes of the items it
scores. A trial whose harness failed on the item (a hook error) delivers an artifact
with `meta["status"] = "hook_error"`: scored 0 (it is the harness's fault).
"""

from __future__ import annotations

from typing import ClassVar

from tether import params
from tether.core import Artifact, Observation, Task
from tether.instruments import InstrumentEnv, register_instrument
from tether.systems.compile.metric import METRIC, METRIC_VERSION, answer_observation
from tether.systems.compile.tasks import item_of

__all__ = ["HarnessAnswer"]


@register_instrument(METRIC)
class HarnessAnswer:
    name: ClassVar[str] = METRIC
    version: ClassVar[str] = METRIC_VERSION
    grounded: ClassVar[bool] = True
    class Params(params.Params):
        """No options."""

    def __init__(self, params: Params | None = None) -> None:
        self.params = params if params is not None else self.Params()

    def observe(self, artifact: Artifact, task: Task, env: InstrumentEnv) -> Observation:
        setting, item = item_of(task)
        return answer_observation(setting, item, artifact.text,
                                  hook_error=artifact.meta.get("status") == "hook_error")
