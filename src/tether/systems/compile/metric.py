"""The metric of a harness-setting item: its setting's metric applied to an answer.

One definition serves a `tether run` trial (the `harness_answer` instrument,
instrument.py) and a compile's scoring of an item (compiler/trial.py): the same
observation, whoever made the answer. A hook error scores 0 (it is the harness's fault).
A user's metric that fails on the answer (settings/metric_process.py: it raised, ran out
of time or answered out of range) gives an observation with that error and no score:
the item is not scored, never scored 0.
A setting whose metric is graded (ANLS) says so with `aggregation = "mean_score"`; the
others aggregate as a pass rate.
"""

from __future__ import annotations

from tether.core import Aggregation, Observation
from tether.systems.compile.setting import Item, Setting
from tether.systems.compile.settings.metric_process import MetricError

__all__ = ["METRIC", "METRIC_VERSION", "answer_observation"]

METRIC = "harness_answer"
METRIC_VERSION = "1"


def answer_observation(setting: Setting, item: Item, answer: str, *,
                       hook_error: bool, score: float | None = None) -> Observation:
    """The `harness_answer` observation of `answer` to `item` (see the module docstring);
    `score`, when given, is the setting's score of it already taken (a compile's row), so
    a user's metric is not run twice."""
    aggregation: Aggregation = getattr(setting, "aggregation", "pass_rate")
    raw = {"setting": setting.name, "answer": answer, "hook_error": hook_error}
    if hook_error:
        score = 0.0
    elif score is None:
        try:
            score = float(setting.score(answer, item))
        except MetricError as exc:  # the metric's failure on this answer: never a score
            return Observation(instrument=METRIC, version=METRIC_VERSION, grounded=True,
                               error=f"metric: {exc}", raw=raw)
    return Observation(
        instrument=METRIC, version=METRIC_VERSION, grounded=True, score=score,
        passed=score >= 1.0, aggregation=aggregation,
        raw=raw)
