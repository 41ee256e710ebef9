"""The metric of a harness-setting item: its setting's metric applied to an answer.

One definition serves a `tether run` trial (the `harness_answer` instrument,
instrument.py) and a compile's scoring of an item (compiler/trial.py): the same
observation, whoever made the answer. A hook error scores 0 (it is the harness's fault).
A setting whose metric is graded (ANLS) says so with `aggregation = "mean_score"`; the
others aggregate as a pass rate.
"""

from __future__ import annotations

from tether.core import Aggregation, Observation
from tether.systems.compile.setting import Item, Setting

__all__ = ["METRIC", "METRIC_VERSION", "answer_observation"]

METRIC = "harness_answer"
METRIC_VERSION = "1"


def answer_observation(setting: Setting, item: Item, answer: str, *,
                       hook_error: bool) -> Observation:
    """The `harness_answer` observation of `answer` to `item` (see the module docstring)."""
    aggregation: Aggregation = getattr(setting, "aggregation", "pass_rate")
    score = 0.0 if hook_error else float(setting.score(answer, item))
    return Observation(
        instrument=METRIC, version=METRIC_VERSION, grounded=True, score=score,
        passed=score >= 1.0, aggregation=aggregation,
        raw={"setting": setting.name, "answer": answer, "hook_error": hook_error})
