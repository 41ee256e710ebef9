"""A trial's scores and why an invalid one has none."""

from __future__ import annotations

from tests.report.conftest import make_record
from tether.report import TrialEntry
from tether.systems.scene.loop.facts import SceneFacts
from tether.systems.scene.results.metrics import invalid_reason, shown, trial_scores

CORE = {"pl": 0.01, "psnr": 20.0, "ssim": 0.9, "edge_f1": 0.5}


def scores(raw: dict | None, *, valid: bool = True, status: str = "ok",
           reason: str | None = None):
    """(trial_scores, invalid_reason) of one scene trial whose metric raw is `raw`."""
    facts = SceneFacts(scene_strategy="vetr", valid=valid, invalid_reason=reason)
    rec = make_record(0, "t", 0, "vetr", None, passed=False if raw is not None else None,
                      status=status, extra=facts.to_extra(), raw=raw, instrument="scene_render")
    entry = TrialEntry(rec, "vetr", None, "-", None, None)
    return trial_scores(entry, facts), invalid_reason(entry, facts)


def test_learned_metrics_and_clip_derived_from_n_clip() -> None:
    got, _ = scores({**CORE, "n_clip": 0.25, "lpips": 0.1})
    assert got == {**CORE, "n_clip": 0.25, "lpips": 0.1, "clip": 0.75}
    got, _ = scores({**CORE, "n_clip": "unavailable", "lpips": "unavailable"})
    assert got["n_clip"] is None and got["clip"] is None and got["lpips"] is None
    assert [m["key"] for m in shown([got])] == ["pl", "psnr", "ssim", "edge_f1"]


def test_out_of_range_values_are_no_values() -> None:
    got, _ = scores({**CORE, "n_clip": 2.5, "lpips": -1.0})
    assert got["n_clip"] is None and got["lpips"] is None
    assert scores({**CORE, "pl": 1.5})[0] is None  # a core metric out of range: not scored


def test_invalid_reasons() -> None:
    assert scores(None, valid=False, reason="no_render") == (None, "no_render")
    assert scores(CORE, status="error")[1] == "error"
    assert scores({"size": 64})[1] == "not_scored"  # valid facts, no metric values
