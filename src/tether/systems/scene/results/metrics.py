"""Which metrics the scene section shows, and a trial's values of them.

The scene_render metric's `raw` holds PL (its score), PSNR, SSIM and edge F1 for every
render it scored, and N-CLIP and LPIPS when their ONNX networks were configured (else the
string "unavailable"). CLIP similarity is not measured apart: it is 1 - N-CLIP, as the
paper derives every CLIP table from the per-task N-CLIP (its Appendix L), so the two
always order arms alike.

A trial is valid when its strategy delivered an answer (SceneFacts.valid) and the metric
scored a render of it. Otherwise it is invalid, and counted under its reason in every
table, never averaged as 0: the strategy's own (`no_render`: no successful generated
render; `timeout`), `execution_failed` (the metric's fresh execution of the delivered
program failed or did not render), or `error` (the trial errored).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tether.report import TrialEntry
    from tether.systems.scene.loop.facts import SceneFacts


@dataclass(frozen=True)
class ReportMetric:
    key: str
    label: str
    higher: bool  # higher is better
    learned: bool = False  # needs a user-supplied network (shown only where trials have it)
    primary: bool = False  # the paper's primary metrics: PL and N-CLIP


METRICS = (
    ReportMetric("pl", "PL", False, primary=True),
    ReportMetric("n_clip", "N-CLIP", False, learned=True, primary=True),
    ReportMetric("psnr", "PSNR", True),
    ReportMetric("ssim", "SSIM", True),
    ReportMetric("edge_f1", "edge F1", True),
    ReportMetric("lpips", "LPIPS", False, learned=True),
    ReportMetric("clip", "CLIP", True, learned=True),
)
CORE = tuple(m.key for m in METRICS if not m.learned)
#: the ranges a measured value must lie in (anything else is no value, never clipped)
RANGES = {"pl": (0.0, 1.0), "n_clip": (0.0, 2.0), "psnr": (0.0, 100.0), "ssim": (-1.0, 1.0),
          "edge_f1": (0.0, 1.0), "lpips": (0.0, math.inf), "clip": (-1.0, 1.0)}
Scores = dict[str, float | None]


def _number(raw: dict[str, Any], key: str) -> float | None:
    value = raw.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    low, high = RANGES[key]
    return float(value) if math.isfinite(value) and low <= value <= high else None


def trial_scores(entry: TrialEntry, facts: SceneFacts) -> Scores | None:
    """The metric values of a valid trial (a learned metric None where not measured),
    else None."""
    metric = entry.record.metric
    if not facts.valid or metric is None or entry.record.status == "error":
        return None
    raw = metric.raw or {}
    core = {k: _number(raw, k) for k in CORE}
    if any(v is None for v in core.values()):
        return None  # the metric scored no render: see invalid_reason
    n_clip = _number(raw, "n_clip")
    return {**core, "n_clip": n_clip, "lpips": _number(raw, "lpips"),
            "clip": None if n_clip is None else 1.0 - n_clip}


def invalid_reason(entry: TrialEntry, facts: SceneFacts) -> str:
    """Why a trial has no scores (see the module docstring)."""
    if entry.record.status == "error":
        return "error"
    if facts.invalid_reason:
        return facts.invalid_reason
    metric = entry.record.metric
    if metric is not None and any(d.kind.startswith("execution_") for d in metric.defects):
        return "execution_failed"
    return "not_scored"


def shown(rows: list[Scores]) -> list[dict[str, Any]]:
    """The metrics to show: the core ones always, a learned one where a trial has it."""
    return [asdict(m) for m in METRICS
            if not m.learned or any(r.get(m.key) is not None for r in rows)]
