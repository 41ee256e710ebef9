"""`harness_answer`: the metric of a harness-setting task (systems/compile/tasks.py).

It applies the task's setting's metric to the answer artifact (its text is the
answer). A trial whose harness failed on the item (a hook error) delivers an artifact
with `meta["status"] = "hook_error"`: scored 0, as the issue requires (it is the
harness's fault). A setting whose metric is graded (ANLS) says so with
`aggregation = "mean_score"`; the others aggregate as a pass rate.
"""

from __future__ import annotations

from typing import ClassVar

from tether import params
from tether.core import Aggregation, Artifact, Observation, Task
from tether.instruments import InstrumentEnv, register_instrument
from tether.systems.compile.tasks import METRIC, item_of

__all__ = ["HarnessAnswer"]


@register_instrument(METRIC)
class HarnessAnswer:
    name: ClassVar[str] = METRIC
    version: ClassVar[str] = "1"
    grounded: ClassVar[bool] = True
    class Params(params.Params):
        """No options."""

    def __init__(self, params: Params | None = None) -> None:
        self.params = params if params is not None else self.Params()

    def observe(self, artifact: Artifact, task: Task, env: InstrumentEnv) -> Observation:
        setting, item = item_of(task)
        aggregation: Aggregation = getattr(setting, "aggregation", "pass_rate")
        hook_error = artifact.meta.get("status") == "hook_error"
        score = 0.0 if hook_error else float(setting.score(artifact.text, item))
        return Observation(
            instrument=self.name, version=self.version, grounded=True, score=score,
            passed=score >= 1.0, aggregation=aggregation,
            raw={"setting": setting.name, "answer": artifact.text, "hook_error": hook_error})
